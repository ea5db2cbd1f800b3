"""Run a command several times in a row while busy loops load every core.

    python tools/under_load.py --load 4 --runs 10 -- make test
    python tools/under_load.py --load 4 --runs 10 -- .venv/bin/python -m pytest -q tests/e2e/test_demo.py

`--load 4` starts 4 busy loops per core (so on 2 cores, 8 loops: the command
gets about a fifth of the machine). Each run's exit code and wall time are
printed, with the tail of a failing run's output (all of it with --keep); the summary line counts the
failures. The exit code is the number of failed runs (0: all passed).
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import subprocess
import sys
import time


def spin() -> None:
    while True:
        pass


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--load", type=float, default=4.0, help="busy loops per core (default 4)")
    p.add_argument("--runs", type=int, default=10, help="runs in a row (default 10)")
    p.add_argument("--keep", metavar="DIR", help="write each failing run's whole output to DIR/run-N.txt")
    p.add_argument("command", nargs=argparse.REMAINDER, help="-- COMMAND ...")
    args = p.parse_args()
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        p.error("give the command after --")
    loops = [multiprocessing.Process(target=spin, daemon=True)
             for _ in range(round(args.load * (os.cpu_count() or 1)))]
    for loop in loops:
        loop.start()
    failed = 0
    try:
        for run in range(1, args.runs + 1):
            start = time.monotonic()
            proc = subprocess.run(command, capture_output=True, text=True)
            took = time.monotonic() - start
            print("run %d: rc %d in %.0f s" % (run, proc.returncode, took), flush=True)
            if proc.returncode != 0:
                failed += 1
                print((proc.stdout + proc.stderr)[-3000:], flush=True)
                if args.keep:
                    os.makedirs(args.keep, exist_ok=True)
                    with open(os.path.join(args.keep, "run-%d.txt" % run), "w") as f:
                        f.write(proc.stdout + proc.stderr)
    finally:
        for loop in loops:
            loop.terminate()
    print("%d of %d runs failed under %d busy loops" % (failed, args.runs, len(loops)), flush=True)
    return failed


if __name__ == "__main__":
    sys.exit(main())
