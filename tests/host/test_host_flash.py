"""`turtleboard flash` onto real MicroPython (the unix port behind a pty)."""

from __future__ import annotations

import json

import pytest
from hosttools import ROOT, turtleboard

from turtleboard.flashing import check_mpy_version
from turtleboard.link import Link, NotOurDevice, open_port
from turtleboard.paths import FIRMWARE as FW

pytestmark = pytest.mark.micropython

BOARD = ROOT / "src" / "turtleboard" / "boards" / "mahe.json"


def test_flash_copies_precompiled_firmware_then_only_what_changed(bare_device):
    port = bare_device.path
    # a plain MicroPython is not a Turtleboard: it only echoes our hello
    with pytest.raises(NotOurDevice, match="not (as )?a Turtleboard.*turtleboard flash"):
        Link(port).open(timeout=1.5)
    stale = bare_device.flash / "controller"
    stale.mkdir()
    (stale / "old_module.py").write_text("x = 1\n")

    first = turtleboard("flash", "--port", port, "--board", BOARD, "--no-reset")
    assert first.returncode == 0, first.stderr
    assert ".mpy v6" in first.stdout and "1 stale to remove" in first.stdout
    flash = bare_device.flash
    assert (flash / "turtles" / "game.mpy").read_bytes()[:1] == b"M"  # .mpy magic
    assert not (flash / "turtles" / "game.py").exists()
    assert not (stale / "old_module.py").exists()
    assert json.loads((flash / "board.json").read_text())["name"] == json.loads(BOARD.read_text())["name"]
    assert (flash / "main.py").read_text() == (FW / "main.py").read_text()

    (flash / "turtles" / "rng.mpy").write_bytes(b"damaged")
    second = turtleboard("flash", "--port", port, "--board", BOARD, "--no-reset")
    assert second.returncode == 0, second.stderr
    assert ", 1 changed" in second.stdout and "turtles/rng.mpy" in second.stdout
    assert (flash / "turtles" / "rng.mpy").read_bytes()[:1] == b"M"


def test_flash_says_when_the_port_is_busy(bare_device):
    held = open_port(bare_device.path)  # as our own mirror holds it
    try:
        r = turtleboard("flash", "--port", bare_device.path, "--board", BOARD, "--no-reset")
    finally:
        held.close()
    assert r.returncode == 2
    assert "is busy" in r.stderr and "Close that one first" in r.stderr
    assert "Traceback" not in r.stderr


def test_flash_checks_the_board_file_before_touching_the_device(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"name": "x", "version": 1}')
    r = turtleboard("flash", "--port", "/dev/nope", "--board", bad)
    assert r.returncode == 2 and "has problems" in r.stderr and "$: missing key 'cells'" in r.stderr
    r = turtleboard("flash", "--port", "/dev/nope", "--board", tmp_path / "none.json")
    assert r.returncode == 2 and "no such board file" in r.stderr
    notjson = tmp_path / "nj.json"
    notjson.write_text("{ cells: ")
    r = turtleboard("flash", "--port", "/dev/nope", "--board", notjson)
    assert r.returncode == 2 and "is not valid JSON" in r.stderr


def test_flash_to_a_port_that_does_not_exist():
    r = turtleboard("flash", "--port", "/dev/nope", "--board", BOARD)
    assert r.returncode == 2 and "no such port: /dev/nope" in r.stderr and "Traceback" not in r.stderr


def test_a_board_whose_mpy_version_differs_is_refused():
    info = {"version": "1.19.1", "mpy": 6, "mpy_sub": 0, "arch": "armv6m"}
    with pytest.raises(Exception, match=r"loads .mpy v6.0, but mpy-cross here emits v6.3"):
        check_mpy_version(info, (6, 3))
    check_mpy_version(dict(info, mpy_sub=3), (6, 3))


def test_the_firmware_image_fits_the_turtleboard_pico_partition():
    # The MicroPython board definition the device is built from, the virtual
    # Pico's partition and the image `flash` writes must agree.
    import re

    from turtleboard.flashing import Flasher
    from turtleboard.sim.device import ROMFS_BYTES

    header = (ROOT / "micropython" / "boards" / "TURTLEBOARD_PICO" / "mpconfigboard.h").read_text()
    kb = int(re.search(r"MICROPY_HW_ROMFS_BYTES\s+\((\d+) \* 1024\)", header).group(1))
    assert kb * 1024 == ROMFS_BYTES and ROMFS_BYTES % 4096 == 0
    plan = Flasher("unused", str(BOARD))
    plan.check_board()
    plan.info = {"arch": "armv6m"}  # as for the Pico
    plan.build()
    image = plan.build_image()
    assert image.startswith(b"\xd2\xcd\x31") and 20_000 < len(image) < ROMFS_BYTES // 2
