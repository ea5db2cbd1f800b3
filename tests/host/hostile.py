"""A hostile board for the host: a grammar-aware generator of device lines and
a fake board that speaks them on a real pty.

The generator knows the protocol's grammar (docs/protocol.md): most lines are
well-sealed frames (a right CRC, so they pass the parser's checks) of every
kind the board sends, some unknown kinds, with payloads built from a good
payload and then spoiled: every field given a value of another type, Unicode
digits for numbers and sequence numbers, huge lists and strings, deep
nesting, fields missing or added. Between them come a real game's frames
(its sync and actions), so the host has a game to follow, and some damaged,
overlong and raw lines.

FakeBoard plays the far end of a serial port (pyserial on os.openpty()): it
answers hello, sync (a real game's state, log and synced) and every other
command with ok, while a writer thread streams `lines` generated lines (a
sync asked meanwhile is answered in among them); then it stays quiet but for
its answers, so the host must get back in step.
"""

from __future__ import annotations

import json
import os
import random
import select
import sys
import threading
import tty
from collections import deque

from controller import frames
from turtleboard.connection.link import PROTO
from turtleboard.connection.replica import hash_text
from turtleboard.connection.schema import SCHEMA
from turtles import new_game

UNKNOWN_KINDS = ["zz", "HELLO", "", "é", "[bold]x[/bold]", "\x1b[2J", "action2", "0"]
UNICODE_DIGITS = ["²", "①", "٣", "９", "৪", "𝟘", "१२"]
HOSTILE_TEXTS = ["", "²", "①", "١٢", "x" * 700, "[bold red]boom[/]", "[/]", "\x1b]0;pwn\x07\x1b[31m",
                 "\u202e\u0000", "\ud800", "\udfff", "🐢" * 50, "a\nb", "\r", "${x}", "%s%n"]


def hostile_value(r: random.Random, depth: int = 0):
    """Any JSON value, mostly the wrong one."""
    k = r.randrange(14 if depth < 3 else 9)
    if k == 0:
        return None
    if k == 1:
        return r.choice([True, False])
    if k == 2:
        return r.choice([0, -1, 1, 7, 65535, 65536, 2**31, -2**63, 10**40, 10**300])
    if k == 3:
        return r.choice([1.5, -0.0, 1e308, float("inf"), float("-inf"), float("nan")])
    if k in (4, 5):
        return r.choice(HOSTILE_TEXTS)
    if k == 6:
        return r.choice(UNICODE_DIGITS) * r.randrange(1, 4)
    if k == 7:  # a huge list (it may not fit a line: then an overlong one)
        return [r.choice([1, "a", None, [1]])] * r.choice([50, 300, 2000])
    if k == 8:  # deep nesting
        v = 1
        for _ in range(r.choice([20, 200, 3000])):
            v = [v] if r.random() < 0.5 else {"a": v}
        return v
    if k in (9, 10):
        return [hostile_value(r, depth + 1) for _ in range(r.randrange(4))]
    return {r.choice(["a", "n", "text", "re", "0", ""]): hostile_value(r, depth + 1) for _ in range(r.randrange(4))}


def good_payload(kind: str, r: random.Random, game) -> dict:
    """A payload of `kind` as a board sends it (game: a turtles Game)."""
    n = len(game.history)
    h = hash_text(game.state_hash())
    text = game.action_text(game.history[-1]) if game.history else "d3"
    return {
        "hello": {"fw": "0.1.0", "proto": PROTO, "board": "test", "board_version": 1, "game": game.name,
                  "n": n, "hash": h, "log": None},
        "action": {"n": n, "text": text, "hash": h, "by": "sensors"},
        "undone": {"n": n, "hash": h},
        "state": {"game": game.name, "players": game.players, "options": game.options, "dice": "electronic",
                  "seats": None, "n": n, "hash": h, "over": False, "result": None, "log": None},
        "log": {"from": 0, "actions": [text]},
        "synced": {"n": n, "hash": h},
        "prompt": {"id": r.randrange(1, 9), "kind": "move", "text": "which?", "choices": ["a1-b2", "cancel"],
                   "current": 0},
        "closed": {"id": 1, "choice": None},
        "status": {"text": "player 1 to move", "expect": {"off": ["a1"], "on": ["b2"]}},
        "leds": {"from": r.randrange(40), "c": ["ff0000", "00ff00"]},
        "hint": {"n": n, "player": 0, "level": "good", "text": text, "by": "host"},
        "sense": {"raw": [32768, 40000], "image": [0, 1]},
        "channels": {"raw": [1, 2, 3], "held": []},
        "error": {"code": "sensor", "msg": "the sensor of a1 is dead", "re": r.randrange(5)},
        "ok": {"re": r.randrange(65536)},
    }.get(kind, {"a": 1})


