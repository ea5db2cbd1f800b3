"""The long runs of the robustness fuzzers, with their figures.

    python bench/fuzz.py [--host-lines 1000000] [--device-lines 30000]
                         [--kills 60] [--games 20] [--quick]

- host: seeded lines into the host's frame parser, link and replica
  (tests/host/test_host_fuzz.py), under CPython;
- device: seeded lines into the device's frame reader and command dispatcher
  (tests/firmware/test_ctl_fuzz.py), under CPython and the MicroPython unix port;
- log: every truncation and all 255 byte flips at every byte of a real game
  log (tests/firmware/test_ctl_log_fuzz.py) under CPython, three flips a byte
  under MicroPython;
- kills: kill -9 of a MicroPython game-log writer at random moments
  (tests/firmware/test_hw_gamelog_kill.py);
- noise: whole games on noisy, bouncing reference boards in simulated time
  (tests/firmware/noisy_table.py): actions, wrong commits, stalls, prompts
  cancelled and moves taken back by noise, per rule set and noise level.

Every run must pass; the figures go to bench/results/fuzz.json.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "tests" / "firmware")]

import turtleboard  # noqa: E402,F401  (puts the device packages on the path)
from turtleboard.sim.mpy import FIRMWARE, run_micropython  # noqa: E402


def pytest(args, env):
    start = time.monotonic()
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *args],
                          cwd=ROOT, env=dict(os.environ, **env), capture_output=True, text=True)
    if proc.returncode:
        sys.exit("FAILED: pytest %s\n%s" % (" ".join(args), proc.stdout[-3000:]))
    return round(time.monotonic() - start, 1)


def micropython(module, env):
    start = time.monotonic()
    old = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    try:
        proc = run_micropython([str(ROOT / "tests" / "engine" / "mprun.py"), module],
                               [FIRMWARE, ROOT / "tests" / "firmware"], timeout=7200, cwd=ROOT)
    finally:
        for k, v in old.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    if proc.returncode or " 0 failed" not in proc.stdout:
        sys.exit("FAILED under MicroPython: %s\n%s%s" % (module, proc.stdout[-3000:], proc.stderr[-2000:]))
    return round(time.monotonic() - start, 1)


def noise_games(games, actions):
    from noisy_table import Table

    out = []
    for noise in (2000, 2500, 3000):
        for bounce in (False, True):
            for game in ("tortuga", "mahe", "race"):
                row = {"game": game, "noise": noise, "bounce": bounce, "games": 0, "actions": 0,
                       "wrong": 0, "stalls": 0, "cancelled": 0, "takebacks": 0}
                for seed in range(1, games + 1):
                    table = Table(game, noise=noise, bounce=bounce, seed=seed)
                    table.play(actions)
                    r = table.report()
                    row["games"] += 1
                    for k in ("actions", "wrong", "stalls", "cancelled", "takebacks"):
                        row[k] += r[k]
                print("  noise %(noise)d bounce %(bounce)d %(game)-8s %(games)3d games %(actions)5d "
                      "actions: %(wrong)d wrong, %(stalls)d stalls, %(cancelled)d cancelled, "
                      "%(takebacks)d takebacks" % row, flush=True)
                out.append(row)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--host-lines", type=int, default=1000000)
    ap.add_argument("--device-lines", type=int, default=30000)
    ap.add_argument("--kills", type=int, default=60)
    ap.add_argument("--games", type=int, default=20, help="per rule set, noise level and bounce")
    ap.add_argument("--actions", type=int, default=60, help="per game")
    ap.add_argument("--quick", action="store_true", help="a short run of everything")
    ap.add_argument("--noise-only", action="store_true",
                    help="play the noisy games again only (the other figures are kept)")
    a = ap.parse_args()
    out = ROOT / "bench" / "results" / ("fuzz-quick.json" if a.quick else "fuzz.json")
    if a.noise_only:
        res = json.loads(out.read_text()) if out.exists() else {}
        return finish(res, a, out)
    if a.quick:
        a.host_lines, a.device_lines, a.kills, a.games = 50000, 3000, 10, 2
    res = {"host_lines": a.host_lines, "device_lines_cpython": a.device_lines,
           "device_lines_micropython": a.device_lines // 10}
    print("host: %d lines into the parser, link and replica" % a.host_lines, flush=True)
    res["host_s"] = pytest(["tests/host/test_host_fuzz.py"], {"TB_FUZZ_LINES": str(a.host_lines)})
    print("device: %d lines (CPython), %d (MicroPython)" % (a.device_lines, a.device_lines // 10),
          flush=True)
    res["device_cpython_s"] = pytest(["tests/firmware/test_ctl_fuzz.py"],
                                     {"TB_FUZZ_LINES": str(a.device_lines)})
    res["device_micropython_s"] = micropython("test_ctl_fuzz", {"TB_FUZZ_LINES": str(a.device_lines // 10)})
    print("log: every truncation and all 255 flips of every byte", flush=True)
    res["log_cpython_s"] = pytest(["tests/firmware/test_ctl_log_fuzz.py"], {"TB_LOG_FLIPS": "all"})
    # (three flips a byte under MicroPython: all 255 take it an hour)
    res["log_micropython_s"] = micropython("test_ctl_log_fuzz", {"TB_LOG_FLIPS": "three"})
    print("kills: %d of an appending and %d of a game-starting writer" % (a.kills, a.kills), flush=True)
    res["kills"] = 2 * a.kills
    res["kills_s"] = pytest(["tests/firmware/test_hw_gamelog_kill.py"], {"TB_KILLS": str(a.kills)})
    finish(res, a, out)


def finish(res, a, out):
    print("noise: %d games per row, up to %d actions each" % (a.games, a.actions), flush=True)
    res["noise"] = noise_games(a.games, a.actions)
    res["noise_wrong_commits"] = sum(r["wrong"] for r in res["noise"])
    res["noise_games"] = sum(r["games"] for r in res["noise"])
    out.write_text(json.dumps(res, indent=1) + "\n")
    print("all passed; figures in %s" % out.relative_to(ROOT))


if __name__ == "__main__":
    main()
