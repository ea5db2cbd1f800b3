"""The virtual device's supervisor keeps what it holds bounded."""

from __future__ import annotations

import os
import signal
import subprocess
import threading
import time

import pytest

from turtleboard.connection.link import Link
from turtleboard.sim.supervisor import IN_MAX, Supervisor


def test_input_for_a_firmware_that_does_not_read_stays_bounded(tmp_path):
    flash = tmp_path / "flash"
    flash.mkdir()
    (flash / "main.py").write_text("import time\nwhile True:\n    time.sleep(1)\n")
    sup = Supervisor(str(flash))
    thread = threading.Thread(target=sup.serve, daemon=True)
    thread.start()
    fd = os.open(sup.path, os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK)
    try:
        sent = 0
        chunk = b"x" * 4096
        end = time.monotonic() + 3
        while time.monotonic() < end:
            try:
                sent += os.write(fd, chunk)
            except BlockingIOError:
                time.sleep(0.01)  # the host waits, as for a Pico that does not read
        held = len(sup._to_child)
        assert held <= IN_MAX + 4096, held
        assert sent < 4 * 1024 * 1024, sent  # the port pushed back
    finally:
        os.close(fd)
        sup.stop()
        thread.join(5)


def running(pid: int) -> bool:
    """The process runs (a zombie nobody reaped yet has died)."""
    state = subprocess.run(["ps", "-o", "stat=", "-p", str(pid)], capture_output=True,
                           text=True).stdout.strip()
    return bool(state) and not state.startswith("Z")


def wait_for(condition, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.02)


@pytest.mark.micropython
@pytest.mark.parametrize("sighup", ["default", "ignored"])
def test_the_virtual_pico_dies_with_its_supervisor_killed_by_sigkill(tmp_path, sighup):
    """kill -9 of `turtleboard sim` alone (not its process group) leaves no
    virtual Pico behind, also when it was started with SIGHUP ignored (as
    `nohup` starts it): a Pico loses power with its USB cable."""
    from turtleboard.sim.device import Background

    old = signal.signal(signal.SIGHUP, signal.SIG_IGN if sighup == "ignored" else signal.SIG_DFL)
    try:
        bg = Background(str(tmp_path / "sim"), "mahe")
    finally:
        signal.signal(signal.SIGHUP, old)
    firmware = None
    try:
        link = Link(bg.path)
        assert link.open(timeout=30)["board"]  # booted: its hello said, idle in its loop
        link.close()
        firmware = bg.firmware_pid()
        assert firmware and running(firmware)
        os.kill(bg.proc.pid, signal.SIGKILL)
        bg.proc.wait(30)
        wait_for(lambda: not running(firmware), 30, "the virtual Pico to die")
    finally:
        bg.kill()
        if firmware and running(firmware):
            os.kill(firmware, signal.SIGKILL)
