"""Sensor-to-page latency of the table's web page, with N pages open: from a
turtle put down in the virtual board's world (its adc file rewritten) to each
page's WebSocket having received the state with the new move.

    python bench/web_latency.py [--moves 200] [--pages 1,20] [--busy 2] [--gap 0.2]

As bench/latency.py: Tortuga, a1-a2 then the takeback, over and over; the
host's own latency (sensor change -> the replica applied the action) is
measured in the same run, so the page's share is the difference. The host
runs alone in a process of its own, as `play --web --no-tui` does (the board
read in its main thread, the web server in its thread); this harness (moving
the turtles, collecting the times) is another process, so its threads never
take the host's interpreter lock. The pages are WebSocket clients in
processes of their own (as browsers on several phones are; `--page-procs`,
default 4), spread over the roles as a table would have them (the table's
page, spectators, each seat's): each notes when a state with a new action
count arrives (time.perf_counter: the same monotonic clock in all the
processes; the count is read off the message's head). A first phase with no
page open gives the host latency without the web page, to see that the
board's link is no slower with the pages. A move comes `--gap` seconds after
the last page got the one before (after the LEDs and status that follow a
move, as a person's next move). `--busy N` runs N busy loops (a process
each) through the whole run: a loaded machine. Also reported: each move's
first page and how much later its last page got it, the host's CPU per move
(its web server's and board reader's threads apart), the pages' CPU.
Results: bench/results/web_latency.json, one entry per page count.
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


def thread_cpu(thread) -> float:
    """CPU seconds a thread of this process has used."""
    return time.clock_gettime(time.pthread_getcpuclockid(thread.ident))


def child_cpu(pid: int) -> float:
    """CPU seconds a child process has used (user and system)."""
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def busy_loops(n: int) -> list:
    return [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(n)]


# ---- the host (a child process) ----------------------------------------------------


def host(pty: str, board_path: str) -> None:
    """The host alone in its process, as `play --web --no-tui` runs it: the
    main thread reads the board (mirror.poll, as `play`), the web server in a
    thread of its own. It prints "applied N T" when the replica takes an
    action; its commands come on stdin (a thread asleep between them): "web"
    starts the web server and prints its page URLs, "mark" prints its CPU
    time and the server's counters."""
    import turtleboard  # noqa: F401  (puts the device packages on the path)
    from turtleboard.connection.replica import Mirror
    from turtleboard.web.server import WebServer

    obj = json.loads(Path(board_path).read_text())
    mirror = Mirror(pty, obj["geometry"])
    mirror.start(timeout=10)
    mirror.link.command("new", {"game": "tortuga", "players": 2, "options": {}, "dice": "electronic"}, timeout=5)
    mirror.wait_synced(10)
    out = threading.Lock()

    def say(line: str) -> None:
        with out:
            sys.stdout.write(line + "\n")
            sys.stdout.flush()

    last = [None]

    def seen(_events):
        g = mirror.replica.game
        if g is not None and mirror.replica.in_sync and len(g.history) != last[0]:
            last[0] = len(g.history)
            say("applied %d %.6f" % (last[0], time.perf_counter()))

    mirror.watchers.append(seen)
    reader = threading.current_thread()
    web = None

    def commands():
        nonlocal web
        for line in sys.stdin:
            if line.strip() == "web":
                web = WebServer(mirror, obj, port=0)
                web.start()
                say("web " + " ".join(web.url(r, s).replace("http://", "ws://") + "ws"
                                      for r, s in roles(MAX_PAGES, 2)))
            elif line.strip() == "mark":
                hub = web.hub if web is not None else None
                say("mark " + json.dumps({
                    "process": time.process_time(), "board_reader": thread_cpu(reader),
                    "web_server": thread_cpu(web.thread) if web is not None else 0.0,
                    "sent": hub.sent if hub else 0, "built": hub.built if hub else 0,
                    "dropped": hub.dropped if hub else 0}))
        os._exit(0)  # stdin closed: the bench is over

    threading.Thread(target=commands, daemon=True).start()
    say("ready")
    while True:
        mirror.poll(0.05)


