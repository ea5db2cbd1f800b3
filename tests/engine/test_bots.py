# The computer's players: every level plays every game to the end with
# legal actions, searches in slices that leave the game as it was, and never
# reads what its player may not see (changing those hidden parts of the true
# state must not change its choice).
from turtles import CHANCE, TERMINAL, new_game
from turtles.bots import LEVELS, choose, random_action, think_through, thinker
from turtles.rng import Rng

from check import raises

# rows of test_bot_games_identical (tests/test_engine_micropython.py): (game, players, options, bots, games)
BOT_TRANSCRIPTS = [
    ("tortuga", 2, "", "best,good", 1),
    ("tortuga", 2, "hatching=1", "good,easy", 1),
    ("tortuga", 2, "tattoo=2", "good,random", 1),
    ("mahe", 4, "", "best,good,easy,random", 1),
    ("mahe", 3, "egg_dice=1", "best,good,easy", 1),
    ("race", 5, "", "best,good,easy,random", 1),
]


def _play(name, players, options, levels, seed, check_slices=False):
    g = new_game(name, players, options)
    chance = Rng(seed)
    minds = [Rng(seed * 13 + p) for p in range(players)]
    n = 0
    while g.to_move() != TERMINAL:
        who = g.to_move()
        if who == CHANCE:
            g.push(random_action(g, chance))
            continue
        if check_slices:
            key = g.state_key()
            t = thinker(g, levels[who % len(levels)], minds[who])
            while not t.step():
                assert g.state_key() == key  # the game is whole between slices
            assert g.state_key() == key
            a = t.action
        else:
            a = choose(g, levels[who % len(levels)], minds[who])
        assert a in g.legal_actions()
        g.push(a)
        n += 1
    return g, n


def test_every_level_plays_every_game_to_the_end():
    for name, players, options in (
        ("tortuga", 2, {}), ("tortuga", 2, {"tattoo": 2}), ("tortuga", 2, {"hatching": 1}),
        ("tortuga", 2, {"hops": 1}), ("mahe", 2, {}), ("mahe", 5, {"egg_dice": 1}),
        ("race", 2, {}), ("race", 4, {"open_colours": 1}), ("race", 3, {"start": "side_by_side"}),
    ):
        levels = ["good", "easy", "random", "good", "easy"][:players]
        g, n = _play(name, players, options, levels, 3, check_slices=True)
        assert n > 0 and g.result() is not None


def test_same_seed_same_choice_and_bad_level():
    g = new_game("tortuga", 2)
    g.apply_text("d2-d3")
    assert choose(g, "best", Rng(9)) == choose(g, "best", Rng(9))
    e = raises(ValueError, thinker, g, "expert", Rng(1))
    assert "random, easy, good, best" in str(e)
    assert LEVELS == ("random", "easy", "good", "best")


def test_best_takes_a_win_in_one_and_good_sees_the_threat():
    # South's turtle on e6 steps to the goal d7; North has one on d2, a step
    # from South's camp d1, so anything but the win loses.
    from turtles.tortuga import Tortuga

    pos = "..../...../....../.n...../.....s/...../.... S r=0,0 n=10"
    g = Tortuga.from_position(pos)
    for level in ("easy", "good", "best"):
        assert g.action_text(choose(g, level, Rng(1))) == "e6-d7", level


def test_race_bot_blocked_from_physical_cards():
    g = new_game("race", 3, {"mode": "physical"})
    rng = Rng(2)
    while g.to_move() == CHANCE:
        g.push(random_action(g, rng))
    e = raises(ValueError, thinker, g, "good", Rng(1))
    assert "mode=dealt" in str(e)
    assert thinker(g, "random", Rng(1)).action in g.legal_actions()


