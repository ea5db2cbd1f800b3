"""The virtual device's supervisor keeps what it holds bounded."""

from __future__ import annotations

import os
import threading
import time

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
