"""The controller tests also run under the real MicroPython unix port, on the
same scripted board, as the firmware does on the device."""

from __future__ import annotations

from pathlib import Path

import pytest

from turtleboard.sim.mpy import FIRMWARE, run_micropython

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


# A game with no computer seat and no hint leaves the bots out of the heap:
# the first search imports them (controller/computer.py).
BOTS_LAZY = """
import sys
from ctl_rig import Rig
rig = Rig("tortuga")
rig.send("new", {"game": "tortuga", "players": 2, "options": {}, "dice": "physical",
                 "seats": ["person", "person"], "seed": 1})
rig.show()
rig.run(400)
print("before a hint:", "turtles.bots" in sys.modules)
rig.send("hint", {})
rig.run(400)
print("a hint:", [f for f in rig.got if f[0] == "hint"] != [])
print("after a hint:", "turtles.bots" in sys.modules)
"""


@pytest.mark.micropython
def test_the_bots_are_imported_by_the_first_search_only():
    proc = run_micropython(["-c", BOTS_LAZY], [FIRMWARE, HERE], timeout=600, cwd=ROOT)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-4000:]
    assert "before a hint: False" in proc.stdout
    assert "a hint: True" in proc.stdout
    assert "after a hint: True" in proc.stdout