def test_race_best_counts_the_worlds_it_samples():
    # Near the end of a race a playout is a few actions; sampling its world
    # costs more (montecarlo.WORLD actions), and counts as that: the budget
    # bounds the work, so the worlds sampled are at most budget / WORLD.
    from turtles.bots import BUDGETS
    from turtles.montecarlo import WORLD

    budget = BUDGETS["race"]["best"]
    most = 0
    for seed in (1, 2):
        g = new_game("race", 5)
        rng = Rng(seed)
        while g.to_move() != TERMINAL:
            if g.to_move() != CHANCE and len(g.legal_actions()) > 1:
                t = think_through(thinker(g, "best", Rng(seed)))
                # a round of worlds (one a root action) is finished
                assert sum(t.tries) <= budget // (WORLD + 1) + len(t.actions)
                most = max(most, sum(t.tries))
            g.push(random_action(g, rng))
    assert most > budget // (WORLD + 1) // 2  # short playouts were met


# ---- the bots see what their player sees -----------------------------------

def _rotated(counts):
    return counts[1:] + counts[:1]


def _race_hidden_changed(g, me):
    # Other hands and colours and the draw pile changed; returns the undo.
    saved = (g.hands, g.colour_of, g.draw)
    g.hands = [h if p == me else _rotated(h) for p, h in enumerate(g.hands)]
    g.colour_of = [c if (p == me or c < 0 or g.colour_known(p, me)) else (c + 1) % 5
                   for p, c in enumerate(g.colour_of)]
    g.draw = _rotated(g.draw)
    return saved


def _mahe_hidden_changed(g, me):
    # Every other player's egg cards: as many, other values.
    saved = g.won
    g.won = [h if p == me else sorted([7 - v for v in h]) for p, h in enumerate(g.won)]
    return saved


def _leak_check(name, players, levels, change, restore, seeds, leaky=None, options=None):
    changed_any = 0
    for seed in seeds:
        g = new_game(name, players, options)
        rng = Rng(seed)
        while g.to_move() != TERMINAL:
            who = g.to_move()
            if who == CHANCE:
                g.push(random_action(g, rng))
                continue
            level = levels[who % len(levels)]
            key = g.state_key()
            honest = choose(g, level, Rng(seed + 100))
            saved = change(g, who)
            if g.state_key() != key:
                changed_any += 1
            try:
                other = (leaky or choose)(g, level, Rng(seed + 100))
            finally:
                restore(g, saved)
            assert g.state_key() == key
            assert other == honest, "%s %s: the choice depends on hidden parts" % (name, level)
            g.push(honest)
    return changed_any


def _race_restore(g, saved):
    g.hands, g.colour_of, g.draw = saved


def _mahe_restore(g, saved):
    g.won = saved


def test_race_bots_never_read_hidden_hands_colours_or_pile():
    n = _leak_check("race", 4, ["best", "good", "easy", "good"], _race_hidden_changed,
                    _race_restore, (1, 2))
    assert n > 20  # the check really changed hidden parts


def test_mahe_bots_never_read_the_others_egg_cards():
    n = _leak_check("mahe", 4, ["best", "good", "easy", "best"], _mahe_hidden_changed,
                    _mahe_restore, (1,))
    assert n > 20


def test_mahe_best_with_egg_dice_never_reads_an_opponents_cards():
    # With 2-3 players the bot's move may be decided by another player (the
    # turtle it moves first lies under theirs): which egg cards they may play
    # as a die is chance to the bot, never their face-down hand.
    n = _leak_check("mahe", 3, ["best"], _mahe_hidden_changed, _mahe_restore, (1, 2),
                    options={"egg_dice": 1})
    n += _leak_check("mahe", 2, ["best", "good"], _mahe_hidden_changed, _mahe_restore, (3,),
                     options={"egg_dice": 1})
    assert n > 20


def test_the_leak_check_catches_a_peeking_bot():
    # A bot that picks by the other players' hands must be caught.
    def peeking(g, level, rng):
        acts = g.legal_actions()
        return acts[sum(g.hands[(g.to_move() + 1) % g.players][:7]) % len(acts)]

    raises(AssertionError, _leak_check, "race", 3, ["easy"], _race_hidden_changed,
           _race_restore, (4,), peeking)
