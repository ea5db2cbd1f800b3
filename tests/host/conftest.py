"""Fixtures for the host tests: real MicroPython behind a real pty."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
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


def turtleboard(*args, timeout=120, input=None):
    """Run the real `turtleboard` command line; -> CompletedProcess (text)."""
    return subprocess.run(
        [sys.executable, "-m", "turtleboard", *map(str, args)],
        capture_output=True, text=True, timeout=timeout, input=input, cwd=ROOT,
        env=dict(os.environ, COLUMNS="120", NO_COLOR="1"),
    )
