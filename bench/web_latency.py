"""Sensor-to-page latency of the table's web page, with 20 pages open: from a
turtle put down in the virtual board's world (its adc file rewritten) to each
page's WebSocket having received the state with the new move.

    python bench/web_latency.py [--moves 200] [--pages 20]

As bench/latency.py: Tortuga, a1-a2 then the takeback, over and over; the
host's own latency (sensor change -> the replica applied the action) is
measured in the same run, so the page's share is the difference. The pages
are 20 WebSocket clients in a process of their own (as browsers are), each
noting when a state with a new action count arrives (time.perf_counter: the
same monotonic clock in both processes). A first phase with no page open
gives the host latency without the web page, to see that the board's link
is no slower with 20 pages. Results: bench/results/web_latency.json.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import platform
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

HERE = Path(__file__).parent
ROOT = HERE.parent


def pct(values, p):
    s = sorted(values)
    return s[min(len(s) - 1, int(round(p / 100 * (len(s) - 1))))]


def summary(values):
    if not values:
        return None
    return {"median_ms": round(statistics.median(values), 2), "p99_ms": round(pct(values, 99), 2),
            "max_ms": round(max(values), 2), "n": len(values)}


# ---- the pages (a child process) ---------------------------------------------------


async def pages(url: str, count: int) -> None:
    import websockets

    async def one(i):
        last = None
        async with websockets.connect(url, max_size=2 ** 22) as ws:
            async for text in ws:
                t = time.perf_counter()
                msg = json.loads(text)
                if msg.get("t") != "state" or not msg.get("game"):
                    continue
                n = msg["game"]["n"]
                if n != last:
                    last = n
                    print("%d %d %.6f" % (i, n, t), flush=True)

    await asyncio.gather(*(one(i) for i in range(count)))


# ---- the board and the server ---------------------------------------------------------


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--moves", type=int, default=200, help="sensed changes per phase (default 200)")
    ap.add_argument("--pages", type=int, default=20, help="pages open (default 20)")
    ap.add_argument("--pages-at", help=argparse.SUPPRESS)  # the child process: the pages of this URL
    ap.add_argument("--out", default=str(HERE / "results" / "web_latency.json"))
    args = ap.parse_args(argv)
    if args.pages_at:
        asyncio.run(pages(args.pages_at, args.pages))
        return 0

    import turtleboard  # noqa: F401  (puts the device packages on the path)
    from controller.board import load_board
    from turtleboard.connection.replica import Mirror
    from turtleboard.sim.device import Background, prepare
    from turtleboard.sim.world import World
    from turtleboard.web.server import WebServer
    from turtles import new_game

    path = ROOT / "boards" / "tortuga.json"
    obj = json.loads(path.read_text())
    tmp = Path(tempfile.mkdtemp(prefix="tb-web-latency-"))
    board = load_board(path.read_text())
    world = World(board, str(tmp / "sim" / "world"))
    start = new_game("tortuga", 2, None, obj["geometry"])
    for cell, state in zip(start.cells(), start.image()):
        if state:
            world.take(up=True)
            world.place(cell)
    prepare(str(tmp / "sim"), str(path))
    with Background(str(tmp / "sim"), str(path)) as dev:
        mirror = Mirror(dev.path, obj["geometry"])
        mirror.start(timeout=10)
        mirror.link.command("new", {"game": "tortuga", "players": 2, "options": {},
                                    "dice": "electronic"}, timeout=5)
        mirror.wait_synced(10)

        # the reader: polls the board as `play` does, notes when the replica changed
        applied: dict = {}
        stop = threading.Event()

        def seen(_events):
            g = mirror.replica.game
            if g is not None and mirror.replica.in_sync:
                applied.setdefault(len(g.history), time.perf_counter())

        mirror.watchers.append(seen)

        def read():
            while not stop.is_set():
                mirror.poll(0.002)

        reader = threading.Thread(target=read, daemon=True)
        reader.start()

        def run_moves(moves, on_page=None):
            host, page, over = [], [], []
            misses = 0
            for i in range(moves):
                go = i % 2 == 0
                src, dst = ("a1", "a2") if go else ("a2", "a1")
                want = 1 if go else 0
                applied.pop(want, None)
                world.lift(src)
                world.place(dst)
                t0 = time.perf_counter()
                end = t0 + 3
                while want not in applied and time.perf_counter() < end:
                    time.sleep(0.0005)
                if want not in applied:
                    misses += 1
                    continue
                host.append((applied[want] - t0) * 1000)
                if on_page is not None:
                    times = on_page(want, end)
                    if len(times) < args.pages:
                        misses += 1
                        continue
                    page.extend((t - t0) * 1000 for t in times)
                    over.extend((t - applied[want]) * 1000 for t in times)
                time.sleep(0.02)  # the board settles before the next move
            return host, page, over, misses

        # phase 1: no page open
        host_alone, _, _, miss1 = run_moves(args.moves)

        # phase 2: the web page and its pages
        web = WebServer(mirror, obj, port=0)
        web.start()
        child = subprocess.Popen([sys.executable, __file__, "--pages", str(args.pages),
                                  "--pages-at", web.url().replace("http://", "ws://") + "ws"],
                                 stdout=subprocess.PIPE, text=True)
        got: dict = {}
        lock = threading.Lock()

        def listen():
            for line in child.stdout:
                i, n, t = line.split()
                with lock:
                    got.setdefault(int(n), {})[int(i)] = float(t)

        threading.Thread(target=listen, daemon=True).start()
        end = time.perf_counter() + 20
        while time.perf_counter() < end and len(got.get(0, {})) < args.pages:
            time.sleep(0.01)  # every page has its first state

        def on_page(want, end):
            with lock:
                got.pop(want, None)
            while time.perf_counter() < end:
                with lock:
                    times = list(got.get(want, {}).values())
                if len(times) >= args.pages:
                    return times
                time.sleep(0.0005)
            return times

        host_web, page, over, miss2 = run_moves(args.moves, on_page)
        stop.set()
        reader.join(2)
        child.kill()
        sent, dropped = web.hub.sent, web.hub.dropped
        web.stop()
        mirror.close()

    result = {
        "what": "adc file rewritten (turtle put down) -> each of the open pages received the state "
                "with the move (WebSocket, a process of its own)",
        "game": "tortuga: a1-a2 step then the takeback, repeated",
        "pages": args.pages,
        "stable_ms": obj["sensing"]["stable_ms"],
        "sensor_to_page": summary(page),
        "page_over_host": summary(over),
        "host_with_pages": summary(host_web),
        "host_without_pages": summary(host_alone),
        "missed": miss1 + miss2,
        "states_sent": sent,
        "pages_dropped": dropped,
        "target": "page_over_host p99 <= 50 ms; host_with_pages no slower than host_without_pages",
        "machine": {"python": platform.python_version(), "cpu": platform.machine()},
    }
    out = Path(args.out)
    results = json.loads(out.read_text()) if out.exists() else {}
    results["tortuga_%d_pages" % args.pages] = result
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps(results, indent=1, sort_keys=True) + "\n")
    print(json.dumps(result, indent=1, sort_keys=True))
    print("written to %s" % out)
    return 0 if page else 1


if __name__ == "__main__":
    raise SystemExit(main())
