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
    ("mahe", 4, {}, None, 12),
    ("mahe", 2, {}, None, 6),
    ("mahe", 3, {"egg_dice": 1}, None, 6),
    ("mahe", 5, {"egg_dice": 1}, None, 4),
    ("mahe", 7, {}, None, 3),
    ("tortuga", 2, {"hatching": 1}, None, 4),
    ("tortuga", 2, {"tattoo": 2}, None, 4),
]


def _stepped(name, players, options, geometry, seed, before):
    g = new_game(name, players, options, geometry)
    rng = Rng(seed)
    while len(g.history) < before and not g.is_over():
        g.push(random_action(g, rng))
    return g, rng


def _same_as_random_actions(a, rng_a, b, rng_b, where):
    # a plays out; b pushes random_action() to the end: the same game.
    n = a.playout(rng_a)
    m = 0
    while not b.is_over():
        b.push(random_action(b, rng_b))
        m += 1
    assert n == m, where
    assert a.state_key() == b.state_key(), where
    # the same actions and undo tokens, byte for byte
    assert bytes(a.history.buf) == bytes(b.history.buf), where
    assert a.history.objects == b.history.objects, where
    assert len(a.history) == len(b.history), where
    assert a.result() == b.result(), where
    assert rng_a.next16() == rng_b.next16(), where  # as many draws
    for _ in range(n):
        a.undo()
        b.undo()
        assert a.state_key() == b.state_key(), where


def test_playout_plays_what_random_action_would():
    for name, players, options, geometry, seeds in CASES:
        for seed in range(1, seeds + 1):
            before = seed % 4 * 7  # from the start, or from a game under way
            a, rng_a = _stepped(name, players, options, geometry, seed, before)
            b, rng_b = _stepped(name, players, options, geometry, seed, before)
            _same_as_random_actions(a, rng_a, b, rng_b, (name, options, seed))


def _unstep(x):
    # The xorshift32 state whose next output is x (the inverse of
    # x ^= x << 13; x ^= x >> 17; x ^= x << 5, mod 2**32).
    def unshift_left(y, k):
        v = y
        for _ in range(32 // k + 1):
            v = y ^ ((v << k) & 0xFFFFFFFF)
        return v

    def unshift_right(y, k):
        v = y
        for _ in range(32 // k + 1):
            v = y ^ (v >> k)
        return v

    return unshift_left(unshift_right(unshift_left(x, 5), 17), 13)


def test_mahe_playout_draws_a_die_again_as_below_does():
    # Mahé's loop works out below(6) on the PRNG's state; an output among
    # the top 2**32 % 6 is left out and drawn again, as Rng.below() does.
    for out in (0xFFFFFFFC, 0xFFFFFFFF):
        rngs = []
        for _ in range(2):
            r = Rng(1)
            s = _unstep(out)
            r.hi = s >> 16
            r.lo = s & 0xFFFF
            rngs.append(r)
        probe = Rng(1)
        probe.hi, probe.lo = rngs[0].hi, rngs[0].lo
        assert probe.next_halves() == (out >> 16, out & 0xFFFF)
        a = new_game("mahe", 4)
        b = new_game("mahe", 4)
        a.push(16)  # the first egg card turned up: die 1 is next
        b.push(16)
        assert a.legal_actions() == [1, 2, 3, 4, 5, 6]
        _same_as_random_actions(a, rngs[0], b, rngs[1], out)


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
