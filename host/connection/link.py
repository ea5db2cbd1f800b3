"""The serial link to a board: frames in and out over pyserial.

    link = Link("/dev/ttyACM0")      # or the pty printed by `turtleboard sim` (or its <dir>/pty file)
    hello = link.open()              # opens exclusively, says hello, checks versions
    seq = link.send("sync")          # -> the seq number the frame went out with
    for ev in link.read(0.1):        # Frame, Raw, Damaged or Overlong events
        ...
    ok = link.command("bright", {"level": 40})   # waits for ok (or raises DeviceError)
    link.reopen()                    # after Disconnected: retry with backoff, hello again
    link.close()

Events (what read() returns, in arrival order):
    Frame(seq, kind, payload)   a good protocol frame from the device
    Raw(text)                   any other line: boot text, a traceback, the REPL
    Damaged(text, why)          a line with the frame marker that failed its check,
                                or a good frame with a field of the wrong type
                                (connection/schema.py): never handed on as a Frame
    Overlong(length)            a line longer than frames.MAX_LINE, dropped

Errors (all UserError subclasses, so the CLI prints the message, not a trace):
    PortError       the port does not exist, is busy (someone else has it open),
                    or cannot be opened
    NotOurDevice    something answers (or nothing does) but not a Turtleboard hello
    VersionMismatch the board speaks another protocol version
    Disconnected    the port went away while open (unplugged, device restarted)
    DeviceError     the device answered a command with an `error` frame
    LinkTimeout     no answer in time

Thread use: one reader at a time (read/wait_for/command); send() may be called
from another thread (writes are locked).
"""

from __future__ import annotations

import errno
import os
import select
import threading
import time
from collections import deque
from typing import NamedTuple

import serial

from controller import frames
from turtleboard import __version__
from turtleboard.connection.schema import problem
from turtleboard.errors import UserError
from turtleboard.sim.lock import LOCK_FILE, PORT_FILE, folder_served

PROTO = 1  # the protocol version this host speaks (docs/protocol.md)
BAUD = 115200
BACKLOG_MAX = 4096  # events kept for the next read(); beyond it the oldest go (a gap)
REAL_WAIT_MAX = 20  # a wait on another clock (a simulated table's) ends after this many times its timeout of real time


class Frame(NamedTuple):
    seq: int
    kind: str
    payload: dict


class Raw(NamedTuple):
    text: str


class Damaged(NamedTuple):
    text: str
    why: str


class Overlong(NamedTuple):
    length: int


class LinkError(UserError):
    pass


class PortError(LinkError):
    pass


class NotOurDevice(LinkError):
    pass


class VersionMismatch(LinkError):
    pass


class Disconnected(LinkError):
    pass


class LinkTimeout(LinkError):
    pass


class DeviceError(LinkError):
    def __init__(self, code, msg):
        LinkError.__init__(self, f"the board says: {msg} ({code})")
        self.code = code
        self.msg = msg


def describe_open_error(port: str, err: Exception) -> str:
    """A message for a port that would not open: what happened and what to do."""
    text = str(err)
    low = text.lower()
    if os.path.isdir(port):
        return f"{port} is a folder, not a serial port: `turtleboard devices` lists the ports"
    if not os.path.exists(port):
        return (
            f"no such port: {port}. Is the board plugged in (or the virtual board started "
            f"with `turtleboard sim`)? `turtleboard devices` lists the ports."
        )
    if "lock" in low or "busy" in low or getattr(err, "errno", None) == errno.EBUSY:
        return (
            f"{port} is busy: another program has it open (a `turtleboard play` or "
            f"`console`, mpremote, a serial terminal). Close that one first."
        )
    if "permission" in low or getattr(err, "errno", None) == errno.EACCES:
        return (
            f"no permission to open {port}. On Linux add yourself to the 'dialout' "
            f"group (sudo usermod -aG dialout $USER) and log in again."
        )
    return f"cannot open {port}: {text}"


def open_port(port: str, baud: int = BAUD, exclusive: bool = True) -> serial.Serial:
    """Open a serial port (or pty) raw, non-blocking-ish, exclusively locked."""
    try:
        return serial.Serial(port, baud, timeout=0, write_timeout=2, exclusive=exclusive)
    except (serial.SerialException, OSError, ValueError) as e:
        raise PortError(describe_open_error(port, e)) from None


