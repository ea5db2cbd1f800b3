"""The virtual device's supervisor: the MicroPython unix port on a pseudo-terminal.

The host side is an *outer* pty whose path stays the same across firmware
restarts, so a host can stay connected or reconnect as to a Pico's USB port.
The firmware runs as a child `micropython -i` (pico/pico_boot.py, then
main.py) on an *inner* pty in raw mode, with the device's flash folder as its
working directory; the supervisor forwards bytes both ways and plays the
parts of a Pico that the unix port lacks:

- Ctrl-C (0x03) from the host while code runs becomes SIGINT for the child
  (the inner terminal is raw, so the kernel would not do it). The REPL reads
  with its own raw mode (no ISIG), so there the byte goes through. Bytes that
  follow an interrupt wait until the REPL is listening.
- The child exiting is a reboot: after Ctrl-D in the friendly REPL, a
  `machine.reset()`/`sys.exit()` or a crash, the firmware starts again
  (`main.py`). Ctrl-D in the raw REPL is a soft reset that stays in the raw
  REPL, as on a Pico, so mpremote works with or without `resume`.
- Output while no host listens is dropped when the pty buffer is full, as a
  Pico drops USB output nobody reads.
- The firmware dies with the supervisor, however the supervisor dies (kill -9
  too), as a Pico loses power with its USB cable: it leads a session of its
  own whose controlling terminal is the inner pty, so the kernel hangs it up
  (SIGHUP, set back to its default action should our parent have ignored it,
  as `nohup` does) when the supervisor's end closes; on Linux the kernel also
  kills it when the supervisor's thread that started it ends
  (PR_SET_PDEATHSIG). A firmware that starts after the supervisor died finds
  no terminal to take and ends itself (pico_boot).
- Power-on runs `pico/pico_boot.py` (from outside the flash folder) before
  `main.py`: with a ROMFS partition (`romfs`, a file of `romfs_bytes`) it
  gives the firmware `vfs.rom_ioctl` and mounts a valid image at /rom, as the
  rp2 port does, and the Turtleboard build's raw game-log area (`logarea.img`
  beside the partition's file; docs/virtual-device.md).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import errno
import os
import select
import signal
import subprocess
import sys
import termios
import time
import tty

from turtleboard.errors import UserError
from turtleboard.sim.mpy import MicroPythonMissing, micropython_command

RAW_BANNER = b"raw REPL; CTRL-B to exit\r\n"
FRIENDLY_BANNER = b'Type "help()" for more information.'
SOFT_REBOOT = b"MPY: soft reboot\r\n"

PICO_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "pico")
ROMFS_BLOCK = 4096  # the RP2040's flash sector
# The game log's raw area, which the Turtleboard build of MicroPython has
# beside its ROM partition (micropython/boards/TURTLEBOARD_PICO/turtleboard_log.py)
LOG_AREA_FILE = "logarea.img"
LOG_AREA_BYTES = 256 * 1024

OUT_MAX = 4096  # bytes of output kept for a host that does not read (a Pico keeps less)
IN_MAX = 16384  # bytes of input held for a firmware that does not read; then the host waits

PR_SET_PDEATHSIG = 1  # linux/prctl.h


def _prctl():
    """libc's prctl on Linux (looked up here, not in the forked child), else None."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        return ctypes.CDLL(ctypes.util.find_library("c") or None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None


PRCTL = _prctl()


def dies_with(parent: int):
    """What the firmware's process does between fork and exec: die with
    `parent` (the supervisor), however it dies."""
    def lifeline() -> None:
        signal.signal(signal.SIGHUP, signal.SIG_DFL)  # the pty's hang-up kills it
        if PRCTL is not None:
            PRCTL(PR_SET_PDEATHSIG, signal.SIGKILL)
        if os.getppid() != parent:  # the supervisor died before that took effect
            os.kill(os.getpid(), signal.SIGKILL)
    return lifeline


def set_raw(fd: int, isig: bool = False, onlcr: bool = False) -> None:
    """Raw mode; ISIG marks 'code is running' (the REPL clears it while it reads).
    With ISIG no byte is a signal character: Ctrl-C is the supervisor's to turn
    into SIGINT, and 0x1a, 0x1c (suspend, quit) must reach the firmware."""
    tty.setraw(fd)
    attrs = termios.tcgetattr(fd)
    if isig:
        attrs[3] |= termios.ISIG
        for c in (termios.VINTR, termios.VQUIT, termios.VSUSP):
            attrs[6][c] = 0  # _POSIX_VDISABLE
    if onlcr:
        attrs[1] |= termios.OPOST | termios.ONLCR
    termios.tcsetattr(fd, termios.TCSANOW, attrs)


def make_partition(path: str, size: int) -> None:
    """The ROM partition's file, `size` bytes: erased (0xff) where new, cut or
    grown to `size` when it was made with another size."""
    if size % ROMFS_BLOCK or size <= 0:
        raise UserError("a ROMFS partition is a positive multiple of %d bytes, not %d"
                        % (ROMFS_BLOCK, size))
    try:
        have = os.path.getsize(path)
    except OSError:
        have = 0
    if have == size:
        return
    with open(path, "r+b" if have else "wb") as f:
        if have > size:
            f.truncate(size)
        else:
            f.seek(have)
            f.write(b"\xff" * (size - have))


