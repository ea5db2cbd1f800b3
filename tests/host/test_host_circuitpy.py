"""`turtleboard flash` onto a board running CircuitPython: its CIRCUITPY drive
(here a folder with the boot_out.txt CircuitPython writes), the CircuitPython
way: code.py, boot.py, the packages as CircuitPython's .mpy, lib/neopixel."""

from __future__ import annotations

import subprocess
from importlib.metadata import distribution
from pathlib import Path

from hosttools import turtleboard

from turtleboard.flashing import circuitpy
from turtleboard.flashing.flasher import mpy_cross_binary
from turtleboard.paths import FIRMWARE

BOOT_OUT = ("Adafruit CircuitPython {v} on 2025-11-10; Raspberry Pi Pico with rp2040\n"
            "Board ID:raspberry_pi_pico\nUID:E6614C311B4B6F2A\nboot.py output:\n")
NATIVE = ("turtles/fnv", "controller/crc", "controller/logcrc", "controller/quick", "hal/rp2regs")


def circuitpy_drive(where: Path, version: str = "10.2.1") -> Path:
    where.mkdir(parents=True, exist_ok=True)
    (where / "boot_out.txt").write_text(BOOT_OUT.format(v=version))
    return where


def listing(root: Path) -> set[str]:
    return {p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file()}


def test_flash_puts_the_firmware_on_a_circuitpy_drive_the_circuitpython_way(tmp_path):
    drive = circuitpy_drive(tmp_path / "CIRCUITPY")
    # what a maker may keep on the drive, an old module of ours, a torn copy
    (drive / "lib").mkdir()
    (drive / "lib" / "adafruit_ticks.mpy").write_bytes(b"C\x06theirs")
    (drive / "notes.txt").write_text("mine")
    (drive / "controller").mkdir()
    (drive / "controller" / "sensing.py").write_text("old = 1\n")  # would shadow the .mpy
    (drive / "board.json.tbnew").write_text("{")
    r = turtleboard("flash", "--board", "mahe", "--drive", drive)
    assert r.returncode == 0, r.stdout + r.stderr
    assert f"{drive}: CircuitPython 10.2.1 on Raspberry Pi Pico with rp2040" in r.stdout
    assert "stale to remove" in r.stdout
    assert "Press the board's reset button" in r.stdout
    files = listing(drive)
    for name in ("code.py", "boot.py", "main.py", "board.json", "lib/neopixel.mpy",
                 "controller/boot.mpy", "turtles/game.mpy", "hal/circuitpython.mpy"):
        assert name in files, name
    # kept: the maker's files; gone: the old source module, the torn copy
    assert {"notes.txt", "lib/adafruit_ticks.mpy", "boot_out.txt"} <= files
    assert "controller/sensing.py" not in files and "board.json.tbnew" not in files
    # no native code (CircuitPython has no viper): those modules stay off
    assert not [n for n in NATIVE if n + ".mpy" in files or n + ".py" in files]
    assert (drive / "board.json").read_bytes() == (FIRMWARE.parent / "boards" / "mahe.json").read_bytes()
    assert (drive / "code.py").read_bytes() == (FIRMWARE / "circuitpython" / "code.py").read_bytes()
    assert b"supervisor.runtime.autoreload = False" in (drive / "code.py").read_bytes()
    # CircuitPython's .mpy: MicroPython's mpy-cross bytes with the header 'C'
    mpy = (drive / "turtles" / "game.mpy").read_bytes()
    out = tmp_path / "game.mpy"
    subprocess.run([mpy_cross_binary(), "-o", out, "-s", "turtles/game.py",
                    FIRMWARE / "turtles" / "game.py"], check=True)
    assert mpy[:2] == b"C\x06" and mpy[1:] == out.read_bytes()[1:]
    assert (drive / "lib" / "neopixel.mpy").read_bytes()[:2] == b"C\x06"
    # flashed again: nothing to do
    r = turtleboard("flash", "--board", "mahe", "--drive", drive)
    assert r.returncode == 0 and "nothing to copy" in r.stdout, r.stdout + r.stderr


def test_flash_refuses_another_circuitpython_in_one_line_and_writes_nothing(tmp_path):
    drive = circuitpy_drive(tmp_path / "CIRCUITPY", version="9.2.8")
    r = turtleboard("flash", "--board", "mahe", "--drive", drive)
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert "runs CircuitPython 9.2.8, but the firmware runs on CircuitPython 10" in r.stderr
    assert listing(drive) == {"boot_out.txt"}


def test_flash_finds_the_mounted_circuitpy_drive(tmp_path, monkeypatch, capsys):
    from turtleboard.cli import main

    first = circuitpy_drive(tmp_path / "media" / "CIRCUITPY")
    other = tmp_path / "media" / "USBSTICK"
    other.mkdir()
    mounted = [str(first), str(other)]
    monkeypatch.setattr(circuitpy, "mount_points", lambda: mounted)
    assert main(["flash", "--board", "race"]) == 0
    assert "board.json" in listing(first) and not listing(other)
    assert "Race" in (first / "board.json").read_text()
    mounted.append(str(circuitpy_drive(tmp_path / "media" / "CIRCUITPY1")))
    assert main(["flash", "--board", "race"]) == 2
    assert "several CIRCUITPY drives are mounted" in capsys.readouterr().err


def test_the_neopixel_driver_is_adafruits_as_it_ships():
    # firmware/circuitpython/lib/neopixel.py is the pinned
    # adafruit-circuitpython-neopixel's file, unchanged (the wheel carries it)
    dist = distribution("adafruit-circuitpython-neopixel")
    shipped = next(f for f in dist.files if str(f) == "neopixel.py")
    assert Path(dist.locate_file(shipped)).read_bytes() == \
        (FIRMWARE / "circuitpython" / "lib" / "neopixel.py").read_bytes()


def test_boot_out_is_read_as_circuitpython_writes_it():
    d = circuitpy.parse_boot_out(BOOT_OUT.format(v="10.2.1"), "/media/me/CIRCUITPY")
    assert (d.version, d.board, d.board_id, d.major) == (
        "10.2.1", "Raspberry Pi Pico with rp2040", "raspberry_pi_pico", 10)
    assert circuitpy.parse_boot_out(
        "Adafruit CircuitPython 10.0.0-beta.3 on 2025-08-01; Pimoroni Tiny 2040 with rp2040\n"
    ).version == "10.0.0"
    assert circuitpy.parse_boot_out("MicroPython v1.28.0\n") is None