class Link:
    """One board on one serial port. See the module docstring."""

    def __init__(self, port: str, baud: int = BAUD, exclusive: bool = True):
        self.port = port
        self.baud = baud
        self.exclusive = exclusive
        self.ser: serial.Serial | None = None
        self.reader = frames.LineReader()
        self.backlog: deque = deque()  # events read while waiting for something else
        self.seq = 0
        self.rx_seq: int | None = None
        self.hello: dict | None = None
        # counters, for the status line and the console
        self.damaged = 0
        self.unusable = 0  # good frames with a field of the wrong type (counted in damaged too)
        self.overlong = 0
        self.gaps = 0
        self.frames_in = 0
        self.frames_out = 0
        # seqs of `new` commands whose game has not come back yet (the Mirror
        # clears this when the board's `synced` has been applied)
        self.pending_new: set[int] = set()
        self._wlock = threading.Lock()
        # the clock its waits for an answer are measured on (seconds): a
        # simulated table's own, which stands still while its board boots
        self.clock = time.monotonic

    # ---- opening and closing ------------------------------------------

    @property
    def is_open(self) -> bool:
        return self.ser is not None

    def device_path(self) -> str:
        """The port to open. `port` may also name a small file holding the
        path (the virtual board's <dir>/pty), read again at every (re)open, so
        a virtual board restarted on a new pty is found again."""
        if os.path.isfile(self.port):
            folder = os.path.dirname(os.path.abspath(self.port))
            if os.path.basename(self.port) != PORT_FILE and not os.path.exists(
                    os.path.join(folder, LOCK_FILE)):
                raise PortError(
                    f"{self.port} is a file, not a serial port: give the board's port "
                    f"(`turtleboard devices` lists them) or a virtual board's DIR/{PORT_FILE}")
            try:
                with open(self.port, encoding="utf-8") as f:
                    path = f.read().strip()
            except (OSError, UnicodeError) as e:
                raise PortError(f"cannot read the port file {self.port}: {e}") from None
            if not path:
                raise PortError(f"the port file {self.port} is empty (is the virtual board starting?)")
            if not folder_served(folder):
                # left by a virtual board that was stopped or killed: its pty
                # number may belong to another program's terminal by now
                raise PortError(
                    f"the virtual board of {folder} is not running ({self.port} is left over "
                    f"from one that stopped). Start it: turtleboard sim --dir {folder} --board ..."
                )
            return path
        return self.port

    def connect(self) -> None:
        """Open the port only (no hello). A newline goes out first: it ends
        any partial line a previous host left in the device's reader, which
        would otherwise spoil our first frame; what the device had sent
        before we came is dropped."""
        self.close()
        self.ser = open_port(self.device_path(), self.baud, self.exclusive)
        self.reader = frames.LineReader()
        self.rx_seq = None
        self.backlog.clear()
        try:
            self.ser.reset_input_buffer()
        except (serial.SerialException, OSError):
            pass
        self.write_raw(b"\n")

    def open(self, timeout: float = 3.0) -> dict:
        """Open the port and do the hello handshake; returns the hello payload."""
        self.connect()
        try:
            return self.handshake(timeout)
        except LinkError:
            self.close()
            raise

    def close(self) -> None:
        if self.ser is not None:
            try:
                self.ser.close()
            except (serial.SerialException, OSError):
                pass
            self.ser = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def reopen(self, give_up_after: float = 30.0, on_try=None) -> dict:
        """Reconnect after a disconnect: retry with backoff (50 ms doubling to
        1 s) until a hello comes back or `give_up_after` seconds pass.
        `on_try(attempt, error_text)` is called before each wait."""
        self.close()
        deadline = time.monotonic() + give_up_after
        delay = 0.05
        attempt = 0
        while True:
            attempt += 1
            try:
                return self.open(timeout=min(3.0, max(0.5, deadline - time.monotonic())))
            except (PortError, NotOurDevice, Disconnected, LinkTimeout) as e:
                if time.monotonic() + delay > deadline:
                    raise Disconnected(
                        f"the board on {self.port} did not come back within "
                        f"{give_up_after:.0f} s ({e}). Check the cable, then try again."
                    ) from None
                if on_try:
                    on_try(attempt, str(e))
                time.sleep(delay)
                delay = min(1.0, delay * 2)

    # ---- sending --------------------------------------------------------

    def send(self, kind: str, payload: dict | None = None) -> int:
        """Send one frame; returns its seq."""
        if self.ser is None:
            raise Disconnected(f"the link to {self.port} is not open")
        with self._wlock:
            self.seq = (self.seq + 1) & 0xFFFF
            seq = self.seq
            line = frames.encode(seq, kind, payload or {}) + "\n"
            try:
                self.ser.write(line.encode())
                self.ser.flush()
            except (serial.SerialException, OSError) as e:
                self.close()
                raise Disconnected(f"lost {self.port} while sending: {e}") from None
            self.frames_out += 1
            if kind == "new":
                self.pending_new.add(seq)
        return seq

    def write_raw(self, data: bytes) -> None:
        """Bytes straight to the port (the console's REPL pass-through)."""
        if self.ser is None:
            raise Disconnected(f"the link to {self.port} is not open")
        with self._wlock:
            try:
                self.ser.write(data)
                self.ser.flush()
            except (serial.SerialException, OSError) as e:
                self.close()
                raise Disconnected(f"lost {self.port} while sending: {e}") from None

    # ---- receiving ------------------------------------------------------

    def read_bytes(self, timeout: float = 0.1) -> bytes:
        """Whatever bytes arrive within `timeout` (b"" if none)."""
        if self.ser is None:
            raise Disconnected(f"the link to {self.port} is not open")
        ser = self.ser
        try:
            if os.name == "posix":
                # wait with select: changing ser.timeout would reprogram the
                # port (a tcsetattr) on every read
                ready, _, _ = select.select([ser.fileno()], [], [], timeout)
                if not ready:
                    return b""
                return ser.read(max(1, ser.in_waiting))  # the port's timeout is 0
            ser.timeout = timeout
            data = ser.read(1)
            if data:
                ser.timeout = 0
                waiting = ser.in_waiting
                if waiting:
                    data += ser.read(waiting)
            return data
        except (serial.SerialException, OSError, TypeError, ValueError) as e:
            # pyserial reports a vanished pty/USB device as "readiness to read
            # but returned no data"; TypeError comes from a port closed by
            # another thread mid-read.
            self.close()
            raise Disconnected(
                f"{self.port} closed (unplugged, or the board restarted): {e}"
            ) from None

    def _decode_lines(self, lines) -> list:
        out = []
        for line in lines:
            if line is None:
                self.overlong += 1
                out.append(Overlong(frames.MAX_LINE))
            elif frames.is_frame(line):
                try:
                    seq, kind, payload = frames.decode(line)
                except frames.FrameError as e:
                    self.damaged += 1
                    out.append(Damaged(line, str(e)))
                    continue
                if self.rx_seq is not None and seq != (self.rx_seq + 1) & 0xFFFF:
                    self.gaps += 1
                self.rx_seq = seq
                self.frames_in += 1
                why = problem(kind, payload)
                if why is not None:
                    self.damaged += 1
                    self.unusable += 1
                    out.append(Damaged(line, f"a frame the host cannot use: {why}"))
                    continue
                re = payload.get("re")
                if kind == "error" and isinstance(re, int):  # a refused `new` brings no game
                    self.pending_new.discard(re)
                out.append(Frame(seq, kind, payload))
            elif line:
                out.append(Raw(line))
        return out

    def read(self, timeout: float = 0.1) -> list:
        """Events that arrived (waits up to `timeout` for the first bytes)."""
        if self.backlog:
            out = list(self.backlog)
            self.backlog.clear()
            return out
        data = self.read_bytes(timeout)
        return self._decode_lines(self.reader.feed(data)) if data else []

    def wait_for(self, kinds, timeout: float = 2.0, match=None) -> Frame:
        """Read until a frame of one of `kinds` (that `match(frame)` accepts)
        arrives; other events are kept in order for the next read()."""
        if isinstance(kinds, str):
            kinds = (kinds,)
        deadline = self.clock() + timeout
        real_end = time.monotonic() + timeout * REAL_WAIT_MAX
        kept = []
        pending = list(self.backlog)
        self.backlog.clear()
        try:
            while True:
                for i, ev in enumerate(pending):
                    if isinstance(ev, Frame) and ev.kind in kinds and (match is None or match(ev)):
                        kept.extend(pending[i + 1:])
                        return ev
                    kept.append(ev)
                if len(kept) > BACKLOG_MAX:
                    del kept[:len(kept) - BACKLOG_MAX]
                    self.gaps += 1
                left = deadline - self.clock()
                if left <= 0 or time.monotonic() > real_end:
                    raise LinkTimeout(
                        f"no {'/'.join(kinds)} from {self.port} within {timeout:.1f} s"
                    )
                data = self.read_bytes(min(left, 0.05))
                pending = self._decode_lines(self.reader.feed(data)) if data else []
        finally:
            self._keep(kept)

    def _keep(self, events: list) -> None:
        # Bounded: a board that floods the port while nobody reads loses its
        # oldest events, counted as a gap (the mirror then resyncs).
        self.backlog.extend(events)
        over = len(self.backlog) - BACKLOG_MAX
        if over > 0:
            for _ in range(over):
                self.backlog.popleft()
            self.gaps += 1

    def command(self, kind: str, payload: dict | None = None, timeout: float = 2.0) -> Frame:
        """Send a command and wait for its `ok` (returned); an `error` that
        answers it (its `re` names the command) raises DeviceError."""
        seq = self.send(kind, payload)

        def answers(f: Frame) -> bool:
            # An error without `re` (a sensor or log error, a line the device
            # could not read, maybe a previous host's) is not this answer.
            return f.payload.get("re") == seq

        f = self.wait_for(("ok", "error"), timeout, answers)
        if f.kind == "error":
            raise DeviceError(f.payload.get("code", "?"), f.payload.get("msg", "unknown error"))
        return f

    # ---- handshake ------------------------------------------------------

    def handshake(self, timeout: float = 3.0) -> dict:
        """Say hello and check the answer. Raises NotOurDevice when nothing
        speaks our frames (showing the last raw lines seen), VersionMismatch
        for another protocol version."""
        raw_seen: list[str] = []
        echoed = False
        deadline = self.clock() + timeout
        real_end = time.monotonic() + timeout * REAL_WAIT_MAX
        tries = 0
        hello = None
        while hello is None:
            left = deadline - self.clock()
            if left <= 0 or time.monotonic() > real_end:
                break
            if tries < 3:
                self.send("hello", {"host": f"turtleboard {__version__}", "proto": PROTO})
                tries += 1
            try:
                hello = self.wait_for("hello", min(left, 1.0))
            except LinkTimeout:
                pass
            if hello is not None and "host" in hello.payload:
                # our own hello coming back: a REPL (or a loop-back) echoes
                # what we send
                echoed = True
                hello = None
            for ev in list(self.backlog):
                if isinstance(ev, Raw):
                    raw_seen.append(ev.text)
        if hello is None:
            if echoed:
                raise NotOurDevice(
                    f"{self.port} echoes what we send: a plain MicroPython REPL (or a serial "
                    f"loop-back), not a Turtleboard. To put the firmware on a Pico: "
                    f"turtleboard flash --port {self.port} --board <board file or mahe|race|tortuga>"
                )
            if raw_seen:
                tail = " | ".join(t.strip() for t in raw_seen[-3:])[:200]
                raise NotOurDevice(
                    f"{self.port} answers, but not as a Turtleboard (it said: {tail!r}). "
                    f"If it is a Pico with plain MicroPython, put the firmware on it: "
                    f"turtleboard flash --port {self.port} --board <board file or mahe|race|tortuga>"
                )
            raise NotOurDevice(
                f"no Turtleboard answers on {self.port} (nothing came back in "
                f"{timeout:.0f} s). Is it the right port (`turtleboard devices --probe`)? "
                f"Is the firmware on it (`turtleboard flash`)?"
            )
        p = hello.payload
        if p.get("proto") != PROTO:
            raise VersionMismatch(
                f"the board on {self.port} speaks protocol {p.get('proto')!r} "
                f"(firmware {p.get('fw')!r}) but this host speaks protocol {PROTO}. "
                f"Update the firmware with `turtleboard flash`, or use the matching "
                f"turtleboard version."
            )
        # hello frames and raw boot text stay in the backlog for the caller
        self.hello = p
        return p
