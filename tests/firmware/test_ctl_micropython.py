"""The controller tests also run under the real MicroPython unix port, on the
same scripted board, as the firmware does on the device."""

from __future__ import annotations

from pathlib import Path

import pytest

from turtleboard.mpy import FIRMWARE, run_micropython

ROOT = Path(__file__).resolve().parents[2]

HERE = Path(__file__).parent
MPRUN = ROOT / "tests" / "engine" / "mprun.py"
# test_ctl_main starts MicroPython itself; the others are portable.
PORTABLE = sorted(p.stem for p in HERE.glob("test_ctl_*.py")
                  if p.stem not in ("test_ctl_micropython", "test_ctl_main"))


@pytest.mark.micropython
@pytest.mark.parametrize("module", PORTABLE)
def test_controller_module_under_micropython(module):
    proc = run_micropython([str(MPRUN), module], [FIRMWARE, HERE], timeout=600, cwd=ROOT)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-4000:]
    assert " 0 failed" in proc.stdout
    tests = (HERE / (module + ".py")).read_text().count("\ndef test_")
    assert tests and proc.stdout.count("ok ") >= min(3, tests)  # the tests really ran
