"""Where the installed package keeps what it reads at run time: the device's
firmware folder and the reference board files. Found through
the import system, so a wheel and an editable install agree."""

from __future__ import annotations

from pathlib import Path

from turtleboard import FIRMWARE_DIR, package_folder
from turtleboard.errors import UserError

FIRMWARE = Path(FIRMWARE_DIR)
BOARDS = Path(package_folder("boards"))
SCHEMA = BOARDS / "schema.json"

# What the device needs: its entry point and its three packages.
FIRMWARE_PARTS = ("main.py", "turtles", "controller", "hal")


def reference_boards() -> list[Path]:
    """The reference board files that ship with the tool."""
    return sorted(p for p in BOARDS.glob("*.json") if p.name != "schema.json")


def reference_board(name: str) -> Path:
    return BOARDS / (name + ".json")


def check_firmware(folder: Path) -> Path:
    """`folder` if it holds a whole firmware tree; a UserError that names what
    is missing otherwise (never a silent copy of nothing)."""
    missing = []
    for part in FIRMWARE_PARTS:
        path = folder / part
        if part.endswith(".py"):
            ok = path.is_file() and path.stat().st_size > 0
        else:
            ok = path.is_dir() and any(path.glob("*.py"))
        if not ok:
            missing.append(part)
    if missing:
        raise UserError(
            f"the firmware folder {folder} is incomplete: {', '.join(missing)} missing or empty. "
            "Reinstall turtleboard (pip install --force-reinstall turtleboard), "
            "or give --firmware a folder with main.py, turtles/, controller/ and hal/"
        )
    return folder


BOARD_HELP = "a board file (JSON), or the name of a reference board: mahe, race, tortuga"


def board_arg(text: str) -> str:
    """argparse type of every --board: a file that exists is itself; otherwise
    the name of a reference board that ships with the tool (`tortuga`,
    `tortuga.json`) is that board's file; anything else is left for the
    reader of the file to report."""
    import os

    if os.path.exists(text):
        return text
    name = text[:-5] if text.endswith(".json") else text
    if os.sep not in name and "/" not in name and reference_board(name).is_file() and name != "schema":
        return str(reference_board(name))
    return text
