"""Engine work counted in CPU instructions (valgrind's callgrind), ours against
the engine before the speed work (the engine before the speed work (git, unpacked by bench/sidebyside.py peer_dir())): where wall-clock and
CPU time are too noisy on a busy machine, instruction counts are not.

Each workload runs in a fresh CPython under callgrind twice, with 1 and with
n + 1 repetitions; the difference over n is the count of one repetition (the
interpreter's start and the imports cancel out).

    python bench/engine_instructions.py   -> bench/results/engine_instructions.json
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import sidebyside  # noqa: E402

# argv: side (ours|peer), workload, repetitions. A workload repeated is:
#   race / mahe: one seeded random game (seeds 1, 2, ...) through playout()
#   (ours) or play_random() (the peer's);  hatching: one cold legal-action
#   list of each position of 20 seeded Hatching Day games.
DRIVER = """
import sys
sys.path[:0] = [%(firmware)r, %(bench)r, %(peer)r]
side, work, reps = sys.argv[1], sys.argv[2], int(sys.argv[3])
from turtles.rng import Rng
if side == "ours":
    import turtles as engine
    from turtles.tortuga import Tortuga
else:
    import turtles_ref as engine
    from turtles_ref.tortuga import Tortuga
    from turtles_ref.bots import play_random
if work in ("race", "mahe"):
    players = 5 if work == "race" else 4
    for s in range(1, reps + 1):
        g = engine.new_game(work, players)
        g.playout(Rng(s)) if side == "ours" else play_random(g, Rng(s))
else:
    import turtles
    from turtles.bots import random_action
    rng = Rng(3)
    texts = []
    for _ in range(20):
        g = turtles.new_game("tortuga", 2, {"hatching": 1})
        while not g.is_over():
            if g.phase == 1:
                texts.append(g.position_text())
            g.push(random_action(g, rng))
    games = [Tortuga.from_position(t, {"hatching": 1}) for t in texts]
    print(len(games))
    for _ in range(reps):
        for g in games:
            g._kept_placements = [None, None]  # the cold path
            g._generate()
"""

WORKLOADS = [("race", 30), ("mahe", 6), ("hatching", 3)]


def instructions(driver: Path, side: str, work: str, reps: int) -> int:
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "callgrind.out"
        subprocess.run(
            ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}",
             sys.executable, str(driver), side, work, str(reps)],
            check=True, capture_output=True, text=True,
            env=dict(os.environ, PYTHONHASHSEED="0"),  # str hashes vary the count otherwise
        )
        for line in out.read_text().splitlines():
            if line.startswith(("summary:", "totals:")):
                return int(line.split()[1])
    raise RuntimeError("callgrind wrote no total")


def run() -> dict:
    if not shutil.which("valgrind"):
        return {"error": "valgrind is not installed (apt-get install valgrind)"}
    with tempfile.TemporaryDirectory() as tmp:
        driver = Path(tmp) / "driver.py"
        driver.write_text(DRIVER % {"firmware": str(sidebyside.FIRMWARE), "bench": str(HERE),
                                    "peer": str(sidebyside.peer_dir())})
        out = {"what": "CPU instructions of one repetition (callgrind), CPython %s"
                       % sys.version.split()[0],
               "peer": "the engine before the speed work, the engine before the speed work (git, unpacked by bench/sidebyside.py peer_dir()) (firmware at %s)"
                       % sidebyside.PEER_COMMIT}
        for work, n in WORKLOADS:
            counts = {}
            for side in ("ours", "peer"):
                one = instructions(driver, side, work, 1)
                many = instructions(driver, side, work, n + 1)
                counts[side] = (many - one) // n
            out[work] = {
                "repetition": "a random game" if work != "hatching"
                              else "cold legal-action lists of 659 positions",
                "ours": counts["ours"], "peer": counts["peer"],
                "peer_over_ours": round(counts["peer"] / counts["ours"], 2),
            }
        return out


if __name__ == "__main__":
    result = run()
    text = json.dumps(result, indent=1, sort_keys=True) + "\n"
    path = HERE / "results" / "engine_instructions.json"
    path.write_text(text)
    print(text, end="")
