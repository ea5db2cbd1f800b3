"""The host's own copy of the game on a board, kept in step over the link.

Replica: the engine replica alone (no I/O). Feed it every frame from the board:

    rep = Replica(geometry=None)
    notes = rep.handle(frame)       # -> list of human sentences worth showing
    if rep.needs_sync: link.send("sync")
    rep.game                        # a turtles Game (or None before the first sync)
    rep.in_sync                     # True once a sync matched and every action since did

It applies every `action` the board reports, takes back every `undone`, and
after each compares its own state hash with the board's. Any difference (a hash,
an action it cannot apply, a gap in the action count, an unknown game, a reboot
hello that does not match) sets `needs_sync` and says so in the notes; the
answer to `sync` (state, log..., synced) rebuilds the game from the board's
action list and checks the final hash.

Mirror: a Link plus a Replica plus reconnecting, for the live mirror, the demo
and the record export:

    m = Mirror(port, geometry=None)
    m.start()                       # open, hello, sync (raises LinkError on failure)
    for kind, data in m.poll(0.1):  # ("frame", Frame) ("raw", text) ("note", text)
        ...                         # ("link", "connected"|"lost"|"reconnecting")
    m.send("enter", {"text": "d3"}) # any host command; returns the seq
    m.wait_synced(timeout)          # poll until the replica is in sync
    m.close()

After a disconnect poll() reconnects with backoff, one try per poll (so a
display stays live), then resyncs;
neither side loses the game: the board keeps its power-safe log, the replica
is rebuilt from it. Mirror also keeps the last `leds`, `status`, `prompt`
payloads, the LED colours (`leds`: "rrggbb" per LED index) and the hello
for the display. A report of what the board's game log lost (`log` in
`hello` and `state`) comes as a note once and is acknowledged (`ack`).

Every frame is checked against connection/schema.py where the Link reads
it: one with a field of the wrong type arrives as a damaged line, which
makes the replica resync.
"""

from __future__ import annotations

import threading
import time
from collections import deque

from turtleboard.connection.link import (
    Disconnected,
    Frame,
    Link,
    LinkError,
    LinkTimeout,
    NotOurDevice,
    PortError,
    Raw,
)
from turtleboard.connection.schema import MAX_ACTIONS
from turtles import new_game
from turtles.errors import GameError

FRAME_KINDS = ("hello", "action", "undone", "state", "log", "synced")
SYNC_EVERY = 0.2  # seconds at least between two syncs asked (a board sending bad lines)
SYNC_WAIT = 2.0  # seconds a sync's answer may go silent before it is given up and asked again
REPORT_EVERY = 1.0  # seconds at least between two game log reports noted and acknowledged
SYNC_TEXT_MAX = 4_000_000  # characters of action texts one sync may bring (a long game has ~10 KB)


def hash_text(h: int) -> str:
    return "%08x" % h


