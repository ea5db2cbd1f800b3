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


def writable_file(path: str, what: str) -> None:
    """A UserError unless `what` can be written to the file `path`: checked
    before the work that makes it, so a game played or a test done is never
    lost to a path that cannot take it. Nothing is left behind."""
    import os

    if os.path.isdir(path):
        raise UserError(f"{path} is a folder: name a file for {what}")
    existed = os.path.exists(path)
    flags = os.O_WRONLY | os.O_APPEND | (0 if existed else os.O_CREAT | os.O_EXCL)
    try:
        os.close(os.open(path, flags, 0o644))
    except OSError as e:
        folder = os.path.dirname(os.path.abspath(path))
        why = (e.strerror if os.path.isdir(folder) else f"{folder} is a file, not a folder"
               if os.path.exists(folder) else f"there is no folder {folder}")
        raise UserError(f"cannot write {what} to {path}: {why}") from None
    if not existed:
        os.unlink(path)


def writable_folder(path: str, what: str) -> None:
    """Make the folder `path` if it is missing; a UserError unless it is a
    folder that `what` can be written in."""
    import os

    try:
        os.makedirs(path, exist_ok=True)
    except FileExistsError:
        raise UserError(f"{path} is a file, not a folder; give {what} a folder "
                        f"(made if missing)") from None
    except OSError as e:
        raise UserError(f"cannot make the folder {path} for {what}: {e.strerror}") from None
    if not os.access(path, os.W_OK | os.X_OK):
        raise UserError(f"cannot write in the folder {path} ({what}): no permission")
