# Mahé's best level with 4 or more players (turtles/mahebest.py): the race
# to the beach it scores with, what it credits, and that it plays whole
# games in slices without reading the others' egg cards.
from test_bots import _leak_check, _mahe_hidden_changed, _mahe_restore, _play

from turtles import new_game
from turtles.bots import thinker
from turtles.mahebest import HORIZON, ONE, MaheBest, first_past, reach, score, win_chance
from turtles.rng import Rng


def _placed(cells, faceup=3, revealed=5, player=0):
    # A 4-player game at the start of `player`'s move, turtle t on cells[t]
    # (0: the raft), stacked in turtle order where they share a field.
    g = new_game("mahe", 4)
    g.stacks = [[] for _ in range(g.fields + 2)]
    for t, c in enumerate(cells):
        g.stacks[c].append(t)
        g.pos[t] = c
    g.faceup = faceup
    g.revealed = revealed
    g.player = player
    g.phase = 2  # the die of the next move
    g.mover = player
    g.dice = ()
    return g


def test_reach_table():
    t = reach(21)
    assert len(t) == HORIZON + 1 and t[0] == [0] * 22
    assert t[1][1] == ONE  # one field short: any die passes
    # From the raft in one move only three dice summing to 7 (21 fields)
    # pass: 15 of the 216 rolls.
    assert abs(t[1][21] - 15 * ONE // 216) <= 2
    for k in range(1, HORIZON + 1):  # more moves, more chance; nearer, more chance
        for g in range(1, 22):
            assert t[k][g] >= t[k - 1][g]
            if g > 1:
                assert t[k][g] <= t[k][g - 1]


def test_the_nearest_turtle_is_likeliest_to_pass_first():
    g = _placed([18, 3, 10, 0])  # turtle 0 three fields short of the beach
    first = first_past(g, 0)
    assert first[0] == max(first)
    assert abs(sum(first) - ONE) < ONE // 50  # someone passes first
    # moving first matters: the turtle on the raft ahead of a turtle as far
    g = _placed([0, 3, 10, 0])
    first = first_past(g, 3)
    assert first[3] > first[0]


def test_a_rider_shares_the_moves_of_the_turtles_under_it():
    # Players 1 and 3 share field 15; player 1 moves first. On top, player
    # 3's turtle rides player 1's first move; under it, it does not.
    riding = _placed([5, 15, 2, 15], player=1)
    under = _placed([5, 15, 2, 15], player=1)
    under.stacks[15] = [3, 1]
    on_top = first_past(riding, 1)
    below = first_past(under, 1)
    assert on_top[3] > below[3]
    assert on_top[1] < below[1]


def test_a_high_face_up_card_is_worth_more_to_the_nearest():
    near6 = score(_placed([18, 3, 10, 0], faceup=6), 0)
    near1 = score(_placed([18, 3, 10, 0], faceup=1), 0)
    assert near6[0] - near6[1] > near1[0] - near1[1]


def test_the_top_of_a_stack_is_credited_with_its_rides():
    # Player 3's turtle on player 1's: player 1 moves first and carries it.
    alone = score(_placed([5, 10, 14, 12], player=1), 3)
    riding = score(_placed([5, 10, 14, 10], player=1), 3)
    assert riding[3] > alone[3]


def test_win_chance():
    g = _placed([5, 10, 14, 12])
    even = win_chance(g, 0, [1000, 1000, 1000, 1000])
    assert 1000 < even < 1500  # about one in eight: ahead of three equals
    ahead = win_chance(g, 0, [3000, 1000, 1000, 1000])
    behind = win_chance(g, 0, [1000, 3000, 1000, 1000])
    assert behind < even < ahead
    g.phase = 4  # over: only the others' unseen cards are unknown
    assert win_chance(g, 0, [3000, 1000, 1000, 1000]) > ahead


def test_best_plays_four_and_five_player_games_in_slices():
    for players, options in ((4, {}), (5, {"egg_dice": 1})):
        g, n = _play("mahe", players, options, ["best", "easy"], 5, check_slices=True)
        assert n > 0 and g.result() is not None


def test_best_with_four_or_more_players_is_this_search():
    g = new_game("mahe", 4)
    while g.to_move() < 0:
        g.push(g.legal_actions()[0])
    assert isinstance(thinker(g, "best", Rng(1)), MaheBest)
    g2 = new_game("mahe", 3)
    while g2.to_move() < 0:
        g2.push(g2.legal_actions()[0])
    assert not isinstance(thinker(g2, "best", Rng(1)), MaheBest)


def test_mahe_best_never_reads_the_others_egg_cards():
    n = _leak_check("mahe", 4, ["best"], _mahe_hidden_changed, _mahe_restore, (2, 3))
    assert n > 20
    n = _leak_check("mahe", 5, ["best", "easy"], _mahe_hidden_changed, _mahe_restore, (4,))
    assert n > 20
