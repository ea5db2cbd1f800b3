# The quick path of the scan (controller/quick.py, native code) against the
# full scan in Python: two Sensing objects read the same random board, one
# with the quick path, one without, and must agree on everything after every
# scan. The board does all a table does: noise of every size (a quiet one to
# one loud enough to smooth), turtles put down, lifted and half on a cell,
# bounce, drift of the empty level, dead and stuck sensors and their repair.
# It runs under the MicroPython unix port (its x64 native emitter runs the
# viper code); CPython has no native code, so only the check that the quick
# path is really there runs on both.
import sys

import pytest


def test_there_is_a_quick_path_exactly_where_the_port_has_native_code():
    from controller import sensing

    assert (sensing.settle is not None) == (sys.implementation.name == "micropython")


@pytest.mark.micropython
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_quick_path_gives_the_very_same_sensing_as_the_full_scan(seed):
    import json
    from pathlib import Path

    from turtleboard.sim.mpy import FIRMWARE, run_micropython

    here = Path(__file__).parent
    code = "import json, quick_twin as q\nprint(json.dumps(q.check_quick_equals_full(%d)))\n" % seed
    proc = run_micropython(["-c", code], [FIRMWARE, here], timeout=600)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-4000:]
    seen = json.loads(proc.stdout.strip().splitlines()[-1])
    # the run went through it all, and the quick path took most cells
    assert seen["quick_cells"] * 3 > seen["quick_cells"] + seen["full_cells"], seen
    assert seen["versions"] > 100 and seen["drift"] > 1000, seen
    assert seen["smooth"] >= 2, seen
    assert set(seen["faults"]) >= {"dead", "stuck", "cannot be read"}, seen
