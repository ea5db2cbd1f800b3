"""`turtleboard board check FILE`: check a board definition with the same code
the device runs (controller/board.py)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from controller.board import Board, check_board, engine_cells


def add_arguments(p) -> None:
    sub = p.add_subparsers(dest="action", metavar="ACTION", required=True)
    check = sub.add_parser("check", help="check a board file and list every mistake",
                           description="Check a board file (JSON) and list every mistake "
                           "with its place in the file; exit status 1 if there is any.")
    check.add_argument("files", nargs="+", metavar="FILE", help="board file(s) to check")


def run(args) -> int:
    bad = 0
    for name in args.files:
        bad += check_file(name)
    return 1 if bad else 0


def check_file(name: str) -> int:
    """Prints what check finds in one file; returns 1 if it is not a good board."""
    try:
        text = Path(name).read_text(encoding="utf-8")
    except FileNotFoundError:
        return _fail(name, "no such file")
    except IsADirectoryError:
        return _fail(name, "this is a folder; give the board file (.json) inside it")
    except UnicodeDecodeError as e:
        return _fail(name, f"not a text file (UTF-8): byte {e.start} cannot be read")
    except OSError as e:
        return _fail(name, f"cannot be read: {e.strerror or e}")
    try:
        obj = json.loads(text)
    except json.JSONDecodeError as e:
        return _fail(name, f"line {e.lineno} column {e.colno}: not valid JSON: {e.msg}")
    except RecursionError:
        return _fail(name, "not a board file: its JSON is nested too deep to read "
                           "(a board file is a few levels deep)")
    problems = check_board(obj)
    if problems:
        for where, message in problems:
            print(f"{name}: {where}: {message}", file=sys.stderr)
        return 1
    board = Board(obj, engine_cells(obj["games"][0], obj["geometry"]))
    print(f"ok: {board.name} ({len(board.cells)} cells on {len(board.mux['adc'])} "
          f"multiplexer(s), {board.led_count} LEDs, buttons "
          f"{', '.join(n for n, _ in board.buttons)}; games: {', '.join(board.games)})")
    return 0


def _fail(name: str, message: str) -> int:
    print(f"{name}: {message}", file=sys.stderr)
    return 1
