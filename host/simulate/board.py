"""The virtual board of a simulated table: the real firmware under the
MicroPython unix port on a real pty, its supervisor pumped by the
simulator instead of running its own loop, its clock the simulator's
(firmware/hal/simclock.py, docs/simulation.md).

Every byte is counted: the firmware says with each request for time how
many bytes it has written and read, the host's link how many it has read
and written (CountedLink), so the simulator knows when nothing is in
flight before it lets time go on.
"""

from __future__ import annotations

import os
import select
import signal
import threading
import time

from controller import frames
from turtleboard.connection.link import Link
from turtleboard.sim import device
from turtleboard.sim.lock import lock_folder
from turtleboard.sim.supervisor import Supervisor, set_raw

BOOT_WAIT_S = 30.0  # real seconds a starting MicroPython may take to ask for the time


class BoardGone(RuntimeError):
    """The firmware stopped asking for time (it hangs, or died for good)."""


class CountedLink(Link):
    """The host's link, counting its bytes for the simulator (the port, the
    pty and pyserial are the real ones). Between connect() and close() the
    board forwards the firmware's output to it (a Pico's USB output while
    nobody has the port open is lost)."""

    def __init__(self, port: str, board: VirtualBoard):
        Link.__init__(self, port)
        self.board = board
        self.listening = False
        self.bytes_in = 0
        self.bytes_out = 0
        self.handshaking = False
        self.waiting = False

    def connect(self) -> None:
        with self.board.host_lock:
            self.listening = False
            Link.connect(self)
            self.bytes_in = 0
            self.bytes_out = 1  # the newline connect() sent
            self.board.host_opened(self)
            self.listening = True

    def open(self, timeout: float = 3.0) -> dict:
        self.handshaking = True
        try:
            return Link.open(self, timeout)
        finally:
            self.handshaking = False

    def close(self) -> None:
        self.listening = False
        Link.close(self)

    def read_bytes(self, timeout: float = 0.1) -> bytes:
        # `waiting`: the host's thread is idle, waiting on the board for bytes
        self.waiting = True
        try:
            data = Link.read_bytes(self, timeout)
        finally:
            self.waiting = False
        self.bytes_in += len(data)
        return data

    def send(self, kind: str, payload: dict | None = None) -> int:
        seq = Link.send(self, kind, payload)
        self.bytes_out += len(frames.encode(seq, kind, payload or {})) + 1
        return seq

    def write_raw(self, data: bytes) -> None:
        Link.write_raw(self, data)
        self.bytes_out += len(data)


class Ask:
    """A request of the firmware for time: sleep until `until` (-1: what
    time is it), having written `written` bytes and read `read`, asked at
    its time `at` (when it wrote the bytes not yet seen)."""

    def __init__(self, until: int, written: int, read: int, at: int):
        self.until = until
        self.at = at
        self.written = written
        self.read = read


