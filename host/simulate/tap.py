"""What the table sees of the board: every frame the firmware writes, read
off the wire before the host gets it (whether a host listens or not), so
the people and the promises follow the board in the simulator's own order.

The tap keeps its own replica of the game: from the frames the board
sends (a `new`'s answer, a host's syncs, every action and takeback) and,
after a boot, from the game log on the board's flash, which is what the
board restored (checked against the hello's hash).
"""

from __future__ import annotations

import collections
import os

from controller import frames
from controller.gamelog import GameLog
from turtleboard.connection.link import Frame
from turtleboard.connection.replica import Replica
from turtles import new_game

RECENT = 256  # games the tap keeps, one a change: a page that stopped reading gets the states
              # queued for it when it reads again, of a game maybe since replaced (seed 947)


class Tap:
    def __init__(self, flash_dir: str, geometry=None):
        self.flash_dir = flash_dir
        self.geometry = geometry
        self.reader = frames.LineReader()
        self.replica = Replica(geometry)
        self.hello: dict | None = None
        self.prompt: dict | None = None
        self.status: dict | None = None
        self.seats: list | None = None
        self.dice: str | None = None
        self.frames = 0
        self.changes = 0  # the game changed (an action, a takeback, a new game, a boot)
        self.hellos = 0  # hellos seen: a boot, or the answer to a host's handshake
        # the board's last games, one a change: a take-back and another action
        # within one step give two games of one action count, and a page's
        # state of the first is of its moment, not a view of another seat
        self.recent: collections.deque = collections.deque(maxlen=RECENT)
        self.listeners: list = []  # called with every Frame
        self.unreplayable: list[str] = []  # the board's actions the engine here could not replay

    @property
    def game(self):
        return self.replica.game

    def known(self) -> bool:
        """Does the table know the board's game (or that it has none)?"""
        rep = self.replica
        return rep.in_sync and not rep.awaiting

    def ready(self) -> bool:
        return self.known() and self.replica.game is not None

    def booted(self) -> None:
        """A new firmware: what the old one left half-written is gone."""
        self.reader = frames.LineReader()
        self.prompt = None

    def power_off(self) -> None:
        """The board went dark (unplugged): no question open, its game
        unknown until it says hello again."""
        self.prompt = None
        self.status = None
        self.replica.in_sync = False

    def feed(self, data: bytes) -> None:
        for line in self.reader.feed(data):
            if line is None or not frames.is_frame(line):
                continue
            try:
                seq, kind, payload = frames.decode(line)
            except Exception:
                continue
            self.frames += 1
            f = Frame(seq, kind, payload)
            self._keep(f)
            before = (self.replica.n, self.replica.hash())
            for note in self.replica.handle(f):
                if "does not apply" in note or "state hash is" in note or "replays to" in note:
                    self.unreplayable.append(note)
            if kind == "hello":
                self.hello = payload
                self.hellos += 1
                if not self.replica.in_sync or (self.replica.n, self.replica.hash()) != (
                        payload.get("n"), payload.get("hash")):
                    self.from_flash(payload)
            if (self.replica.n, self.replica.hash()) != before or kind in ("synced", "hello"):
                self.changes += 1
                if self.replica.game is not None and self.replica.in_sync:
                    self.recent.append(self.replica.game.copy())
            for fn in list(self.listeners):
                fn(f)

    def _keep(self, f: Frame) -> None:
        p = f.payload
        if f.kind == "prompt" and isinstance(p.get("choices"), list):
            self.prompt = p
        elif f.kind == "closed":
            if self.prompt and self.prompt.get("id") == p.get("id"):
                self.prompt = None
        elif f.kind == "status":
            self.status = p
        elif f.kind == "state":
            self.prompt = None
            self.seats = p.get("seats")
            self.dice = p.get("dice")
        # (a hello closes no question: a boot's is after booted(), which does;
        # one answering a host's handshake leaves the board's question open, seed 702)

    def from_flash(self, hello: dict) -> None:
        """The game the board restored at boot, read from its flash."""
        rep = self.replica
        rep.syncing = None
        rep.awaiting = False
        if not hello.get("game"):
            rep.game = None
            rep.in_sync = True
            rep.needs_sync = False
            self.seats = None
            return
        try:
            saved = GameLog(os.path.join(self.flash_dir, "game.log")).load()
        except Exception:
            saved = None
        rep.in_sync = False
        if saved is None:
            return
        header, texts = saved
        n = hello.get("n")
        if header.get("game") != hello.get("game") or not isinstance(n, int) or n > len(texts):
            return
        try:
            game = new_game(header["game"], header["players"], header.get("options") or {}, self.geometry)
            for text in texts[:n]:
                game.apply_text(text)
        except Exception:
            return
        if "%08x" % game.state_hash() != hello.get("hash"):
            return
        extra = header.get("extra") or {}
        self.seats = extra.get("seats")
        self.dice = extra.get("dice", self.dice)
        rep.game = game
        rep.in_sync = True
        rep.needs_sync = False

    def was_seen(self, name: str, n, view, seat, norm) -> bool:
        """Was `view` seat's view of one of the board's last games of `name`
        at action count n?"""
        for g in self.recent:
            if g.name == name and len(g.history) == n and norm(g.view(seat)) == view:
                return True
        return False