class Replica:
    def __init__(self, geometry=None):
        self.geometry = geometry
        self.game = None
        self.in_sync = False
        self.needs_sync = True
        self.awaiting = False  # a sync went out and its `synced` has not come yet
        self.syncing = None  # the `state` payload and log while a sync arrives
        self.sync_chars = 0  # the action texts' size in `syncing`
        self.resyncs = 0
        self.mismatches = 0
        self.failed = 0  # syncs in a row whose answer made no game here
        self.takebacks = 0  # `undone` frames taken (a position seen again is a new turn)

    @property
    def n(self) -> int:
        return len(self.game.history) if self.game is not None else 0

    def hash(self) -> str:
        return hash_text(self.game.state_hash()) if self.game is not None else ""

    def lost(self, why: str) -> list[str]:
        """Something may have been missed: resync (and say why)."""
        return self._lost(why)

    def _sync_failed(self, why: str) -> list[str]:
        # A sync's answer that does not make a game here (maybe a line of it
        # was lost): asked again, less and less often (Mirror.sync_interval).
        self.in_sync = False
        self.needs_sync = True
        self.failed += 1
        return [why + "; syncing again"]

    def spoiled(self, why: str) -> list[str]:
        """A line was lost, maybe one of a sync's answer: resync afresh."""
        self.syncing = None
        self.awaiting = False
        return self._lost(why)

    def _lost(self, why: str) -> list[str]:
        self.in_sync = False
        self.needs_sync = not self.awaiting
        self.mismatches += 1
        return [f"out of step with the board: {why}; resyncing"]

    def sync_sent(self) -> None:
        """Call when a `sync` went out (so it is not asked twice)."""
        self.needs_sync = False
        self.awaiting = True

    def handle(self, frame: Frame) -> list[str]:
        kind, p = frame.kind, frame.payload
        method = getattr(self, "_on_" + kind, None) if kind in FRAME_KINDS else None
        if method is None:
            return []
        try:
            return method(p)
        except Exception as e:  # a frame of odd types must never stop the mirror
            self.syncing = None
            self.awaiting = False
            return self._lost(f"a {kind} frame the mirror cannot read ({e!r})")

    def _on_hello(self, p) -> list[str]:
        # At boot (a reset or a replug; the hello of a handshake is the
        # link's, never seen here): a sync sent before it went to the board
        # that is gone, so its answer is not waited for but asked again.
        if not self.in_sync:
            self.syncing = None
            self.awaiting = False
            self.needs_sync = True
            return []
        if self.game is None:
            if p.get("game"):
                return self._lost(f"the board has a game of {p.get('game')} the mirror has not seen")
            return []
        same = (
            p.get("game") == self.game.name
            and p.get("n") == self.n
            and p.get("hash") == self.hash()
        )
        if same:
            # a restart that kept the game (power-safe log): check it all anyway
            self.syncing = None
            self.awaiting = False
            self.needs_sync = True
            return ["the board said hello again (a restart?); checking with a sync"]
        return self._lost(
            f"the board says game {p.get('game')} at action {p.get('n')}, "
            f"the mirror has {self.game.name} at action {self.n}"
        )

    def _on_action(self, p) -> list[str]:
        if not self.in_sync:
            return []  # a sync is on its way; it will include this action
        n, text = p.get("n"), p.get("text", "")
        if self.game is None or not isinstance(text, str) or type(n) is not int:
            return self._lost(f"the board reports action {n!r} {text!r}, which the mirror cannot apply")
        if n != self.n + 1:
            return self._lost(f"the board reports action {n} but the mirror is at {self.n}")
        try:
            self.game.apply_text(text)
        except GameError as e:
            return self._lost(f"the board's action {text!r} does not apply here ({e})")
        if p.get("hash") != self.hash():
            return self._lost(
                f"after {text!r} the board's state hash is {p.get('hash')} "
                f"and the mirror's is {self.hash()}"
            )
        return []

    def _on_undone(self, p) -> list[str]:
        if not self.in_sync:
            return []
        if self.game is None or p.get("n") != self.n - 1 or not self.game.history:
            return self._lost(f"the board took back to action {p.get('n')}, the mirror is at {self.n}")
        self.game.undo()
        self.takebacks += 1
        if p.get("hash") != self.hash():
            return self._lost(f"after a takeback the hashes differ ({p.get('hash')} vs {self.hash()})")
        return []

    def _on_state(self, p) -> list[str]:
        # the answer to a sync, or a new game: the log and `synced` follow
        self.syncing = (p, [])
        self.sync_chars = 0
        self.awaiting = True
        return []

    def _on_log(self, p) -> list[str]:
        if self.syncing is None:
            return []
        actions = self.syncing[1]
        if p.get("from") != len(actions):
            return self.spoiled(f"a log chunk starts at {p.get('from')}, expected {len(actions)}")
        more = p.get("actions") or []
        if not isinstance(more, list) or not all(isinstance(t, str) for t in more):
            return self.spoiled("a log chunk that is not a list of action texts")
        self.sync_chars += sum(len(t) for t in more)
        if len(actions) + len(more) > MAX_ACTIONS or self.sync_chars > SYNC_TEXT_MAX:
            self.syncing = None
            self.awaiting = False
            return self._lost(
                f"the board's sync brings over {len(actions) + len(more)} actions "
                f"({self.sync_chars} characters), more than any game (at most {MAX_ACTIONS} "
                f"actions, {SYNC_TEXT_MAX} characters); the rest is dropped")
        actions.extend(more)
        return []

    def _on_synced(self, p) -> list[str]:
        if self.syncing is None:
            if self.in_sync:
                return []
            # the end of an answer whose `state` never came (a line lost):
            # asked again now, not after SYNC_WAIT
            self.awaiting = False
            return self._lost("the answer to a sync came without its start (a line was lost)")
        state, actions = self.syncing
        self.syncing = None
        self.awaiting = False
        name = state.get("game")
        if not name:
            self.game = None
            self.in_sync = True
            self.needs_sync = False
            return ["no game on the board yet"]
        geometry = state.get("geometry", self.geometry)
        try:
            game = new_game(name, state.get("players"), state.get("options") or {}, geometry)
        except Exception as e:  # GameError, or fields of the wrong type
            return self._sync_failed(f"cannot mirror the board's game {name!r}: {e}")
        for i, text in enumerate(actions):
            try:
                game.apply_text(text)
            except GameError as e:
                self.game = game
                return self._sync_failed(f"the board's action {i + 1} {text!r} does not apply here ({e})")
        self.game = game
        if p.get("n") != self.n or p.get("hash") != self.hash():
            return self._sync_failed(
                f"after a full sync the board has {p.get('n')} actions, hash {p.get('hash')}; "
                f"the mirror replays to {self.n} actions, hash {self.hash()}")
        self.failed = 0
        was = self.resyncs
        self.resyncs += 1
        self.in_sync = True
        self.needs_sync = False
        if was:
            return [f"resynced: {name}, {self.n} actions, hash {self.hash()}"]
        return [f"synced: {name}, {self.n} actions, hash {self.hash()}"]


