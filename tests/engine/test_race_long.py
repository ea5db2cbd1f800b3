# Long tracks (30 fields), so the draw pile runs out and is reshuffled many
# times: every card is always somewhere, undo goes back through every
# reshuffle, and the record replays on the same geometry.
from turtles import TERMINAL, from_record, new_game
from turtles.bots import random_action
from turtles.race import DECK, KINDS
from turtles.record import write_record
from turtles.rng import Rng

LONG = {"fields": 30}


def _cards_accounted(g):
    if g.dealt:
        for k in range(KINDS):
            held = 0
            for h in g.hands:
                held += h[k]
            assert held + g.draw[k] + g.played[k] == DECK[k], k
        assert sum(g.draw) == g.draw_n and sum(g.played) == g.played_n
    elif g.to_move() >= 0 and not g.show_left:
        # every player holds five unseen cards when a card is to be played
        assert g.played_n + g.draw_n + 5 * g.players == 52
        assert sum(g.played) == g.played_n
    for k in range(KINDS):
        assert 0 <= g.played[k] <= DECK[k]


def _long_game(players, options, seed):
    g = new_game("race", players, options, LONG)
    rng = Rng(seed)
    keys = [g.state_key()]
    refills = 0
    while g.to_move() != TERMINAL:
        before = g.played_n
        g.apply(random_action(g, rng))
        if g.played_n < before:
            refills += 1
        _cards_accounted(g)
        keys.append(g.state_key())
    again = from_record(write_record(g), LONG)
    assert again.state_key() == g.state_key() and again.result() == g.result()
    i = len(keys) - 1
    while g.history:
        g.undo()
        i -= 1
        assert g.state_key() == keys[i]
    return refills


def test_long_dealt_races_reshuffle_and_undo():
    refills = 0
    for seed in range(1, 4):
        refills += _long_game(3, {}, seed)
        refills += _long_game(5, {"start": "side_by_side"}, seed)
    assert refills >= 6, refills


def test_long_physical_races_reshuffle_and_undo():
    refills = 0
    for seed in range(1, 4):
        refills += _long_game(4, {"mode": "physical"}, seed)
        refills += _long_game(2, {"mode": "physical", "start": "side_by_side"}, seed)
    assert refills >= 6, refills
