"""The PC at the table: `turtleboard play --web` run in the simulator's
process (the mirror and its replica, the PC's seats, the web server), with
the terminal mirror (the real Textual app, headless, driven by its keys
as a person presses them) or without it (`--no-tui`). Each runs on its own
thread as the real command does; the simulator waits until it has read
and handled every byte the board sent before it lets time go on (`quiet()`).
"""

from __future__ import annotations

import asyncio
import os
import threading
import time

from turtleboard.connection.link import Disconnected, LinkError
from turtleboard.connection.replica import Mirror
from turtleboard.mirror.hostseats import HostSeats
from turtleboard.simulate.board import CountedLink

HOST_LEVEL = "easy"  # the PC's seats: quick to think, so the table never waits long on it


class Host:
    """`play --web --no-tui`: started, stopped (killed), started again."""

    def __init__(self, board, board_def, seed: int, clock, web_port: int = 0, tui: bool = False):
        self.board = board
        self.board_def = board_def
        self.seed = seed
        self.clock = clock  # the table's time in seconds, for the mirror's timers
        self.web_port = web_port
        self.mirror: Mirror | None = None
        self.seats: HostSeats | None = None
        self.web = None
        self.thread: threading.Thread | None = None
        self.stopping = threading.Event()
        self.done_in = 0      # the link's bytes_in once every event read was handled
        self.stalled = False  # a stalled reader: it reads nothing while set
        self.started = 0
        self.up = False       # the mirror started and the web page serves
        self.starting = False  # started, not yet connected to the board
        self.notes: list[str] = []
        self.tui = tui        # the terminal mirror runs (play --web), its keys a surface
        self.app = None       # the MirrorApp, while it runs
        self.pilot = None
        self.loop = None      # the app's event loop

    @property
    def link(self) -> CountedLink | None:
        return self.mirror.link if self.mirror is not None else None

    def start(self) -> None:
        port = os.path.join(self.board.dir, "pty")
        self.mirror = Mirror(port, self.board.board.geometry, give_up_after=None)
        self.mirror.link = CountedLink(port, self.board)
        self.mirror.clock = self.clock
        # its handshake waits for the board on the table's time, as a real
        # host waits for a real board: a table's board boots in the machine's
        # time, which the table's stands still for
        self.mirror.link.clock = self.clock
        read = self.mirror.poll

        def poll(timeout: float = 0.05):  # a stalled reader reads nothing while stalled
            if self.stalled:
                self.stopping.wait(0.01)
                return []
            return read(timeout)

        self.mirror.poll = poll
        self.seats = HostSeats(self.mirror, HOST_LEVEL, seed=self.seed)
        self.stopping.clear()
        self.up = False
        self.starting = True
        self.started += 1
        self.done_in = 0
        self.thread = threading.Thread(target=self.run, name="sim-host", daemon=True)
        self.thread.start()

    def run(self) -> None:
        mirror = self.mirror
        while not self.stopping.is_set():
            try:
                mirror.start(3.0)
                break
            except LinkError:
                self.starting = False  # (the board is away: tried again)
                self.stopping.wait(0.05)
        if self.stopping.is_set():
            return
        if self.web is None:
            from turtleboard.web.server import WebServer

            self.web = WebServer(mirror, self.board_def, port=self.web_port)
            self.web.start()
            self.web_port = self.web.port  # a restarted host serves the same links
        if self.tui:
            self.starting = False
            asyncio.run(self.run_tui())
            return
        self.up = True
        self.starting = False
        link = mirror.link
        while not self.stopping.is_set():
            if self.stalled:
                self.stopping.wait(0.01)
                continue
            try:
                events = mirror.poll(0.02)
            except LinkError as e:
                self.notes.append(str(e))
                continue
            for kind, data in events:
                if kind == "note":
                    self.notes.append(data)
                    del self.notes[:-50]
            self.seats.poll()
            self.done_in = link.bytes_in

    async def run_tui(self) -> None:
        """The terminal mirror, headless at 80x24, until the host stops: it
        reads the board on its own thread (MirrorApp.pump) as `play` does."""
        from turtleboard.mirror.app import MirrorApp

        app = MirrorApp(self.mirror, None, None, self.seats, ["the table's web page"])
        async with app.run_test(headless=True, size=(80, 24)) as pilot:
            self.app, self.pilot, self.loop = app, pilot, asyncio.get_running_loop()
            self.up = True
            while not self.stopping.is_set():
                await asyncio.sleep(0.02)
            self.up = False
            self.app = self.pilot = None
            app.stopping.set()
        for th in threading.enumerate():  # its reader ends with it, as when play quits
            if th.name == "mirror-pump":
                th.join(5)

    def keys(self, *keys: str) -> bool:
        """A person presses keys on the terminal mirror (False: nothing was
        sent: it is not running, or it said why in its log pane, as "no
        prompt is open" from a mirror whose reader stalled, seed 1362)."""
        loop, pilot = self.loop, self.pilot
        if not self.up or pilot is None or loop is None:
            return False
        link = self.link
        sent = link.frames_out if link is not None else 0
        try:
            asyncio.run_coroutine_threadsafe(pilot.press(*keys), loop).result(10)
        except Exception:  # (the app is closing)
            return False
        return link is not None and link.frames_out != sent

    def log_lines(self) -> list[str]:
        """What the mirror's log pane shows (its last lines)."""
        app = self.app
        if app is None:
            return []
        try:
            log = app.query_one("#log")
            return [strip.text for strip in list(log.lines)[-20:]]
        except Exception:
            return []

    def stop(self) -> None:
        """The host goes away (killed): its port closes, its page goes."""
        self.stopping.set()
        if self.thread is not None:
            self.thread.join(10)
            self.thread = None
        if self.web is not None:
            self.web.stop()
            self.web = None
        if self.mirror is not None:
            self.mirror.close()
        self.up = False

    def quiet(self) -> bool:
        """Is the host idle, waiting on the board (or on the table's clock),
        with every byte the board sent read and every byte it wrote read
        by the board?"""
        link = self.link
        board = self.board
        if self.thread is None or link is None:
            return True
        if self.stalled:
            return board.from_host >= link.bytes_out
        if not link.listening:
            if self.starting:
                return False
            m = self.mirror
            return m.clock() < m.next_try  # reconnecting: waits for its next try
        return (link.waiting and link.bytes_in >= board.to_host and not board._to_host
                and board.from_host >= link.bytes_out)

    def in_step(self, tap) -> bool:
        """Does the host's replica show the board's game?"""
        m = self.mirror
        if m is None or not self.up:
            return True
        rep = m.replica
        with m.lock:
            if not rep.in_sync or rep.awaiting:
                return False
            return (rep.n, rep.hash()) == (tap.replica.n, tap.replica.hash())

    def wait_up(self, timeout: float = 20.0) -> bool:
        end = time.monotonic() + timeout
        while not self.up and time.monotonic() < end:
            time.sleep(0.01)
        return self.up