class Supervisor:
    """Runs the firmware in `flash_dir` behind a stable outer pty; `romfs`, a
    file of `romfs_bytes`, is its ROM partition (None: a stock Pico, none)."""

    def __init__(self, flash_dir: str, log=None, pid_file: str | None = None,
                 romfs: str | None = None, romfs_bytes: int = 0):
        self.flash_dir = os.path.abspath(flash_dir)
        self.romfs = os.path.abspath(romfs) if romfs and romfs_bytes else None
        if self.romfs:
            make_partition(self.romfs, romfs_bytes)
            # the Turtleboard build: its game-log area too, beside the partition
            self.log_area = os.path.join(os.path.dirname(self.romfs), LOG_AREA_FILE)
            make_partition(self.log_area, LOG_AREA_BYTES)
        else:
            self.log_area = None
        self.pid_file = pid_file
        self.log = log or (lambda text: None)
        try:
            self.command = micropython_command()
        except MicroPythonMissing as e:
            raise UserError(str(e))
        try:
            self.outer, self._outer_slave = os.openpty()
        except OSError as e:
            raise UserError(
                "the system refused a pseudo-terminal (%s); check that /dev/ptmx "
                "and /dev/pts are available" % e.strerror
            )
        self.path = os.ttyname(self._outer_slave)
        set_raw(self._outer_slave)
        os.set_blocking(self.outer, False)
        self.child: subprocess.Popen | None = None
        self.inner = -1
        self.boots = 0
        self._raw_repl = False
        self._last_in = b""
        self._hold: bytes = b""
        self._to_host = bytearray()   # output the host has not taken yet
        self._to_child = bytearray()  # input the firmware has not taken yet
        self._hold_until = 0.0
        self._swallow: bytes | None = None
        self._stopping = False
        self.trace = bool(os.environ.get("TURTLEBOARD_SIM_TRACE"))
        self.overhear = None  # called with every byte string the firmware writes (sim/overheard.py)
        self._wake_r, self._wake_w = os.pipe()
        os.set_blocking(self._wake_w, False)

    # -- the child ----------------------------------------------------------

    def start(self, run_main: bool = True) -> None:
        """Power on: start the firmware (or a bare REPL after a raw-REPL reset)."""
        inner, inner_slave = os.openpty()
        set_raw(inner_slave, isig=True)
        env_tty = os.ttyname(inner_slave)
        os.set_blocking(inner, False)
        # pico_boot mounts the ROM partition, then runs boot.py and main.py
        args = ["-i", "-c", "__import__('pico_boot').power_on(%d)" % run_main]
        env = dict(os.environ)
        env["MICROPYPATH"] = PICO_DIR + ":.frozen:lib"
        env.pop("TURTLEBOARD_ROMFS", None)
        env["TURTLEBOARD_TTY"] = env_tty  # pico_boot makes it its controlling terminal
        env.pop("TURTLEBOARD_LOG_AREA", None)
        if self.romfs:
            env["TURTLEBOARD_ROMFS"] = self.romfs
        if self.log_area:
            env["TURTLEBOARD_LOG_AREA"] = self.log_area
        env.update(self.child_env())
        try:
            self.child = subprocess.Popen(
                self.command + args,
                stdin=inner_slave,
                stdout=inner_slave,
                stderr=inner_slave,
                cwd=self.flash_dir,
                env=env,
                start_new_session=True,
                close_fds=True,
                preexec_fn=dies_with(os.getpid()),
            )
        finally:
            os.close(inner_slave)
        self.inner = inner
        self.boots += 1
        if self.pid_file:
            with open(self.pid_file + ".tmp", "w") as f:
                f.write("%d\n" % self.child.pid)
            os.replace(self.pid_file + ".tmp", self.pid_file)
        self._raw_repl = False
        self._last_in = b""
        self.log("firmware started (pid %d, boot %d)" % (self.child.pid, self.boots))

    def child_env(self) -> dict:
        """More of the firmware's environment (a simulated table's clock: docs/simulation.md)."""
        return {}

    def _reap(self) -> None:
        """The child exited: reboot it the way a Pico would."""
        code = self.child.wait()
        os.close(self.inner)
        self.inner = -1
        self._to_child.clear()  # a reboot loses what the old firmware had not read
        if self._stopping:
            return
        soft_in_raw = self._raw_repl and code == 0 and self._last_in.endswith(b"\x04")
        self.log("firmware exited (code %s)%s" % (code, ", soft reset" if soft_in_raw else ""))
        self._send(SOFT_REBOOT)
        if soft_in_raw:
            # A Pico stays in the raw REPL after a soft reset there.
            self.start(run_main=False)
            self._swallow = b">>> "
            self._write_inner(b"\x01")
        else:
            self.start()

    def running_code(self) -> bool:
        """True while the child runs code (our ISIG marker is in its terminal mode)."""
        try:
            return bool(termios.tcgetattr(self.inner)[3] & termios.ISIG)
        except termios.error:
            return False

    # -- bytes --------------------------------------------------------------

    def _send(self, data: bytes) -> None:
        """To the host. What nobody reads is dropped, oldest first, beyond OUT_MAX."""
        self._to_host += data
        if len(self._to_host) > OUT_MAX:
            del self._to_host[: len(self._to_host) - OUT_MAX]
        self._flush_host()

    def _flush_host(self) -> None:
        while self._to_host:
            try:
                n = os.write(self.outer, self._to_host)
            except OSError as e:
                if e.errno in (errno.EAGAIN, errno.EIO):
                    return
                raise
            del self._to_host[:n]

    def _write_inner(self, data: bytes) -> None:
        self._to_child += data
        self._flush_child()

    def _flush_child(self) -> None:
        while self._to_child and self.inner >= 0:
            try:
                n = os.write(self.inner, self._to_child)
            except OSError as e:
                if e.errno == errno.EAGAIN:
                    return
                self._to_child.clear()
                return
            del self._to_child[:n]

    def _from_host(self, data: bytes) -> None:
        if self.trace:
            self.log("host> %r" % data)
        data = self._hold + data
        self._hold = b""
        while data:
            if time.monotonic() < self._hold_until and self.running_code():
                self._hold = data  # wait for the REPL after an interrupt
                return
            i = data.find(b"\x03")
            if i < 0 or not self.running_code():
                self._forward(data)
                return
            self._forward(data[:i])
            self.log("Ctrl-C: interrupting the firmware")
            self.child.send_signal(signal.SIGINT)
            self._hold_until = time.monotonic() + 1.0
            data = data[i + 1 :]

    def _forward(self, data: bytes) -> None:
        if data:
            self._last_in = (self._last_in + data)[-8:]
            self._write_inner(data)

    def _from_child(self, data: bytes) -> None:
        if self.trace:
            self.log("<dev %r" % data)
        if self.overhear is not None:
            self.overhear(data)
        if RAW_BANNER in data:
            self._raw_repl = True
        elif FRIENDLY_BANNER in data:
            self._raw_repl = False
        if self._swallow is not None:
            i = data.find(self._swallow)
            if i < 0:
                return
            data = data[i + len(self._swallow) :]
            self._swallow = None
        self._send(data)

    # -- the loop -----------------------------------------------------------

    def stop(self) -> None:
        """Ask the loop to end (safe from a signal handler or another thread)."""
        self._stopping = True
        try:
            os.write(self._wake_w, b"x")
        except OSError:
            pass

    def serve(self) -> None:
        """Forward bytes until stop(); restart the firmware whenever it exits."""
        if self.child is None:
            self.start()
        try:
            while not self._stopping:
                # Input the firmware has not taken stays bounded: past IN_MAX the
                # outer pty fills and the host's writes wait, as USB flow control
                # makes a host wait for a Pico.
                full = len(self._to_child) + len(self._hold) >= IN_MAX
                fds = ([] if full else [self.outer]) + [self._wake_r] + (
                    [self.inner] if self.inner >= 0 else [])
                writing = ([self.outer] if self._to_host else []) + (
                    [self.inner] if self._to_child and self.inner >= 0 else [])
                timeout = 0.05 if self._hold or self._to_host else 0.5
                ready, can_write, _ = select.select(fds, writing, [], timeout)
                if self._stopping:
                    break
                if self.outer in can_write or self._to_host:
                    self._flush_host()
                if self.inner in can_write:
                    self._flush_child()
                if self.inner in ready:
                    try:
                        data = os.read(self.inner, 4096)
                    except OSError:
                        data = b""
                    if data:
                        self._from_child(data)
                    elif self.child.poll() is not None:
                        self._reap()
                        continue
                    else:
                        time.sleep(0.005)  # the child is going: wait for its exit
                if self.outer in ready:
                    try:
                        data = os.read(self.outer, 4096)
                    except OSError:
                        data = b""
                    if data:
                        self._from_host(data)
                elif self._hold:
                    self._from_host(b"")
                if self.child is not None and self.child.poll() is not None and self.inner >= 0:
                    self._drain_and_reap()
        finally:
            self.close()

    def _drain_and_reap(self) -> None:
        while True:
            try:
                data = os.read(self.inner, 4096)
            except OSError:
                break
            if not data:
                break
            self._from_child(data)
        self._reap()

    def kill_firmware(self) -> None:
        """Power cut of the firmware only (tests); the supervisor reboots it."""
        if self.child is not None and self.child.poll() is None:
            self.child.kill()

    def close(self) -> None:
        self._stopping = True
        if self.child is not None and self.child.poll() is None:
            try:  # its whole process group: whatever it started goes too
                os.killpg(self.child.pid, signal.SIGKILL)
            except OSError:
                self.child.kill()
            self.child.wait()
        for fd in (self.inner, self.outer, self._outer_slave, self._wake_r, self._wake_w):
            if fd >= 0:
                try:
                    os.close(fd)
                except OSError:
                    pass
        self.inner = self.outer = self._outer_slave = self._wake_r = self._wake_w = -1
