"""Fixtures for the host tests: real MicroPython behind a real pty."""

from __future__ import annotations

import sys
import threading
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))


@pytest.fixture
def bare_device(tmp_path):
    """A MicroPython unix port with an empty flash behind a pty (the virtual
    device's supervisor): a Pico with MicroPython and no firmware yet."""
    from turtleboard.sim.supervisor import Supervisor

    flash = tmp_path / "flash"
    flash.mkdir()
    sup = Supervisor(str(flash))
    thread = threading.Thread(target=sup.serve, daemon=True)
    thread.start()
    sup.flash = flash
    yield sup
    sup.stop()
    thread.join(5)
