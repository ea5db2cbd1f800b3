"""Sensor-to-mirror latency over the pty: from a turtle put down in the virtual
board's world (its adc file rewritten) to the host replica having applied the
action the firmware reports.

    python bench/latency.py [--moves 500] [--stable-ms N] [--board tortuga]

The sequence: Tortuga, south steps a turtle forward (an action), then puts it
back (a return to the earlier position: the board reports a takeback, `undone`,
which the replica applies too), over and over. Tortuga steps never go
backwards, so the takeback is what makes hundreds of sensed changes possible
on one game; both halves are sensed changes and both are measured.

The firmware waits for a stable reading (the board file's sensing.stable_ms)
before it commits; that window is part of the latency, so it is reported, and
`--stable-ms` runs the same board with another window. The reference measured
in the same process is a host `ping` answered by `ok` over the same pty (the
round trip without sensing). Results: bench/results/latency.json.
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).parent
ROOT = HERE.parent


def pct(values, p):
    s = sorted(values)
    return s[min(len(s) - 1, int(round(p / 100 * (len(s) - 1))))]


def wait_until(mirror, cond, timeout):
    end = time.perf_counter() + timeout
    while time.perf_counter() < end:
        mirror.poll(0.002)
        if cond():
            return time.perf_counter()
    return None


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--moves", type=int, default=500, help="sensed changes to time (default 500)")
    ap.add_argument("--stable-ms", type=int, help="override the board's stability window (ms)")
    ap.add_argument("--board", default=str(ROOT / "boards" / "tortuga.json"))
    ap.add_argument("--out", default=str(HERE / "results" / "latency.json"))
    args = ap.parse_args(argv)

    import turtleboard  # noqa: F401  (puts the device packages on the path)
    from controller.board import load_board
    from turtleboard.connection.replica import Mirror
    from turtleboard.sim.device import Background, prepare
    from turtleboard.sim.world import World
    from turtles import new_game

    obj = json.loads(Path(args.board).read_text())
    if args.stable_ms is not None:
        obj["sensing"]["stable_ms"] = args.stable_ms
    stable_ms = obj["sensing"]["stable_ms"]
    tmp = Path(tempfile.mkdtemp(prefix="tb-latency-"))
    board_path = tmp / "board.json"
    board_path.write_text(json.dumps(obj))
    board = load_board(board_path.read_text())

    world = World(board, str(tmp / "sim" / "world"))
    start = new_game("tortuga", 2, None, obj["geometry"])
    cells = start.cells()
    for cell, state in zip(cells, start.image()):
        if state:
            world.take(up=True)
            world.place(cell)

    prepare(str(tmp / "sim"), str(board_path))
    with Background(str(tmp / "sim"), str(board_path)) as dev:
        mirror = Mirror(dev.path, obj["geometry"])
        mirror.start(timeout=10)
        mirror.wait_synced(10)
        mirror.send("new", {"game": "tortuga", "players": 2, "options": {}, "dice": "electronic"})
        wait_until(mirror, lambda: mirror.replica.game is not None and mirror.replica.in_sync
                   and len(mirror.replica.game.history) == 0, 10)
        time.sleep(0.3)
        mirror.poll(0.05)

        # the reference: a ping's round trip on the same pty
        pings = []
        for _ in range(100):
            t0 = time.perf_counter()
            seq = mirror.link.send("ping")
            mirror.link.wait_for("ok", 2, lambda f, s=seq: f.payload.get("re") == s)
            pings.append((time.perf_counter() - t0) * 1000)

        step_from, step_to = "a1", "a2"
        forward, back = [], []
        misses = 0
        for i in range(args.moves):
            go = i % 2 == 0
            src, dst = (step_from, step_to) if go else (step_to, step_from)
            n_before = len(mirror.replica.game.history)
            want = n_before + 1 if go else n_before - 1
            world.lift(src)
            world.place(dst)  # the sensor change: the adc file is rewritten now
            t0 = time.perf_counter()
            t1 = wait_until(
                mirror,
                lambda w=want: mirror.replica.in_sync and len(mirror.replica.game.history) == w,
                2.0 + stable_ms / 1000,
            )
            if t1 is None:
                misses += 1
                print(f"move {i}: no {'action' if go else 'takeback'} seen; "
                      f"board status {mirror.status}", file=sys.stderr)
                if misses > 5:
                    break
                continue
            (forward if go else back).append((t1 - t0) * 1000)
        mirror.close()

    both = forward + back
    result = {
        "what": "adc file rewritten (turtle put down) -> host replica applied the reported action",
        "game": "tortuga: a1-a2 step then the takeback, repeated",
        "moves": len(both),
        "missed": misses,
        "stable_ms": stable_ms,
        "median_ms": round(statistics.median(both), 2) if both else None,
        "p99_ms": round(pct(both, 99), 2) if both else None,
        "max_ms": round(max(both), 2) if both else None,
        "forward_median_ms": round(statistics.median(forward), 2) if forward else None,
        "takeback_median_ms": round(statistics.median(back), 2) if back else None,
        "reference_ping_median_ms": round(statistics.median(pings), 3),
        "reference_ping_p99_ms": round(pct(pings, 99), 3),
        "median_over_stable_window_ms": round(statistics.median(both) - stable_ms, 2) if both else None,
        "target_p99_ms": 30,
        "machine": {"python": platform.python_version(), "cpu": platform.machine()},
    }
    out = Path(args.out)
    results = json.loads(out.read_text()) if out.exists() else {}
    results[f"tortuga_stable_{stable_ms}ms"] = result
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps(results, indent=1, sort_keys=True) + "\n")
    print(json.dumps(result, indent=1, sort_keys=True))
    print(f"written to {out}")
    return 0 if both else 1


if __name__ == "__main__":
    raise SystemExit(main())