def spoil(kind: str, payload: dict, r: random.Random) -> dict:
    """The payload with one to three fields given hostile values, dropped or added."""
    payload = dict(payload)
    for _ in range(r.randrange(1, 4)):
        op = r.randrange(6)
        keys = sorted(payload)
        if op < 4 and keys:
            payload[r.choice(keys)] = hostile_value(r)
        elif op == 4 and keys:
            del payload[r.choice(keys)]
        else:
            payload[r.choice(["zz", "n", "re", "log", "seats", "geometry", "😀"])] = hostile_value(r)
    return payload


def seal(seq, kind: str, payload_text: str) -> str:
    body = "%s%s %s %s" % (frames.MARKER, seq, kind, payload_text)
    return "%s *%04x" % (body, frames.crc16(body.encode("utf-8", "surrogatepass")))


def json_text(payload, ascii_only: bool = False) -> str:
    # (ascii_only: a lone surrogate goes over the wire as \ud800 and reaches the host)
    try:
        return json.dumps(payload, sort_keys=True, ensure_ascii=ascii_only)
    except (ValueError, RecursionError):
        return "{}"


class Generator:
    """Device lines, seeded. `next_line()` -> bytes ending in a newline."""

    def __init__(self, seed: int):
        self.r = random.Random(seed)
        self.seq = 0
        self.queue: list[bytes] = []
        self.game = None

    def _frame(self, kind, payload, seq=None) -> bytes:
        self.seq = (self.seq + 1) & 0xFFFF
        line = seal(self.seq if seq is None else seq, kind, json_text(payload, self.r.random() < 0.3))
        return line.encode("utf-8", "surrogatepass") + b"\n"

    def _script(self) -> None:
        # A real game: its sync answer, then some actions and maybe a takeback.
        r = self.r
        name = r.choice(["mahe", "race", "tortuga"])
        g = new_game(name, 2)
        self.queue.append(self._frame("state", good_payload("state", r, g)))
        self.queue.append(self._frame("log", {"from": 0, "actions": []}))
        self.queue.append(self._frame("synced", good_payload("synced", r, g)))
        for _ in range(r.randrange(10)):
            if g.is_over():
                break
            g.push(r.choice(g.legal_actions()))
            self.queue.append(self._frame("action", good_payload("action", r, g)))
        if g.history and r.random() < 0.3:
            g.undo()
            self.queue.append(self._frame("undone", good_payload("undone", r, g)))
        self.game = g

    def next_line(self) -> bytes:
        r = self.r
        k = r.randrange(100)
        if k < 30 or self.game is None:
            if not self.queue:
                self._script()
            return self.queue.pop(0)
        kind = r.choice(list(SCHEMA)) if k < 88 else r.choice(UNKNOWN_KINDS)
        payload = spoil(kind, good_payload(kind, r, self.game), r)
        if k < 92:
            return self._frame(kind, payload)
        if k < 95:  # a Unicode digit for the sequence number, under a right CRC
            return self._frame(kind, payload, seq=r.choice(UNICODE_DIGITS))
        if k < 97:  # a JSON payload that is no object, or no JSON
            text = r.choice([json_text([payload]), "[]", "1", '"x"', "{", "{" * 5000, "null"])
            return seal(self.seq, kind, text).encode("utf-8", "surrogatepass") + b"\n"
        if k < 98:  # a damaged frame
            line = bytearray(self._frame(kind, payload))
            line[r.randrange(len(line) - 1)] ^= 1 << r.randrange(7)
            return bytes(line)
        if k < 99:  # raw bytes: boot text, a traceback, binary
            return bytes(r.randrange(256) for _ in range(r.randrange(80))).replace(b"\n", b"") + b"\r\n"
        return b"~TB 1 status " + b"x" * r.choice([1100, 5000]) + b"\n"  # overlong