class ConsoleHost(Host):
    """`turtleboard console` in play's place: it takes the port, prints
    every frame, and a person types its commands (`hint`, `undo`,
    `answer N`, `send new {...}`). No web page, no PC seats. Its reader
    reconnects on its own as the real one does (Console.reader: the link's
    back-off on the machine's clock)."""

    def __init__(self, board, board_def, seed: int, clock):
        Host.__init__(self, board, board_def, seed, clock)
        self.console = None
        self._link: CountedLink | None = None
        self.printed = None  # what the console printed (its terminal)

    @property
    def link(self) -> CountedLink | None:
        return self._link

    def start(self) -> None:
        import io

        from rich.console import Console as RichConsole

        from turtleboard.console.app import Console

        self._link = CountedLink(os.path.join(self.board.dir, "pty"), self.board)
        self.printed = io.StringIO()
        self.console = Console(self._link, out=RichConsole(file=self.printed, width=200,
                                                           color_system=None))
        self.stopping.clear()
        self.up = False
        self.starting = True
        self.started += 1
        self.thread = threading.Thread(target=self.run, name="sim-console", daemon=True)
        self.thread.start()

    def run(self) -> None:
        link, con = self._link, self.console
        while not self.stopping.is_set():
            try:
                link.open(3.0)
                break
            except LinkError:
                self.starting = False
                self.stopping.wait(0.05)
        if self.stopping.is_set():
            return
        con.game.name = (link.hello or {}).get("game")
        self.up = True
        self.starting = False
        con.stop = self.stopping  # its reader ends with the host
        con.reader()

    def stop(self) -> None:
        self.stopping.set()
        if self.thread is not None:
            self.thread.join(10)
            self.thread = None
        if self._link is not None:
            self._link.close()
        self.up = False

    def quiet(self) -> bool:
        link = self._link
        board = self.board
        if self.thread is None or link is None:
            return True
        if not link.listening:
            return not self.starting  # reconnecting on the machine's clock
        return (link.waiting and link.bytes_in >= board.to_host and not board._to_host
                and board.from_host >= link.bytes_out)

    def in_step(self, tap) -> bool:
        return True  # it prints frames: no game of its own to be in step

    def type(self, line: str) -> bool:
        """A person types a line at the console's prompt (False: nothing was
        sent: the console is not running, or it said why)."""
        if not self.up or self.console is None:
            return False
        sent = self._link.frames_out if self._link is not None else 0
        try:
            self.console.execute(line)
            # nothing went out: the console said why (its own check of the
            # line, as `answer` with no question seen, seed 1023)
            return self._link is not None and self._link.frames_out != sent
        except Disconnected as e:  # as the console's own loop says it (console.app.run)
            self.console.say("not sent: %s" % e)
            return False
        except LinkError:
            return False

    def last_lines(self, n: int = 5) -> list[str]:
        return (self.printed.getvalue() if self.printed else "").splitlines()[-n:]
