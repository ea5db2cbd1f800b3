"""Sensor-to-page latency of the table's web page, with N pages open: from a
turtle put down in the virtual board's world (its adc file rewritten) to each
page's WebSocket having received the state with the new move.

    python bench/web_latency.py [--moves 200] [--pages 1,20] [--busy 2]

As bench/latency.py: Tortuga, a1-a2 then the takeback, over and over; the
host's own latency (sensor change -> the replica applied the action) is
measured in the same run, so the page's share is the difference. The pages
are WebSocket clients in processes of their own (as browsers on several
phones are; `--page-procs`, default 4), spread over the roles as a table would have them (the table's page, spectators,
each seat's): each notes when a state with a new action count arrives
(time.perf_counter: the same monotonic clock in both processes; the count is
read off the message's head, so a page's own parsing does not delay the
next page's arrival). A first phase with no page open gives the host latency
without the web page, to see that the board's link is no slower with the
pages. `--busy N` runs N busy loops (a process each) through the whole run:
a loaded machine. Results: bench/results/web_latency.json, one entry per
page count.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import re
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


GAME_N = re.compile(rb'"game":\{"name":"[a-z]+","title":"[^"]*","variant":[^,]*,"players":\d+,"n":(\d+)')


async def pages(urls: list[str]) -> None:
    import websockets

    async def one(i, url):
        last = None
        async with websockets.connect(url, max_size=2 ** 22, compression=None) as ws:
            while True:
                data = await ws.recv(decode=False)
                t = time.perf_counter()
                m = GAME_N.search(data, 0, 400)  # (the action count sits at the state's head)
                if m is None:
                    continue
                n = int(m.group(1))
                if n != last:
                    last = n
                    print("%d %d %.6f" % (i, n, t), flush=True)

    await asyncio.gather(*(one(i, u) for i, u in enumerate(urls)))


def roles(count: int, seats: int) -> list[tuple[str, int | None]]:
    """`count` pages as a table has them: the table's page, then one per
    seat, spectators, more seats' and spectators' pages in turn."""
    cycle = [("table", None)] + [("seat", s) for s in range(seats)] + [("watch", None)]
    return [cycle[i % len(cycle)] for i in range(count)]


def busy_loops(n: int) -> list:
    return [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(n)]


# ---- the board and the server ---------------------------------------------------------


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--moves", type=int, default=200, help="sensed changes per phase (default 200)")
    ap.add_argument("--pages", default="1,20", help="page counts, one phase each (default 1,20)")
    ap.add_argument("--busy", type=int, default=0, help="busy loops running meanwhile (default 0)")
    ap.add_argument("--page-procs", type=int, default=4,
                    help="processes the pages are spread over, as browsers on several phones (default 4)")
    ap.add_argument("--pages-at", nargs="*", help=argparse.SUPPRESS)  # the child process: these URLs
    ap.add_argument("--out", default=str(HERE / "results" / "web_latency.json"))
    args = ap.parse_args(argv)
    if args.pages_at:
        asyncio.run(pages(args.pages_at))
        return 0
    counts = [int(c) for c in args.pages.split(",")]

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
    loops = busy_loops(args.busy)
    results = {}
    try:
        with Background(str(tmp / "sim"), str(path)) as dev:
            mirror = Mirror(dev.path, obj["geometry"])
            mirror.start(timeout=10)
            mirror.link.command("new", {"game": "tortuga", "players": 2, "options": {},
                                        "dice": "electronic"}, timeout=5)
            mirror.wait_synced(10)

            # the reader: polls the board as `play` does, notes when the replica changed
            applied: dict = {}
            stop = threading.Event()
            news = threading.Condition()  # (the harness waits on it: no polling beside the server)

            def seen(_events):
                g = mirror.replica.game
                if g is not None and mirror.replica.in_sync:
                    t = time.perf_counter()
                    with news:
                        applied.setdefault(len(g.history), t)
                        news.notify_all()

            mirror.watchers.append(seen)

            def read():
                while not stop.is_set():
                    mirror.poll(0.002)

            reader = threading.Thread(target=read, daemon=True)
            reader.start()

            def run_moves(moves, wanted=0, on_page=None):
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
                    end = t0 + 5
                    with news:
                        news.wait_for(lambda want=want: want in applied, end - t0)
                    if want not in applied:
                        misses += 1
                        continue
                    host.append((applied[want] - t0) * 1000)
                    if on_page is not None:
                        times = on_page(want, end)
                        if len(times) < wanted:
                            misses += 1
                            continue
                        page.extend((t - t0) * 1000 for t in times)
                        over.extend((t - applied[want]) * 1000 for t in times)
                    time.sleep(0.02)  # the board settles before the next move
                return host, page, over, misses

            # phase 1: no page open
            cpu = time.process_time()
            host_alone, _, _, miss_alone = run_moves(args.moves)
            cpu_alone = (time.process_time() - cpu) * 1000 / args.moves

            # then the web page and its pages, one phase per page count
            web = WebServer(mirror, obj, port=0)
            web.start()
            for count in counts:
                urls = [web.url(role, seat).replace("http://", "ws://") + "ws"
                        for role, seat in roles(count, 2)]
                procs = min(args.page_procs, count)
                children = [subprocess.Popen([sys.executable, __file__, "--pages-at", *urls[k::procs]],
                                             stdout=subprocess.PIPE, text=True) for k in range(procs)]
                got: dict = {}

                def listen(child, k, got=got, procs=procs):
                    for line in child.stdout:
                        i, n, t = line.split()
                        with news:
                            got.setdefault(int(n), {})[int(i) * procs + k] = float(t)
                            news.notify_all()

                for k, child in enumerate(children):
                    threading.Thread(target=listen, args=(child, k), daemon=True).start()
                with news:  # every page has its first state
                    news.wait_for(lambda got=got, count=count: len(got.get(0, {})) >= count, 30)

                def on_page(want, end, got=got, count=count):
                    with news:
                        got.pop(want, None)
                        news.wait_for(lambda: len(got.get(want, {})) >= count, end - time.perf_counter())
                        return list(got.get(want, {}).values())

                sent, built, dropped = web.hub.sent, getattr(web.hub, "built", None), web.hub.dropped
                cpu = time.process_time()
                host_web, page, over, misses = run_moves(args.moves, count, on_page)
                cpu = (time.process_time() - cpu) * 1000 / args.moves
                for child in children:
                    child.kill()
                    child.wait()
                results["tortuga_%d_pages" % count] = {
                    "what": "adc file rewritten (turtle put down) -> each of the open pages received the "
                            "state with the move (WebSocket, a process of its own)",
                    "game": "tortuga: a1-a2 step then the takeback, repeated",
                    "pages": count,
                    "roles": ", ".join(r if s is None else "seat%d" % (s + 1) for r, s in roles(count, 2)),
                    "busy_loops": args.busy,
                    "page_processes": procs,
                    "stable_ms": obj["sensing"]["stable_ms"],
                    "sensor_to_page": summary(page),
                    "page_over_host": summary(over),
                    "host_with_pages": summary(host_web),
                    "host_without_pages": summary(host_alone),
                    "missed": misses + miss_alone,
                    "host_cpu_ms_per_move": {"with_pages": round(cpu, 2), "without_pages": round(cpu_alone, 2)},
                    "states_sent": web.hub.sent - sent,
                    "states_built": None if built is None else web.hub.built - built,
                    "pages_dropped": web.hub.dropped - dropped,
                    "target": "page_over_host p99 <= 50 ms; host_with_pages no slower than "
                              "host_without_pages",
                    "machine": {"python": platform.python_version(), "cpu": platform.machine(),
                                "cores": os.cpu_count(), "load_1min": round(os.getloadavg()[0], 1)},
                }
                print(json.dumps(results["tortuga_%d_pages" % count], indent=1, sort_keys=True), flush=True)
            stop.set()
            reader.join(2)
            web.stop()
            mirror.close()
    finally:
        for p in loops:
            p.kill()
            p.wait()
    out = Path(args.out)
    old = json.loads(out.read_text()) if out.exists() else {}
    old.update(results)
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps(old, indent=1, sort_keys=True) + "\n")
    print("written to %s" % out)
    return 0 if results else 1


if __name__ == "__main__":
    raise SystemExit(main())
