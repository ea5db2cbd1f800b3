"""Two workloads timed side by side in one process: ours and a peer, in
alternating rounds (CPU time of the process), so both see the same moments of
a busy machine. The peer for the engines is the engine as it was before the
speed work, kept unchanged in git and unpacked as turtles_ref by peer_dir().
PyPI has no Python implementation of these games to compare with: its package
list of 2026-11-28 was searched for the games' names (turtle race, course des
tortues, Mahé, Tortuga, rushing turtles, camel up) and their designers'; it
finds turtle-graphics packages and two Camel Up tools (another game), none of
these games. The Race's one public Python peer, rushing-turtles-backend, is on GitHub
only (docs/engine-speed.md, "How it is measured").

    import sidebyside
    sidebyside.paired(lambda: ours(), lambda: peer(), rounds=7)
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
FIRMWARE = HERE.parent / "firmware"
PEER_COMMIT = "44112bf"  # the peer: the firmware's turtles/ as of this commit
PEER_DIR = HERE / ".peer"  # where it is unpacked as the package turtles_ref (not committed)


def peer_dir() -> Path:
    """The engine before the speed work, unpacked from git as turtles_ref
    (its imports are relative, so the package runs under another name)."""
    import io
    import shutil
    import subprocess
    import tarfile

    target = PEER_DIR / "turtles_ref"
    if not (target / "__init__.py").exists():
        tar = subprocess.run(["git", "-C", str(HERE.parent), "archive", PEER_COMMIT,
                              "src/turtleboard/firmware/turtles"],
                             capture_output=True, check=True).stdout
        shutil.rmtree(PEER_DIR, ignore_errors=True)
        tarfile.open(fileobj=io.BytesIO(tar)).extractall(PEER_DIR)
        (PEER_DIR / "src/turtleboard/firmware/turtles").rename(target)
        shutil.rmtree(PEER_DIR / "src")
    return PEER_DIR


def importable() -> None:
    # turtles (ours, the firmware's) and turtles_ref (the peer) side by side.
    for path in (str(FIRMWARE), str(HERE), str(peer_dir())):
        if path not in sys.path:
            sys.path.insert(0, path)


def paired(ours, peer, rounds: int = 7) -> dict:
    """ours() and peer() each return a work count that must agree (actions
    played, lists made): the same work. -> median seconds of each and the
    median, min and max of the per-round ratios peer/ours (speed-up)."""
    t_ours, t_peer, ratios = [], [], []
    for _ in range(rounds):
        t = time.process_time()
        a = ours()
        mid = time.process_time()
        b = peer()
        end = time.process_time()
        if a != b:
            raise RuntimeError(f"ours and the peer did different work: {a} vs {b}")
        t_ours.append(mid - t)
        t_peer.append(end - mid)
        ratios.append((end - mid) / (mid - t))
    return {
        "ours_s": statistics.median(t_ours),
        "peer_s": statistics.median(t_peer),
        "speedup_median": round(statistics.median(ratios), 2),
        "speedup_min": round(min(ratios), 2),
        "speedup_max": round(max(ratios), 2),
        "rounds": rounds,
    }


def playouts_versus_peer(game: str, players: int, n: int) -> dict:
    """Seeded random games (seeds 1..n, the same actions on both sides)
    through our Game.playout() (what a search calls) and our
    bots.play_random(), each against the peer's play_random()."""
    importable()
    import turtles_ref
    from turtles_ref.bots import play_random as peer_play_random

    import turtles
    from turtles.bots import play_random
    from turtles.rng import Rng

    def ours_playout():
        return sum(turtles.new_game(game, players).playout(Rng(s)) for s in range(1, n + 1))

    def ours_play_random():
        return sum(play_random(turtles.new_game(game, players), Rng(s)) for s in range(1, n + 1))

    def peer():
        return sum(peer_play_random(turtles_ref.new_game(game, players), Rng(s))
                   for s in range(1, n + 1))

    out = {"peer": "the engine before the speed work, bench/.peer/turtles_ref (firmware at %s); "
                   "PyPI has no Python implementation of the game (its package list of "
                   "2026-11-28 searched: bench/sidebyside.py)" % PEER_COMMIT,
           "players": players, "playouts_per_round": n}
    for label, ours in (("playout", ours_playout), ("play_random", ours_play_random)):
        r = paired(ours, peer)
        out[label] = {
            "ms_per_playout": round(r["ours_s"] * 1000 / n, 4),
            "peer_ms_per_playout": round(r["peer_s"] * 1000 / n, 4),
            "speedup_median": r["speedup_median"],
            "speedup_range": [r["speedup_min"], r["speedup_max"]],
            "rounds": r["rounds"],
        }
    return out


# The same comparison under the MicroPython unix port (the device's VM): the
# best of three rounds of wall-clock time (time.ticks_us) on each side.
MICROPYTHON_CODE = """
import json, time
import turtles, turtles_ref
from turtles.rng import Rng
from turtles_ref.bots import play_random

def rounds(game, players, n):
    best = [0, 0]
    for _ in range(3):
        t = time.ticks_us()
        a = 0
        for s in range(1, n + 1):
            a += turtles.new_game(game, players).playout(Rng(s))
        mid = time.ticks_us()
        b = 0
        for s in range(1, n + 1):
            b += play_random(turtles_ref.new_game(game, players), Rng(s))
        end = time.ticks_us()
        if a != b:
            raise RuntimeError("ours and the peer did different work")
        us = (time.ticks_diff(mid, t), time.ticks_diff(end, mid))
        best = [us[i] if not best[i] or us[i] < best[i] else best[i] for i in range(2)]
    return best

print(json.dumps(rounds(GAME, PLAYERS, N)))
"""


def micropython_versus_peer(game: str, players: int, n: int) -> dict:
    """Game.playout() against the peer's play_random() under the unix port."""
    import json

    from turtleboard.sim.mpy import run_micropython

    code = "GAME = %r\nPLAYERS = %d\nN = %d\n" % (game, players, n) + MICROPYTHON_CODE
    proc = run_micropython(["-c", code], [FIRMWARE, HERE, peer_dir()], timeout=900)
    if proc.returncode != 0:
        return {"error": (proc.stdout + proc.stderr)[-2000:]}
    ours, peer = json.loads(proc.stdout.strip().splitlines()[-1])
    return {
        "interpreter": "micropython unix port, best of 3 rounds (wall clock)",
        "playout_ms": round(ours / 1000 / n, 3),
        "peer_ms": round(peer / 1000 / n, 3),
        "speedup": round(peer / ours, 2),
    }
