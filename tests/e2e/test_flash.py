"""`turtleboard flash` into a fresh virtual device (MicroPython only, empty flash)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from turtleboard.connection.replica import Mirror

pytestmark = pytest.mark.e2e


@pytest.mark.parametrize("romfs", [True, False], ids=["romfs", "stock-pico"])
def test_flash_a_blank_virtual_pico_then_play(vdev, romfs):
    v = vdev("mahe", fields=5, extra=["--blank"] + ([] if romfs else ["--romfs-bytes", "0"]))
    assert not os.path.exists(os.path.join(v.dir, "flash", "main.py"))
    r = subprocess.run([sys.executable, "-m", "turtleboard", "flash", "--port", v.path,
                        "--board", v.board_path], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    flash = os.path.join(v.dir, "flash")
    assert os.path.exists(os.path.join(flash, "main.py"))
    assert os.path.exists(os.path.join(flash, "board.json"))
    # the packages: in the ROMFS partition, or as .mpy files on a stock Pico
    assert os.path.exists(os.path.join(flash, "controller", "control.mpy")) != romfs
    assert ("running from ROMFS (/rom)" in r.stdout) == romfs
    # The flashed firmware (precompiled .mpy) runs and plays.
    m = Mirror(v.path, geometry=v.board.geometry)
    v.mirrors.append(m)
    hello = m.start(10)
    assert hello["board"] == v.board.name
    v.open_world()
    v.new_game(m, "mahe", 2)
    hands = v.hands(m, seed=9)
    hands.play(max_actions=12)
    assert len(m.replica.game.history) >= 12
    assert v.device_log() == [m.replica.game.action_text(a) for a in m.replica.game.history]
