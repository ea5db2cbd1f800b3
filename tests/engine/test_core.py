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
