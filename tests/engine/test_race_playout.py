# The Turtle Race's own playout loop (Race.playout(), dealt mode) against
# the generic one (Game.playout(): legal_actions() and rng.choice(), chance
# by rng.weighted(), every action pushed): over many seeds, from the start
# and from games under way, the same actions, history bytes, state hash,
# result and PRNG state; and stopped at its limit, the same game so far.
# Runs under pytest and MicroPython (mprun.py).
from turtles import new_game
from turtles.bots import random_action
from turtles.game import Game
from turtles.race import DISCARD
from turtles.rng import Rng

from check import raises

# (players, options, geometry, seeds)
CASES = [
    (5, {}, None, 150),
    (2, {}, None, 40),
    (3, {}, None, 40),
    (4, {"open_colours": 1}, None, 30),
    (3, {"start": "side_by_side"}, None, 30),
    (2, {}, {"fields": 30}, 15),  # reshuffles, several
    (5, {"start": "side_by_side", "open_colours": 1}, {"fields": 3}, 30),
]

# Seeds whose random race has a hand of no playable card (a discard).
DISCARDS = [(2, 238), (3, 257), (4, 672)]


def _same(a, b, rng_a, rng_b, where):
    assert a.state_hash() == b.state_hash(), where
    assert a.state_key() == b.state_key(), where
    assert bytes(a.history.buf) == bytes(b.history.buf), where
    assert a.history.objects == b.history.objects, where
    assert len(a.history) == len(b.history), where
    assert (rng_a.hi, rng_a.lo) == (rng_b.hi, rng_b.lo), where


def _both(players, options, geometry, seed, before):
    # Two equal games, `before` random actions in (0: from the start).
    games = []
    for _ in range(2):
        g = new_game("race", players, options, geometry)
        rng = Rng(seed)
        while len(g.history) < before and not g.is_over():
            g.push(random_action(g, rng))
        games.append((g, rng))
    return games


def _check(players, options, geometry, seed, before):
    (a, rng_a), (b, rng_b) = _both(players, options, geometry, seed, before)
    n = a.playout(rng_a)
    m = Game.playout(b, rng_b)
    where = (players, options, geometry, seed, before)
    assert n == m, where
    assert a.is_over(), where
    assert a.result() == b.result(), where
    _same(a, b, rng_a, rng_b, where)
    return a


def test_race_playout_is_the_generic_playout_over_many_seeds():
    for players, options, geometry, seeds in CASES:
        for seed in range(1, seeds + 1):
            # from the start, in the set-up, in the deal, and in the race
            # (after a play, its draw still owed, or a turn's start)
            before = (0, 3, 17, 40, 47, 52)[seed % 6]
            _check(players, options, geometry, seed, before)


def test_race_playout_discards_as_the_generic_one():
    for players, seed in DISCARDS:
        g = _check(players, {}, None, seed, 0)
        assert DISCARD in list(g.history), (players, seed)


class FirstRng(Rng):
    # Another kind of rng: always the first choice (a race still ends).
    def below(self, n):
        Rng.below(self, n)
        return 0


def test_race_playout_draws_from_another_kind_of_rng_through_it():
    # Race.playout() writes out Rng.below(); any other rng is asked itself.
    a = new_game("race", 5)
    b = new_game("race", 5)
    rng_a = FirstRng(5)
    rng_b = FirstRng(5)
    assert a.playout(rng_a) == Game.playout(b, rng_b)
    _same(a, b, rng_a, rng_b, "FirstRng")
    c = new_game("race", 5)
    c.playout(Rng(5))
    assert c.state_key() != a.state_key()


def test_race_playout_stopped_at_its_limit_leaves_the_game_so_far():
    # The limit is checked before each action: stopped, the game is the one
    # the generic loop leaves, and it plays on from there alike.
    for limit in (0, 4, 10, 23, 35, 36, 61, 62):
        (a, rng_a), (b, rng_b) = _both(5, {}, None, limit + 1, 0)
        e = raises(RuntimeError, a.playout, rng_a, limit)
        assert "did not end within %d actions" % limit in str(e), str(e)
        raises(RuntimeError, Game.playout, b, rng_b, limit)
        _same(a, b, rng_a, rng_b, limit)
        assert a.playout(rng_a) == Game.playout(b, rng_b), limit
        _same(a, b, rng_a, rng_b, limit)


def test_race_playout_after_an_entry_held_writes_it_first():
    # A move answered at once (push_held()) is packed into the history
    # before the playout's entries, as History.add() does.
    for before in (1, 12, 40):
        (a, rng_a), (b, rng_b) = _both(5, {}, None, before, before - 1)
        for g, rng in ((a, rng_a), (b, rng_b)):
            g.push_held(random_action(g, rng))
        assert a.playout(rng_a) == Game.playout(b, rng_b), before
        _same(a, b, rng_a, rng_b, before)


def test_race_random_play_plays_what_the_generic_one_plays():
    # Monte Carlo's playouts (Game.random_play(): not recorded) by the
    # playout's loop: the same actions, stopped at the same limit.
    for players, seed in [(5, 1), (5, 2), (3, 9)] + DISCARDS:
        for limit in (0, 7, 36, 100000):
            (a, rng_a), (b, rng_b) = _both(players, {}, None, seed, 20)
            n = a.random_play(rng_a, limit)
            assert n == Game.random_play(b, rng_b, limit), (players, seed, limit)
            assert n == limit or a.is_over(), (players, seed, limit)
            assert a.state_key() == b.state_key(), (players, seed, limit)
            assert (rng_a.hi, rng_a.lo) == (rng_b.hi, rng_b.lo), (players, seed, limit)


def test_race_playout_ending_on_its_limit_has_ended():
    # A race whose last action is the limit's last ended: no error, as in
    # the generic loop (the end is checked before the limit).
    for seed in range(1, 21):
        (a, rng_a), (b, rng_b) = _both(5, {}, None, seed, 0)
        n = Game.playout(b, rng_b)
        assert a.playout(rng_a, n) == n, seed
        _same(a, b, rng_a, rng_b, seed)
        (a, rng_a), (b, rng_b) = _both(5, {}, None, seed, 0)
        assert a.random_play(rng_a, n) == n and a.is_over(), seed
        raises(RuntimeError, b.playout, rng_b, n - 1)