class Mirror:
    def __init__(self, port: str, geometry=None, give_up_after: float | None = 60.0):
        self.link = Link(port)
        self.replica = Replica(geometry)
        self.give_up_after = give_up_after
        self.hello: dict | None = None
        self.leds: list[str] = []  # "rrggbb" per LED index, from `leds` frames
        self.status: dict | None = None
        self.prompt: dict | None = None
        self.seats: list | None = None  # the game's seats, from `state` (None: all people)
        self.dice: str | None = None  # the game's dice, from `state`: electronic or physical
        self.connected = False
        self.reconnects = 0
        self.lost_at = self.next_try = 0.0
        self.gaps_seen = 0
        self.synced_at = -SYNC_EVERY  # when the last sync went out
        self.heard_at = 0.0  # when the last sync went out or a line of an answer came
        self.sync_seq: int | None = None  # the seq of the last `sync` sent
        self.sync_answered = False  # its `ok` came (after its state, log and synced)
        self.log_report: str | None = None  # what the board could not restore of its game log
        self.log_reports: deque = deque(maxlen=8)  # the reports noted (the last few)
        self.calibration: str | None = None  # the cells the board last measured again (said once)
        self.report_at = -REPORT_EVERY  # when the last report was noted and acknowledged
        self.reports_held = 0  # reports passed over since (too soon after the last)
        self.lock = threading.Lock()  # held while frames change the replica (a display reads it)
        # called with the events of every poll that had some (the web page's
        # hub); each must return at once: it runs on the thread reading the board
        self.watchers: list = []
        self.delay = 0.05
        # its timers' clock (seconds): a simulated table's own (docs/simulation.md)
        self.clock = time.monotonic

    def start(self, timeout: float = 3.0) -> dict:
        """Open, hello, sync. A board whose own board file is bad (its hello
        names no board) runs no game: raises LinkError with its reasons."""
        self.hello = self.link.open(timeout)
        self.connected = True
        if self.hello.get("board") is None:
            problems = self.board_problems()
            self.close()
            raise LinkError(
                f"the board on {self.link.port} runs no game: its board file is bad ("
                + ("; ".join(problems) or "it names no board")
                + f"). Put a good one on it: turtleboard flash --port {self.link.port} "
                f"--board <board file or mahe|race|tortuga>"
            )
        self._sync()
        return self.hello

    def board_problems(self, timeout: float = 1.0) -> list[str]:
        """The `board` error messages a board with a bad board file sends (it
        repeats them after every frame it receives)."""
        seen: list[str] = []
        self.link.send("sync")
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for ev in self.link.read(0.05):
                if isinstance(ev, Frame) and ev.kind == "error" and ev.payload.get("code") == "board":
                    msg = str(ev.payload.get("msg"))[:300]
                    if msg in seen:
                        return seen  # the whole list came round again
                    seen.append(msg)
        return seen

    def close(self) -> None:
        self.link.close()
        self.connected = False

    def sync_interval(self) -> float:
        """Seconds between two syncs asked: longer after each that failed
        (a board whose game this host cannot mirror is not flooded)."""
        return SYNC_EVERY * 2 ** min(self.replica.failed, 5)

    def _sync(self) -> None:
        self.synced_at = self.heard_at = self.clock()
        self.sync_answered = False
        self.sync_seq = self.link.send("sync")
        self.replica.sync_sent()

    def send(self, kind: str, payload: dict | None = None) -> int:
        return self.link.send(kind, payload)

    def poll(self, timeout: float = 0.1) -> list:
        """Events since the last poll (waits up to `timeout` for the first).
        While the board is away each poll makes at most one reconnect try
        (50 ms doubling to 1 s between tries) and reports ("link",
        "reconnecting"); after `give_up_after` seconds (None: never) it raises
        Disconnected."""
        out = self._poll(timeout)
        if out:
            for watch in self.watchers:
                watch(out)
        return out

    def _poll(self, timeout: float = 0.1) -> list:
        # poll() without the watchers
        out: list = []
        if not self.link.is_open:
            self._try_reconnect(out, timeout)
            return out
        try:
            events = self.link.read(timeout)
        except Disconnected as e:
            self._lost(out, str(e))
            return out
        with self.lock:
            self._apply(events, out)
            if self.replica.awaiting and self.clock() - self.heard_at > SYNC_WAIT:
                # an answer that never came, or stopped half-way (its sync or
                # one of its lines lost): asked again, never waited for forever
                for note in self.replica.spoiled(f"no answer to the sync for {SYNC_WAIT:.0f} s"):
                    out.append(("note", note))
        if self.replica.needs_sync and self.link.is_open and self.clock() - self.synced_at >= self.sync_interval():
            try:
                self._sync()
            except Disconnected as e:
                self._lost(out, str(e))
        return out

    def _apply(self, events: list, out: list) -> None:
        for ev in events:
            try:
                self._apply_one(ev, out)
            except Exception as e:  # noqa: BLE001 - a bug must show, never stop the reader
                for note in self.replica.lost(f"the mirror could not use a line from the board ({e!r})"):
                    out.append(("note", note))
        if self.link.gaps != self.gaps_seen:
            self.gaps_seen = self.link.gaps
            if self.replica.in_sync:
                for note in self.replica.lost("frames from the board went missing"):
                    out.append(("note", note))

    def _apply_one(self, ev, out: list) -> None:
        if isinstance(ev, Frame):
            out.append(("frame", ev))
            self._keep(ev)
            if ev.kind in ("state", "log"):
                self.heard_at = self.clock()  # a sync's answer under way
            if ev.kind in ("hello", "state") and ev.payload.get("log"):
                self._log_report(ev.payload["log"], out)
            if ev.kind in ("hello", "state") and ev.payload.get("calibration") not in (None, self.calibration):
                self.calibration = ev.payload["calibration"]
                out.append(("note", f"the board measured a sensor's empty level again: {self.calibration}"))
            for note in self.replica.handle(ev):
                out.append(("note", note))
            if ev.kind == "synced":
                self.link.pending_new.clear()
            elif ev.kind == "ok" and ev.payload.get("re") == self.sync_seq:
                self.sync_answered = True  # the board's own answer to our sync is all in
        elif isinstance(ev, Raw):
            out.append(("raw", ev.text))
        else:
            # a damaged or overlong line may have been an action: check
            out.append(("bad", ev))
            rep = self.replica
            if rep.in_sync or rep.awaiting:  # (a sync's answer may have lost a line too)
                for note in rep.spoiled("a line from the board was damaged or unusable"):
                    out.append(("note", note))

    def _log_report(self, text: str, out: list) -> None:
        # The board keeps saying what its game log lost until a host has
        # shown it and says so (`ack`); said once here. A board whose every
        # hello brings another report (a hostile one) gets at most one noted
        # and acknowledged a second: a board's own report comes again in its
        # next hello or state until acknowledged, so none is lost.
        if text == self.log_report:
            return
        now = time.monotonic()
        if now - self.report_at < REPORT_EVERY:
            self.reports_held += 1
            return
        self.report_at = now
        more = (f" ({self.reports_held} other reports came since the last one shown: one a second is shown)"
                if self.reports_held else "")
        self.reports_held = 0
        self.log_report = text
        self.log_reports.append(text)
        out.append(("note", f"the board's game log was damaged: {text}{more}"))
        try:
            self.link.send("ack", {"log": text})
        except LinkError:
            self.log_report = None  # said again when the board is back

    def _lost(self, out: list, why: str) -> None:
        self.connected = False
        self.link.close()
        self.lost_at = self.clock()
        self.next_try = self.lost_at
        self.delay = 0.05
        self.replica.in_sync = False
        self.replica.syncing = None
        self.replica.awaiting = False
        out.append(("link", "lost"))
        out.append(("note", f"lost the board: {why}; reconnecting"))

    def _keep(self, f: Frame) -> None:
        if f.kind == "hello":
            self.hello = f.payload
        elif f.kind == "leds":
            start = f.payload.get("from", 0)
            colours = f.payload.get("c") or []
            if isinstance(start, int) and 0 <= start < 4096 and isinstance(colours, list):
                if len(self.leds) < start + len(colours):
                    self.leds.extend(["000000"] * (start + len(colours) - len(self.leds)))
                self.leds[start:start + len(colours)] = [str(c) for c in colours]
        elif f.kind == "status":
            self.status = f.payload
        elif f.kind == "prompt":
            # shown as it is: only a prompt with a list of choices
            self.prompt = f.payload if isinstance(f.payload.get("choices"), list) else None
        elif f.kind == "closed":
            if self.prompt and self.prompt.get("id") == f.payload.get("id"):
                self.prompt = None
        elif f.kind == "state":
            self.prompt = None
            self.seats = f.payload.get("seats")
            self.dice = f.payload.get("dice")

    def _try_reconnect(self, out: list, timeout: float) -> None:
        now = self.clock()
        if now < self.next_try:
            time.sleep(min(timeout, self.next_try - now))
            return
        out.append(("link", "reconnecting"))
        try:
            self.hello = self.link.open(timeout=1.0)
        except (PortError, NotOurDevice, Disconnected, LinkTimeout) as e:
            if self.give_up_after is not None and self.clock() - self.lost_at > self.give_up_after:
                raise Disconnected(
                    f"the board on {self.link.port} did not come back within "
                    f"{self.give_up_after:.0f} s ({e}). Check the cable, then start again."
                ) from None
            self.delay = min(1.0, self.delay * 2)
            self.next_try = self.clock() + self.delay
            return
        self.connected = True
        self.reconnects += 1
        self._sync()
        out.append(("link", "connected"))
        out.append(("note", f"reconnected to {self.link.port}; resyncing"))

    def wait_synced(self, timeout: float = 5.0, answered: bool = False) -> list:
        """Poll until the replica is in sync (and the game of any `new` sent
        has arrived; with `answered`, the `ok` that ends the board's answer
        to the last sync sent too); returns the events seen."""
        seen: list = []
        deadline = time.monotonic() + timeout
        while (not self.replica.in_sync or self.replica.awaiting or self.link.pending_new
               or (answered and not self.sync_answered)):
            if time.monotonic() > deadline:
                raise LinkError(f"the board on {self.link.port} did not finish a sync in {timeout:.0f} s")
            seen.extend(self.poll(0.05))
        return seen
