"""On the Turtleboard build with the firmware in its ROM partition, the
filesystem rests while the board plays (the game log is in the raw area;
littlefs's caches leave the heap): the virtual Pico leaves its flash folder
for a removed one, so a file used without waking the filesystem fails here
as it would on the Pico. Every file the board touches after boot wakes it:
the damage report acknowledged, an empty level learned, and the REPL's
tools once Ctrl-C stops the game. With the firmware in files it never
rests (a module imported later is looked for there)."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest

from turtleboard.connection.replica import Mirror
from turtleboard.sim.supervisor import LOG_AREA_FILE

pytestmark = [pytest.mark.e2e, pytest.mark.skipif(not os.path.isdir("/proc/self"),
                                                  reason="reads the firmware's folder from /proc")]


def _resting(v) -> bool:
    # The firmware's working folder is the removed one (Linux shows it so).
    pid = v.bg.firmware_pid()
    try:
        return pid is not None and os.readlink("/proc/%d/cwd" % pid).endswith(".resting (deleted)")
    except OSError:
        return False


def _wait(what, timeout: float = 20.0) -> bool:
    deadline = time.monotonic() + timeout
    while not what():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def _flashed(vdev):
    # A blank virtual Turtleboard Pico, `turtleboard flash`ed: the code in ROM.
    v = vdev("mahe", fields=5, extra=["--blank"])
    r = subprocess.run([sys.executable, "-m", "turtleboard", "flash", "--port", v.path,
                        "--board", v.board_path], capture_output=True, text=True, timeout=180)
    assert r.returncode == 0 and "running from ROMFS (/rom)" in r.stdout, r.stdout + r.stderr
    return v


def _mirror(v) -> Mirror:
    m = Mirror(v.path, geometry=v.board.geometry)
    v.mirrors.append(m)
    m.start(10)
    return m


def test_every_file_the_board_uses_wakes_the_resting_filesystem(vdev):
    v = _flashed(vdev)
    flash = os.path.join(v.dir, "flash")
    m = _mirror(v)
    m.link.command("new", {"game": "mahe", "players": 2, "dice": "physical"}, timeout=5)
    m.wait_synced(10)
    for text in ("e3", "first-1a"):
        m.link.command("enter", {"text": text}, timeout=5)
    m.close()
    assert _wait(lambda: _resting(v)), "the filesystem never rested"

    # The damage report, written at boot, removed once acknowledged.
    area = os.path.join(v.dir, LOG_AREA_FILE)
    assert _wait(lambda: b"A first-1a *" in open(area, "rb").read())
    with open(area, "r+b") as f:  # the roll's line changed: its checksum fails, the move after it is lost
        at = f.read().index(b"A e3 *") + 2
        f.seek(at)
        f.write(b"f")
    hello = v.power_cut(lambda h: h.get("log"))
    assert "damaged" in hello["log"], hello
    report = os.path.join(flash, "game.log.report")
    assert os.path.exists(report)
    assert _wait(lambda: _resting(v)), "the filesystem never rested after the boot"
    m = _mirror(v)  # acknowledges the report: the file goes
    assert _wait(lambda: (m.poll(0.1) or True) and not os.path.exists(report)), "the report stayed"
    m.close()
    assert _wait(lambda: _resting(v)), "the filesystem did not rest again"

    # An empty level learned: a cell calibrated with a turtle on it, then emptied.
    world = v.open_world()
    cell = v.board.cells[0]
    world.take()
    world.place(cell)
    calibration = os.path.join(flash, "calibration.txt")
    os.remove(calibration)
    v.power_cut(lambda h: True)

    def saved() -> list[str]:
        try:
            with open(calibration) as f:
                return [line for line in f.read().split("\n") if line.startswith(cell + " ")]
        except OSError:
            return []

    assert _wait(lambda: os.path.exists(calibration)) and saved() == []
    assert _wait(lambda: _resting(v)), "the filesystem never rested"
    world.lift(cell)  # the cell seen empty: its level learned and saved
    assert _wait(saved), "the learned level was not saved"
    assert _wait(lambda: _resting(v)), "the filesystem did not rest again"

    # Ctrl-C: the REPL's tools find the files.
    r = subprocess.run([sys.executable, "-m", "mpremote", "connect", v.path, "resume", "ls"],
                       capture_output=True, text=True, timeout=30)
    assert r.returncode == 0, r.stderr
    assert "main.py" in r.stdout and "board.json" in r.stdout and "game.log.bad" in r.stdout, r.stdout


def test_with_the_firmware_in_files_the_filesystem_never_rests(vdev):
    v = vdev("mahe", fields=5)  # the code in the flash folder
    m = _mirror(v)
    v.new_game(m, "mahe", 2)  # answered: boot is over, where the code in ROM rests it
    assert v.bg.firmware_pid() is not None and not _resting(v)
    m.close()
