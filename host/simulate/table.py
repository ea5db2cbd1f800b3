"""The whole table, simulated from one seed (docs/simulation.md).

    table = Table(seed=7, folder="/tmp/x", minutes=30)
    report = table.run()      # every promise checked after every step
    table.close()

One step of the table: the firmware asks for the time it sleeps to; the
simulator reads every byte it wrote, waits until the host and the pages
have handled what reached them, runs the people and the faults due by
then, checks the promises, and grants that time. Until the next thing the
simulator has to do, the firmware sleeps on without asking, unless it
writes to the host.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import time

from turtleboard.games import played
from turtleboard.paths import BOARDS
from turtleboard.sim.world import World
from turtleboard.simulate.board import BOOT_WAIT_S, VirtualBoard
from turtleboard.simulate.clock import Clock
from turtleboard.simulate.faults import faults
from turtleboard.simulate.host import ConsoleHost, Host
from turtleboard.simulate.mutations import apply_firmware
from turtleboard.simulate.pages import Pages
from turtleboard.simulate.people import Family
from turtleboard.simulate.promises import Broken, Promises, usage
from turtleboard.simulate.tap import Tap

LAG_RUN_MAX = 6  # steps in a row a view may stay behind: more is a view stuck, not a loaded machine
QUIET_WAIT_S = 10.0  # real seconds the table waits for the host and the pages to catch up
AHEAD_MS = 1000      # the firmware sleeps on without asking at most this long
GAMES = ("mahe", "race", "tortuga", "tattoo", "hatching")


def board_file(game: str) -> str:
    return str(BOARDS / ("%s.json" % ("tortuga" if game in ("tattoo", "hatching") else game)))


class Table:
    def __init__(self, seed: int, folder: str, minutes: float = 10.0, game: str | None = None,
                 faults: bool = True, pages: bool = True, mutation: str | None = None,
                 stop_at_step: int | None = None, log=None, trace: bool = False,
                 browser: bool = False, budget_s: float | None = None):
        self.seed = seed
        # the machine's seconds the table may take (None: no limit): a view that
        # stays behind makes every step wait QUIET_WAIT_S, and a table that
        # crawls so must end with that said, not run on for hours
        self.budget_s = budget_s
        self.lag_run = 0  # lagging steps in a row
        self.rng = random.Random(seed)
        self.folder = folder
        self.minutes = minutes
        self.mutation = mutation
        self.stop_at_step = stop_at_step
        self.log = log or (lambda text: None)
        drawn = self.rng.choice(GAMES)  # drawn always, so that --game replays the same run
        self.game_name = game or drawn
        self.with_faults = faults
        self.with_pages = pages
        # a Pico's ticks wrap every 2**30 ms (12 days): some runs start just before
        start = self.rng.choice((1000, (1 << 30) - self.rng.randrange(1000, 600000)))
        self.clock = Clock(start)
        self.end_ms = start + int(minutes * 60000)
        self.step_n = 0
        self.lag = 0  # steps where the host or a page was still behind after QUIET_WAIT_S
        self.stats = {"games": 0, "verbs": {}, "faults": {}, "steps": 0, "boots": 0,
                      "actions": 0, "minutes_played": {}}
        self.broken: list[Broken] = []
        self.before = usage()  # promise 7: what is left after close() is compared with it
        shutil.rmtree(folder, ignore_errors=True)
        os.makedirs(folder)
        path = board_file(self.game_name)
        self.board = VirtualBoard(os.path.join(folder, "board"), path, log=None)
        apply_firmware(mutation, os.path.join(self.board.dir, "flash"))
        from turtleboard.mirror.app import board_file_for

        self.board_def = board_file_for(None, path)
        self.world = World(self.board.board, self.board.world_dir, seed=seed)
        self.world.clock = lambda: self.clock.now / 1000
        self.tap = Tap(os.path.join(self.board.dir, "flash"), self.board.board.geometry)
        self.board.tap = self.tap.feed
        self.board.on_boot = self._booted
        # the PC runs play --web with its terminal mirror (its keys a surface),
        # or --no-tui; or the console in play's place (no page, no PC seat)
        pick = self.rng.random()
        self.tui = pick < 0.45
        self.console = pick >= 0.85
        clock = lambda: self.clock.now / 1000  # noqa: E731
        if self.console:
            self.host = ConsoleHost(self.board, self.board_def, seed, clock)
            pages = False
        else:
            self.host = Host(self.board, self.board_def, seed, clock, tui=self.tui)
        self.board.host_reads = lambda: not self.host.stalled
        self.with_pages = pages
        self.pages = Pages() if pages else None
        self.family = None
        self.promises = Promises(self)
        self.stopping = False
        self.torn = None  # (rng, the log's size): a power cut waits for the next log write
        self.trace = trace  # note every frame, touch, press and page message (a replay's detail)
        self.browser = None  # the table's page in headless Chromium (--browser), where there is a page
        self.want_browser = browser and self.pages is not None
        self.browser_at = None  # the table's time of the next look at it
        if trace:
            self.tap.listeners.append(
                lambda f: self.note("board> %s %s" % (f.kind, json.dumps(f.payload)[:160])))

    def log_size(self) -> int:
        try:
            return os.path.getsize(os.path.join(self.board.dir, "flash", "game.log"))
        except OSError:
            return -1

    def cut_in_write(self) -> bool:
        """The power cut waiting for a log write, if the log grew since the
        last step: the firmware's output since is lost with it, the line
        it was writing torn at a point the seed draws."""
        rng, before = self.torn
        after = self.log_size()
        if before < 0 or after < 0:
            self.torn = (rng, after)
            return False
        if after <= before:
            if after < before:
                self.torn = (rng, after)  # a new game replaced the log
            return False
        self.torn = None
        self.count("faults", "power cut in a log write")
        self.note("fault: power cut in a log write (%d of %d new bytes kept)" % (0, after - before))
        self.board.drop_held()
        self.promises.power_cut(torn=True)
        self.board.power_cut()
        keep = rng.randint(before, after - 1)
        with open(os.path.join(self.board.dir, "flash", "game.log"), "r+b") as f:
            f.truncate(keep)
        return True

    # -- what happens ---------------------------------------------------------

    def _booted(self) -> None:
        self.stats["boots"] += 1
        self.tap.booted()

    def count(self, group: str, name: str, surface: str | None = None) -> None:
        if surface is None:
            self.stats[group][name] = self.stats[group].get(name, 0) + 1
        else:
            per = self.stats[group].setdefault(surface, {})
            per[name] = per.get(name, 0) + 1

    def note(self, text: str) -> None:
        self.log("%9.3f s  %s" % ((self.clock.now - self.clock.start) / 1000, text))

    def replay_command(self, step: int | None = None) -> str:
        args = "--seed %d --minutes %g" % (self.seed, self.minutes)
        if self.game_name:
            args += " --game %s" % self.game_name
        if not self.with_faults:
            args += " --no-faults"
        if self.mutation:
            args += " --mutation %s" % self.mutation
        if step is not None:
            args += " --until-step %d" % step
        return "python bench/simulate.py " + args

    # -- the loop ----------------------------------------------------------------

    def quiesce(self) -> None:
        """Until the host and the pages have handled what reached them (or
        QUIET_WAIT_S of real time: they lag, which the promises see)."""
        deadline = time.monotonic() + QUIET_WAIT_S
        board = self.board
        while True:
            if self.host.quiet() and self.promises.pages_quiet():
                self.lag_run = 0
                return
            if time.monotonic() > deadline:
                self.lag += 1
                self.lag_run += 1
                behind = self.host_behind() if not self.host.quiet() else self.promises.pages_behind()
                self.note("lag: behind after %g s of the machine's time: %s" % (QUIET_WAIT_S, behind))
                if self.lag_run == LAG_RUN_MAX:
                    self.promises.broken(2, "%d steps in a row still behind after %g s of the machine's time each: %s"
                                         % (self.lag_run, QUIET_WAIT_S, behind))
                if not self.host.quiet():
                    self.promises.host_lagged()
                return
            board.pump(0.002)

    def host_behind(self) -> str:
        """What the host is behind with (for the table's log)."""
        link, board = self.host.link, self.board
        if link is None:
            return "the host"
        return ("the host (listening %s, starting %s, waiting %s, read %d of %d bytes, the board read %d of %d)"
                % (link.listening, self.host.starting, link.waiting, link.bytes_in, board.to_host,
                   board.from_host, link.bytes_out))

    def run(self) -> dict:
        board = self.board
        clock = self.clock
        board.start()
        self.host.start()
        self.family = Family(self)
        clock.spawn("family", self.family.run())
        if self.with_faults:
            clock.spawn("faults", faults(self))
        try:
            started = time.monotonic()
            while clock.now < self.end_ms and not self.stopping:
                if self.budget_s is not None and time.monotonic() - started > self.budget_s:
                    self.promises.broken(7, "the table took over %g s of the machine's time for %g simulated "
                                         "minutes (it reached %.1f): %d steps lagged"
                                         % (self.budget_s, self.minutes, (clock.now - clock.start) / 60000, self.lag))
                    break
                if not board.plugged:
                    # no firmware: the world and the people go on to the next event
                    nxt = clock.next_time()
                    self.advance(nxt if nxt is not None else clock.now + 100)
                    continue
                ask = board.wait_ask(time.monotonic() + BOOT_WAIT_S)
                if self.torn is not None and self.cut_in_write():
                    continue
                # what it wrote, it wrote at its time (it may have slept on
                # without asking since the last grant): the table's now
                self.advance(ask.at)
                board.release()
                boots = board.boots
                self.quiesce()
                until = ask.until if ask.until >= 0 else clock.now
                until = max(until, clock.now)
                self.advance(until)
                self.quiesce()  # what the people's own moves set going (a page's command)
                self.step_n += 1
                self.stats["steps"] = self.step_n
                if board.boots != boots or board.ask is not ask or not board.plugged:
                    continue  # the power went: the new firmware asks again
                self.promises.check()
                if self.want_browser:
                    self.look_at_browser()
                if self.broken:
                    break
                if self.stop_at_step is not None and self.step_n >= self.stop_at_step:
                    break
                nxt = clock.next_time()
                horizon = min(until + AHEAD_MS, self.end_ms)
                if nxt is not None:
                    horizon = min(horizon, nxt - 1)
                board.grant(until, max(until, horizon))
            if self.browser is not None and not self.broken and self.board.plugged:
                self.look_at_browser(last=True)
        finally:
            self.promises.finish()
        return self.stats

    def look_at_browser(self, last: bool = False) -> None:
        """Every simulated minute (and at the end): the table's page in
        Chromium shows the board's last action within BROWSER_WAIT_S of the
        machine's time, the table's own time held meanwhile."""
        from turtleboard.simulate.browser import BROWSER_WAIT_S, BrowserPage

        host, tap = self.host, self.tap
        if not (host.up and host.web is not None and not host.stalled and tap.ready()):
            return
        if self.browser is None:
            self.browser = BrowserPage()
            self.browser.open(host.web.url())
            self.browser_at = self.clock.now + 60000
            return
        if not last and self.clock.now < self.browser_at:
            return
        self.browser_at = self.clock.now + 60000
        got = self.browser.wait_shows(tap.replica.n)
        self.stats["browser_checks"] = self.browser.checks
        if got != tap.replica.n:
            self.promises.broken(2, "the table's page in Chromium shows action %s; the board is at %d "
                                    "(%g s of the machine's time later)" % (got, tap.replica.n, BROWSER_WAIT_S))

    def advance(self, until: int) -> None:
        clock = self.clock
        self.count_played(until - clock.now)
        while True:
            got = clock.due(until)
            if got is None:
                break
            actor, value = got
            if not actor.done:
                clock.resume(actor, value)
        clock.now = max(clock.now, until)

    def count_played(self, ms: int) -> None:
        """The table's time, counted to the game on the board as the table
        knows it (the five by name: Tortuga's variants apart), else to "no
        game" (none yet, one over, the board not known: booting, unplugged)."""
        if ms <= 0:
            return
        game = self.tap.game if self.tap.known() else None
        key = "no game" if game is None or game.is_over() else played(game.name, game.options)
        per = self.stats["minutes_played"]
        per[key] = per.get(key, 0.0) + ms / 60000

    def close(self) -> None:
        self.stopping = True
        try:
            if self.browser is not None:
                self.browser.close()
                self.browser = None
            self.host.stop()
        finally:
            if self.pages is not None:
                self.pages.close()
            self.world.close()
            self.board.close()
        self.promises.left_behind(self.before)
