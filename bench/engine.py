"""Engine benchmarks: runs each game's bench module (bench/engine_<game>.py,
each with run() -> dict) and writes bench/results/engine_<game>.json.

    python bench/engine.py [mahe race tortuga]
"""

from __future__ import annotations

import importlib
import json
import platform
import sys
from pathlib import Path

HERE = Path(__file__).parent
GAMES = ["mahe", "race", "tortuga"]


def main(argv: list[str]) -> int:
    sys.path.insert(0, str(HERE))
    wanted = argv[1:] or GAMES
    machine = {"python": platform.python_version(), "cpu": platform.machine()}
    for game in wanted:
        try:
            module = importlib.import_module(f"engine_{game}")
        except ModuleNotFoundError:
            print(f"{game}: no bench module")
            continue
        result = dict(module.run(), machine=machine)
        out_path = HERE / "results" / f"engine_{game}.json"
        out_path.parent.mkdir(exist_ok=True)
        out_path.write_text(json.dumps(result, indent=1, sort_keys=True) + "\n")
        print(game, json.dumps(result, indent=1, sort_keys=True))
        print(f"written to {out_path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
