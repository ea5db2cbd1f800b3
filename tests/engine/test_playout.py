# Game.playout() and the games' faster playout loops: the same actions, drawn
# the same way from the PRNG, as pushing bots.random_action() until the end;
# the game afterwards is the same (history too) and undoes back to its start.
# Runs under pytest and MicroPython (mprun.py).
from turtles import new_game
from turtles.bots import random_action
from turtles.game import Game
from turtles.rng import Rng

from check import raises

CASES = [
    ("race", 5, {}, None, 12),
    ("race", 2, {}, {"fields": 30}, 6),  # reshuffles
    ("race", 3, {"start": "side_by_side", "open_colours": 1}, None, 8),
    ("race", 4, {"mode": "physical"}, None, 6),
    ("mahe", 4, {}, None, 6),
    ("mahe", 3, {"egg_dice": 1}, None, 6),
    ("tortuga", 2, {"hatching": 1}, None, 4),
    ("tortuga", 2, {"tattoo": 2}, None, 4),
]


def _stepped(name, players, options, geometry, seed, before):
    g = new_game(name, players, options, geometry)
    rng = Rng(seed)
    while len(g.history) < before and not g.is_over():
        g.push(random_action(g, rng))
    return g, rng


def test_playout_plays_what_random_action_would():
    for name, players, options, geometry, seeds in CASES:
        for seed in range(1, seeds + 1):
            before = seed % 4 * 7  # from the start, or from a game under way
            a, rng_a = _stepped(name, players, options, geometry, seed, before)
            b, rng_b = _stepped(name, players, options, geometry, seed, before)
            n = a.playout(rng_a)
            m = 0
            while not b.is_over():
                b.push(random_action(b, rng_b))
                m += 1
            where = (name, options, seed)
            assert n == m, where
            assert a.state_key() == b.state_key(), where
            # the same actions and undo tokens, byte for byte
            assert bytes(a.history.buf) == bytes(b.history.buf), where
            assert a.history.objects == b.history.objects, where
            assert a.result() == b.result(), where
            assert rng_a.next16() == rng_b.next16(), where  # as many draws
            for _ in range(n):
                a.undo()
                b.undo()
                assert a.state_key() == b.state_key(), where


def test_playout_of_a_finished_game_plays_nothing():
    g = new_game("race", 2)
    g.playout(Rng(3))
    assert g.is_over()
    assert g.playout(Rng(4)) == 0


def test_playout_stops_at_its_limit():
    for name in ("race", "mahe", "tortuga"):
        g = new_game(name, 2)
        e = raises(RuntimeError, g.playout, Rng(1), 5)
        assert "did not end within 5 actions" in str(e), str(e)


def test_generic_playout_is_the_fallback():
    # Tortuga has no loop of its own: Game.playout() plays it.
    a = new_game("tortuga", 2)
    b = new_game("tortuga", 2)
    assert Game.playout(a, Rng(9)) == b.playout(Rng(9))
    assert a.state_key() == b.state_key()
