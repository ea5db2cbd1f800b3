# The common engine pieces: PRNG, deterministic JSON, options, records.
from turtles import BadSetup, new_game
from turtles.game import fnv1a32
from turtles.jsontext import dumps
from turtles.record import parse_options
from turtles.rng import Rng

from check import raises


def test_rng_is_fixed():
    # The same numbers on every interpreter: these are the first outputs for seed 1.
    r = Rng(1)
    assert [r.next32() for _ in range(3)] == [270369, 67634689, 2647435461]


def test_rng_below_in_range_and_covers():
    r = Rng(7)
    seen = [0] * 6
    for _ in range(600):
        seen[r.below(6)] += 1
    assert all(40 < s < 160 for s in seen), seen


def test_rng_shuffle_is_permutation():
    r = Rng(3)
    items = list(range(20))
    r.shuffle(items)
    assert sorted(items) == list(range(20))
    assert items != list(range(20))


def test_dumps_sorted_and_escaped():
    assert dumps({"b": [1, True, None], "a": "x\"y\n"}) == '{"a":"x\\"y\\u000a","b":[1,true,null]}'


def test_fnv_known_value():
    assert fnv1a32("") == 0x811C9DC5
    assert fnv1a32("a") == 0xE40C292C


def test_unknown_game():
    e = raises(BadSetup, new_game, "chess", 2)
    assert "unknown game" in str(e) and "mahe" in str(e)


def test_parse_options():
    assert parse_options("a=1,b=x") == {"a": 1, "b": "x"}
    assert parse_options("") == {}
    raises(BadSetup, parse_options, "a")


def test_history_packs_and_gives_back_every_entry():
    from turtles.game import History

    shared = [1, 2]
    entries = [
        (3, 5), (31, -32), (0, 0), (32, 1), (-1, -33), (2 ** 40, -(2 ** 35)),
        ((1, 2, 3), None), ((4, (5, -6)), (7,)), (5, shared), (6, True), (7, "x"),
        ((), 0), (tuple(range(200)), 9), (1, 2),
    ]
    h = History()
    for a, t in entries:
        h.add(a, t)
    actions = [a for a, _ in entries]
    assert len(h) == len(entries)
    assert list(h) == actions and h == actions
    assert h[0] == 3 and h[-1] == 1 and h[7] == (4, (5, -6)) and h[12] == tuple(range(200))
    assert h[2:5] == actions[2:5]
    raises(IndexError, h.__getitem__, len(entries))
    for a, t in reversed(entries):
        got = h.take_last()
        assert got == (a, t), (got, a, t)
        if t is shared:
            assert got[1] is shared
    assert len(h) == 0 and list(h) == [] and len(h.buf) == 0 and h.objects == []