class FakeBoard:
    """The board end of a pty: answers the host, streams generated lines."""

    def __init__(self, seed: int = 1, lines: int = 1000, game: str = "mahe", actions: int = 6):
        self.master, slave = os.openpty()
        tty.setraw(slave)
        os.set_blocking(self.master, False)
        self.slave = slave
        self.path = os.ttyname(slave)
        self.gen = Generator(seed)
        self.lines = lines
        self.sent = 0  # generated lines written
        # the kinds of the host's frames, the last 10,000 (a long flood's syncs)
        self.received: deque = deque(maxlen=10000)
        self.game = new_game(game, 2)
        r = random.Random(seed)
        for _ in range(actions):
            if self.game.legal_actions():
                self.game.push(r.choice(self.game.legal_actions()))
        self.seq = 0
        self.report: str | None = None  # a game log damage report, until acknowledged
        self.flooding = threading.Event()
        self.done = threading.Event()
        self._wlock = threading.Lock()
        self._plock = threading.Lock()
        self.pending: list[bytes] = []  # answers to syncs asked during the flood
        self._stop = False
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        self._writer = threading.Thread(target=self._flood, daemon=True)

    def start_flood(self, more: int | None = None) -> None:
        """Stream the generated lines; again after `done`, `more` lines more."""
        if more is not None:
            self._writer.join()
            self.lines = self.sent + more
            self._writer = threading.Thread(target=self._flood, daemon=True)
            self.done.clear()
        self.flooding.set()
        self._writer.start()

    def frame(self, kind, payload) -> bytes:
        self.seq = (self.seq + 1) & 0xFFFF
        return (frames.encode(self.seq, kind, payload) + "\r\n").encode()

    def write(self, data: bytes) -> None:
        with self._wlock:
            view = memoryview(data)
            while view and not self._stop:
                try:
                    n = os.write(self.master, view)
                except BlockingIOError:  # the host reads no more (yet): wait, or stop when told
                    select.select([], [self.master], [], 0.05)
                    continue
                except OSError:
                    return
                view = view[n:]

    def hello(self) -> dict:
        g = self.game
        return {"fw": "0.1.0", "proto": PROTO, "board": "Mahé reference board", "board_version": 1,
                "game": g.name, "n": len(g.history), "hash": hash_text(g.state_hash()), "log": self.report}

    def sync_answer(self) -> list[bytes]:
        g = self.game
        h = hash_text(g.state_hash())
        texts = [g.action_text(a) for a in g.history]
        return [self.frame("state", {"game": g.name, "players": g.players, "options": g.options,
                                     "dice": "electronic", "seats": None, "n": len(texts), "hash": h,
                                     "over": g.is_over(), "result": None, "log": self.report}),
                self.frame("log", {"from": 0, "actions": texts}),
                self.frame("synced", {"n": len(texts), "hash": h})]

    def play(self) -> dict:
        """The board commits one more action (a real one) and says so."""
        g = self.game
        if not g.legal_actions():  # (over: the takeback is an action frame too, in words)
            g.undo()
        g.push(random.Random(len(g.history)).choice(g.legal_actions()))
        payload = {"n": len(g.history), "text": g.action_text(g.history[-1]),
                   "hash": hash_text(g.state_hash()), "by": "sensors"}
        self.write(self.frame("action", payload))
        return payload

    def _answer(self, seq, kind, payload) -> None:
        self.received.append(sys.intern(kind))
        out = []
        if kind == "hello":
            out.append(self.frame("hello", self.hello()))
        elif kind == "sync":
            if self.flooding.is_set() and not self.done.is_set():
                with self._plock:  # in among the flood's lines: spoiled, most of the time
                    self.pending.extend(self.sync_answer() + [self.frame("ok", {"re": seq})])
                return
            out.extend(self.sync_answer())
        elif kind == "ack" and payload.get("log") == self.report:
            self.report = None
        out.append(self.frame("ok", {"re": seq}))
        self.write(b"".join(out))

    def _read(self) -> None:
        reader = frames.LineReader()
        while not self._stop:
            try:
                ready, _, _ = select.select([self.master], [], [], 0.05)
                if not ready:
                    continue
                data = os.read(self.master, 4096)
            except OSError:
                return
            for line in reader.feed(data):
                if not line or not frames.is_frame(line):
                    continue
                try:
                    seq, kind, payload = frames.decode(line)
                except frames.FrameError:
                    self.write(self.frame("error", {"code": "bad-frame", "msg": "dropped a damaged frame"}))
                    continue
                self._answer(seq, kind, payload)

    def _flood(self) -> None:
        batch = []
        while self.sent < self.lines and not self._stop:
            batch.append(self.gen.next_line())
            self.sent += 1
            if len(batch) >= 20:
                # the answers to syncs go out every 200 lines, in among them
                self.write(b"".join(batch + (self._pending() if self.sent % 200 == 0 else [])))
                batch = []
        self.done.set()
        self.write(b"".join(batch + self._pending()))

    def _pending(self) -> list[bytes]:
        with self._plock:
            out, self.pending = self.pending, []
        return out

    def close(self) -> None:
        self._stop = True
        for t in (self._reader, self._writer):
            if t.is_alive():
                t.join(2)
        for fd in (self.master, self.slave):
            try:
                os.close(fd)
            except OSError:
                pass
