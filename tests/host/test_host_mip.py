"""The firmware's package.json: `mpremote mip install` puts the firmware on a
board the way micropython-lib packages install, here onto the virtual board
started blank (`turtleboard sim --blank`), from the package.json's path."""

from __future__ import annotations

import os
import signal
import subprocess
import sys

import pytest
from hosttools import ROOT

from turtleboard.flashing.flasher import Flasher, firmware_sources, mip_package
from turtleboard.paths import FIRMWARE, reference_board

TOOL = ROOT / "tools" / "make_package_json.py"


def test_package_json_lists_every_firmware_file():
    listed = FIRMWARE / "package.json"
    assert listed.read_text(encoding="utf-8") == mip_package(FIRMWARE), (
        "package.json is out of date: run python tools/make_package_json.py")
    assert subprocess.run([sys.executable, TOOL, "--check"]).returncode == 0
    import json

    urls = json.loads(listed.read_text(encoding="utf-8"))["urls"]
    names = [p.relative_to(FIRMWARE).as_posix() for p in firmware_sources(FIRMWARE)]
    assert [u[0] for u in urls] == names and [u[1] for u in urls] == names
    assert "main.py" in names and "controller/control.py" in names and len(names) > 30


@pytest.mark.micropython
def test_mpremote_mip_installs_the_firmware_onto_a_blank_board(tmp_path):
    sim_dir = tmp_path / "sim"
    sim = subprocess.Popen(
        [sys.executable, "-m", "turtleboard", "sim", "--board", "mahe", "--dir", sim_dir,
         "--blank", "--quiet"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT,
    )
    try:
        port = sim.stdout.readline().strip()
        assert port.startswith("/dev/"), sim.stderr.read()
        flash = sim_dir / "flash"
        assert not (flash / "main.py").exists()

        def mpremote(*args):
            return subprocess.run([sys.executable, "-m", "mpremote", "connect", port, *args],
                                  capture_output=True, text=True, timeout=300)

        r = mpremote("mip", "install", "--target", ".", str(FIRMWARE / "package.json"))
        assert r.returncode == 0, r.stdout + r.stderr
        assert "Installing: ./controller/control.py" in r.stdout and "Done" in r.stdout
        for src in firmware_sources(FIRMWARE):
            rel = src.relative_to(FIRMWARE)
            assert (flash / rel).read_bytes() == src.read_bytes(), rel
        # the board file is not part of the package: put it there as flash does
        r = mpremote("resume", "fs", "cp", str(reference_board("mahe")), ":board.json")
        assert r.returncode == 0, r.stderr
        flasher = Flasher(port, str(reference_board("mahe")))
        try:
            flasher.check_board()
            hello = flasher.reset_and_wait(timeout=60)
        finally:
            flasher.close()
        assert hello["board"] == "Mahé reference board" and hello["fw"]
    finally:
        sim.send_signal(signal.SIGINT)
        try:
            sim.wait(20)
        except subprocess.TimeoutExpired:
            os.kill(sim.pid, signal.SIGKILL)
            sim.wait()
