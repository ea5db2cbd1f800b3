"""Tools for the maker who builds a board: wiring diagram, parts list, self-test."""

from __future__ import annotations

from pathlib import Path

from turtleboard.paths import BOARDS


def out_path(board_file: str, suffix: str, out_dir: str | None = None) -> Path:
    """A file named after the board file: beside it, or here for a reference
    board (the installed package is no place for the maker's files)."""
    src = Path(board_file)
    if out_dir:
        folder = Path(out_dir)
    elif src.resolve().parent == BOARDS.resolve():
        folder = Path(".")
    else:
        folder = src.parent
    return folder / (src.stem + suffix)
