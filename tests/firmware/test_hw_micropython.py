"""The portable hardware-side tests (board checking, sensing, game log) also
run under the real MicroPython unix port, as they do on the device."""

from __future__ import annotations

from pathlib import Path

import pytest

from turtleboard.sim.mpy import FIRMWARE, run_micropython

ROOT = Path(__file__).resolve().parents[2]

HERE = Path(__file__).parent
MPRUN = ROOT / "tests" / "engine" / "mprun.py"
PORTABLE = ["test_hw_board", "test_hw_gamelog", "test_hw_flashlog", "test_hw_logfiles", "test_hw_sensing"]


@pytest.mark.micropython
@pytest.mark.parametrize("module", PORTABLE)
def test_portable_module_under_micropython(module):
    proc = run_micropython([str(MPRUN), module], [FIRMWARE, HERE], timeout=600, cwd=ROOT)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-4000:]
    assert " 0 failed" in proc.stdout
    assert proc.stdout.count("\nok ") + proc.stdout.startswith("ok ") >= 5