class VirtualBoard(Supervisor):
    def __init__(self, sim_dir: str, board_path: str, log=None):
        self.dir = os.path.abspath(sim_dir)
        self.board = device.prepare(self.dir, board_path)
        self.lock_fd = lock_folder(self.dir)
        self.world_dir = os.path.join(self.dir, "world")
        for name in ("clock.in", "clock.out"):
            path = os.path.join(self.world_dir, name)
            if os.path.exists(path):
                os.unlink(path)
            os.mkfifo(path)
        # both ends held here for the table's life: the firmware's opens never wait
        self.grants = os.open(os.path.join(self.world_dir, "clock.in"), os.O_RDWR | os.O_NONBLOCK)
        self.asks = os.open(os.path.join(self.world_dir, "clock.out"), os.O_RDWR | os.O_NONBLOCK)
        self._asks_buf = b""
        self.host_lock = threading.Lock()
        self.host_reads = lambda: True  # is the host's reader reading (the table's fault says)
        self.host: CountedLink | None = None  # the link the output goes to
        self.tap = None  # called with every byte the firmware writes (the table's observer)
        self.host_tap = None  # ... and the host
        self.held = bytearray()
        self.on_boot = None  # called when a new firmware starts
        self.ask: Ask | None = None
        self.received = 0  # bytes read from this boot's firmware
        self.fed = 0       # bytes written to it
        self.to_host = 0   # bytes written to the host's port since it connected
        self.from_host = 0  # bytes read from it since then
        self.plugged = True
        Supervisor.__init__(self, os.path.join(self.dir, "flash"), log=log,
                            pid_file=os.path.join(self.dir, "firmware.pid"),
                            romfs=os.path.join(self.dir, device.ROMFS_FILE),
                            # a stock Pico (the log a file) when a soak asks (bench/simulate.py --stock)
                            romfs_bytes=0 if os.environ.get("TURTLEBOARD_SIM_STOCK") else device.ROMFS_BYTES)
        self._write_files()

    def _write_files(self) -> None:
        for name, text in (("pty", self.path), ("pid", str(os.getpid()))):
            with open(os.path.join(self.dir, name + ".tmp"), "w") as f:
                f.write(text + "\n")
            os.replace(os.path.join(self.dir, name + ".tmp"), os.path.join(self.dir, name))

    # -- the firmware --------------------------------------------------------

    def child_env(self) -> dict:
        return {"TURTLEBOARD_SIM_CLOCK": str(self.boots + 1)}

    def start(self, run_main: bool = True) -> None:
        self.ask = None
        self.received = 0
        self.fed = 0
        self._asks_buf = b""
        self.held.clear()
        Supervisor.start(self, run_main)
        if self.on_boot is not None:
            self.on_boot()

    def firmware_pid(self) -> int | None:
        return self.child.pid if self.child is not None and self.child.poll() is None else None

    def power_cut(self) -> None:
        """SIGKILL of the firmware; the supervisor powers it on again (pump())."""
        self.held.clear()
        if self.child is not None and self.child.poll() is None:
            self.child.send_signal(signal.SIGKILL)
            self.child.wait()
        self.ask = None

    def unplug(self) -> None:
        """The USB cable out: the port goes, and the Pico's power with it."""
        self.power_cut()
        if self.inner >= 0:
            os.close(self.inner)
            self.inner = -1
        self.child = None
        self._to_child.clear()
        with self.host_lock:
            for fd in (self.outer, self._outer_slave):
                try:
                    os.close(fd)
                except OSError:
                    pass
            self.outer = self._outer_slave = -1
            self._to_host.clear()
        self.plugged = False

    def replug(self) -> None:
        """The cable in again: a new port (a new path, as USB may give), power on."""
        self.outer, self._outer_slave = os.openpty()
        self.path = os.ttyname(self._outer_slave)
        set_raw(self._outer_slave)
        os.set_blocking(self.outer, False)
        self._write_files()
        self.plugged = True
        self.start()

    # -- bytes ----------------------------------------------------------------

    def host_opened(self, link: CountedLink) -> None:
        # (called with host_lock held, as the link connects)
        self.host = link
        self.to_host = 0
        self.from_host = 0
        self._to_host.clear()

    def _send(self, data: bytes) -> None:
        link = self.host
        if link is None or not link.listening or self.outer < 0:
            return  # nobody has the port open: a Pico's output is lost
        if self.host_reads():
            # a host that reads, however slowly: a Pico's USB output waits
            # for it (flow control), nothing is dropped; the table waits
            # until it has read it all
            self._to_host += data
            self._flush_host()
            return
        Supervisor._send(self, data)  # a stalled reader: kept up to OUT_MAX, then dropped

    def _flush_host(self) -> None:
        with self.host_lock:
            while self._to_host and self.outer >= 0:
                try:
                    n = os.write(self.outer, self._to_host)
                except OSError:
                    return
                del self._to_host[:n]
                self.to_host += n

    def _flush_child(self) -> None:
        while self._to_child and self.inner >= 0:
            try:
                n = os.write(self.inner, self._to_child)
            except OSError:
                return
            del self._to_child[:n]
            self.fed += n

    def _from_child(self, data: bytes) -> None:
        # held until the simulator lets it go (release()): a power cut
        # inside a log write takes what the firmware wrote after it
        self.received += len(data)
        self.held += data

    def release(self) -> None:
        """The firmware's output so far, to the table's tap and the host."""
        data = bytes(self.held)
        self.held.clear()
        if data:
            if self.tap is not None:
                self.tap(data)
            Supervisor._from_child(self, data)

    def drop_held(self) -> None:
        self.held.clear()

    def _reap(self) -> None:
        self.release()
        Supervisor._reap(self)

    def _from_host(self, data: bytes) -> None:
        self.from_host += len(data)
        if self.host_tap is not None:
            self.host_tap(data)
        Supervisor._from_host(self, data)

    def pump(self, timeout: float) -> None:
        """Forward what is ready both ways, read the firmware's request for
        time; reboot a firmware that exited (waits up to `timeout`)."""
        fds = [self.asks]
        if self.inner >= 0:
            fds.append(self.inner)
        if self.outer >= 0:
            fds.append(self.outer)
        writing = ([self.outer] if self._to_host and self.outer >= 0 else []) + (
            [self.inner] if self._to_child and self.inner >= 0 else [])
        ready, can_write, _ = select.select(fds, writing, [], timeout)
        if self._to_host:
            self._flush_host()
        if self._to_child:
            self._flush_child()
        if self.inner >= 0 and self.inner in ready:
            try:
                data = os.read(self.inner, 65536)
            except OSError:
                data = b""
            if data:
                self._from_child(data)
            elif self.child.poll() is not None:
                self._reap()
                return
        if self.outer >= 0 and self.outer in ready:
            # under the lock a link connects with: the newline it sends as
            # it opens is counted after host_opened() set the count to 0,
            # never before (the host would stay one byte short of quiet)
            with self.host_lock:
                try:
                    data = os.read(self.outer, 65536) if self.outer >= 0 else b""
                except OSError:
                    data = b""
                if data:
                    self._from_host(data)
        if self.asks in ready:
            self._read_asks()
        if self.child is not None and self.child.poll() is not None and self.inner >= 0:
            self._drain_and_reap()

    def _read_asks(self) -> None:
        try:
            self._asks_buf += os.read(self.asks, 4096)
        except BlockingIOError:
            return
        while b"\n" in self._asks_buf:
            line, self._asks_buf = self._asks_buf.split(b"\n", 1)
            parts = line.split()
            if len(parts) == 6 and parts[0] == b"w" and parts[4] == str(self.boots).encode():
                self.ask = Ask(int(parts[1]), int(parts[2]), int(parts[3]), int(parts[5]))

    def wait_ask(self, deadline: float) -> Ask:
        """Pump until the firmware asks for time and all it wrote is read."""
        while True:
            ask = self.ask
            if ask is not None and self.received >= ask.written:
                return ask
            if time.monotonic() > deadline:
                raise BoardGone("the firmware asked for no time for %.0f s (boot %d)"
                                % (BOOT_WAIT_S, self.boots))
            self.pump(0.05)

    def grant(self, now: int, horizon: int) -> None:
        self._flush_child()
        line = b"g %d %d %d %d\n" % (now, self.fed, horizon, self.boots)
        os.write(self.grants, line)
        self.ask = None

    def close(self) -> None:
        Supervisor.close(self)
        for fd in (self.grants, self.asks, self.lock_fd):
            try:
                os.close(fd)
            except OSError:
                pass
        self.grants = self.asks = self.lock_fd = -1
        for name in ("pty", "pid", "firmware.pid"):
            try:
                os.unlink(os.path.join(self.dir, name))
            except OSError:
                pass