MAX_PAGES = 40


class Lines:
    """The lines the children print, read in this thread (select) and handed
    to `on(name, line)`."""

    def __init__(self, on):
        import selectors

        self.on = on
        self.sel = selectors.DefaultSelector()
        self.buf = {}

    def add(self, name, proc) -> None:
        os.set_blocking(proc.stdout.fileno(), False)
        self.sel.register(proc.stdout.fileno(), 1, name)
        self.buf[name] = b""

    def remove(self, proc) -> None:
        self.sel.unregister(proc.stdout.fileno())

    def until(self, cond, timeout: float) -> bool:
        end = time.perf_counter() + timeout
        while not cond():
            left = end - time.perf_counter()
            if left <= 0:
                return False
            for key, _ in self.sel.select(left):
                data = os.read(key.fd, 1 << 16)
                name = key.data
                self.buf[name] += data
                *lines, self.buf[name] = self.buf[name].split(b"\n")
                for line in lines:
                    self.on(name, line.decode())
        return True


# ---- the harness ----------------------------------------------------------------


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--moves", type=int, default=200, help="sensed changes per phase (default 200)")
    ap.add_argument("--pages", default="1,20", help="page counts, one phase each (default 1,20)")
    ap.add_argument("--busy", type=int, default=0, help="busy loops running meanwhile (default 0)")
    ap.add_argument("--gap", type=float, default=0.2,
                    help="seconds from a move's last page to the next move (default 0.2: after the board's "
                         "LEDs and status that follow a move, as a person's next move comes)")
    ap.add_argument("--page-procs", type=int, default=4,
                    help="processes the pages are spread over, as browsers on several phones (default 4)")
    ap.add_argument("--pages-at", nargs="*", help=argparse.SUPPRESS)  # the child process: these URLs
    ap.add_argument("--host-at", nargs=2, help=argparse.SUPPRESS)  # the child process: PTY BOARD
    ap.add_argument("--out", default=str(HERE / "results" / "web_latency.json"))
    args = ap.parse_args(argv)
    if args.pages_at:
        asyncio.run(pages(args.pages_at))
        return 0
    if args.host_at:
        host(*args.host_at)
        return 0
    counts = [int(c) for c in args.pages.split(",")]
    if max(counts) > MAX_PAGES:
        ap.error("at most %d pages" % MAX_PAGES)

    import turtleboard  # noqa: F401  (puts the device packages on the path)
    from controller.board import load_board
    from turtleboard.sim.device import Background, prepare
    from turtleboard.sim.world import World
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
    applied: dict = {}   # action count -> when the host's replica took it
    got: dict = {}       # action count -> {page: when it got the state}
    said: dict = {}      # the host's other answers: "web", "mark"

    def on(name, line):
        word, _, rest = line.partition(" ")
        if name == "host" and word == "applied":
            n, t = rest.split()
            applied.setdefault(int(n), float(t))
        elif name == "host":
            said[word] = rest
        else:  # a page process: "page n t"
            i, n, t = line.split()
            got.setdefault(int(n), {})[(name, int(i))] = float(t)

    lines = Lines(on)
    hostproc = None
    try:
        with Background(str(tmp / "sim"), str(path)) as dev:
            hostproc = subprocess.Popen([sys.executable, __file__, "--host-at", dev.path, str(path)],
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE)
            lines.add("host", hostproc)

            def ask(word: str) -> str:
                said.pop(word, None)
                hostproc.stdin.write(word.encode() + b"\n")
                hostproc.stdin.flush()
                if not lines.until(lambda: word in said, 30):
                    raise SystemExit("the host did not answer %r" % word)
                return said[word]

            if not lines.until(lambda: "ready" in said, 60):
                raise SystemExit("the host did not start")

            def run_moves(moves, wanted=0):
                host_ms, page, over, first, spread = [], [], [], [], []
                misses = 0
                for i in range(moves):
                    go = i % 2 == 0
                    src, dst = ("a1", "a2") if go else ("a2", "a1")
                    want = 1 if go else 0
                    applied.pop(want, None)
                    got.pop(want, None)
                    world.lift(src)
                    world.place(dst)
                    t0 = time.perf_counter()
                    end = t0 + 5
                    ok = lines.until(lambda want=want: want in applied and len(got.get(want, ())) >= wanted,
                                     end - t0)
                    if not ok:
                        misses += 1
                        continue
                    host_ms.append((applied[want] - t0) * 1000)
                    if wanted:
                        times = list(got[want].values())
                        page.extend((t - t0) * 1000 for t in times)
                        over.extend((t - applied[want]) * 1000 for t in times)
                        first.append((min(times) - applied[want]) * 1000)
                        spread.append((max(times) - min(times)) * 1000)
                    lines.until(lambda: False, args.gap)  # the next move comes later
                return host_ms, page, over, misses, first, spread

            # phase 1: no page open
            mark = json.loads(ask("mark"))
            host_alone, _, _, miss_alone, _, _ = run_moves(args.moves)
            cpu_alone = (json.loads(ask("mark"))["process"] - mark["process"]) * 1000 / args.moves

            # then the web page and its pages, one phase per page count
            urls_all = ask("web").split()
            for count in counts:
                urls = urls_all[:count]
                procs = min(args.page_procs, count)
                children = [subprocess.Popen([sys.executable, __file__, "--pages-at", *urls[k::procs]],
                                             stdout=subprocess.PIPE) for k in range(procs)]
                for k, child in enumerate(children):
                    lines.add(k, child)
                got.clear()
                lines.until(lambda count=count: len(got.get(0, {})) >= count, 30)  # every page's first state
                mark = json.loads(ask("mark"))
                pages_cpu = sum(child_cpu(c.pid) for c in children)
                host_web, page, over, misses, first, spread = run_moves(args.moves, count)
                after = json.loads(ask("mark"))
                pages_cpu = (sum(child_cpu(c.pid) for c in children) - pages_cpu) * 1000 / args.moves
                for child in children:
                    lines.remove(child)
                    child.kill()
                    child.wait()

                def per_move(key, after=after, mark=mark):
                    return round((after[key] - mark[key]) * 1000 / args.moves, 2)

                results["tortuga_%d_pages" % count] = {
                    "what": "adc file rewritten (turtle put down) -> each of the open pages received the "
                            "state with the move (WebSocket, a process of its own)",
                    "game": "tortuga: a1-a2 step then the takeback, repeated",
                    "pages": count,
                    "roles": ", ".join(r if s is None else "seat%d" % (s + 1) for r, s in roles(count, 2)),
                    "busy_loops": args.busy,
                    "gap_s": args.gap,
                    "page_processes": procs,
                    "stable_ms": obj["sensing"]["stable_ms"],
                    "sensor_to_page": summary(page),
                    "page_over_host": summary(over),
                    "first_page_over_host": summary(first),  # each move's first page to get it
                    "last_page_after_first": summary(spread),  # ... and its last, after the first
                    "host_with_pages": summary(host_web),
                    "host_without_pages": summary(host_alone),
                    "missed": misses + miss_alone,
                    "host_cpu_ms_per_move": {"with_pages": per_move("process"), "without_pages": round(cpu_alone, 2),
                                             "web_server_thread": per_move("web_server"),
                                             "board_reader_thread": per_move("board_reader")},
                    "pages_cpu_ms_per_move": round(pages_cpu, 2),
                    "states_sent": after["sent"] - mark["sent"],
                    "states_built": after["built"] - mark["built"],
                    "pages_dropped": after["dropped"] - mark["dropped"],
                    "target": "page_over_host p99 <= 50 ms; host_with_pages no slower than "
                              "host_without_pages",
                    "machine": {"python": platform.python_version(), "cpu": platform.machine(),
                                "cores": os.cpu_count(), "load_1min": round(os.getloadavg()[0], 1)},
                }
                print(json.dumps(results["tortuga_%d_pages" % count], indent=1, sort_keys=True), flush=True)
    finally:
        if hostproc is not None:
            hostproc.kill()
            hostproc.wait()
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
