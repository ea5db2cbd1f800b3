"""`turtleboard record export [--port P] [-o FILE]`: the board's game as a record."""

from __future__ import annotations

import sys
from pathlib import Path

from turtleboard.connection.link import LinkError
from turtleboard.errors import UserError
from turtleboard.paths import BOARD_HELP, board_arg
from turtles.record import write_record


def add_arguments(p) -> None:
    sub = p.add_subparsers(dest="action", metavar="ACTION", required=True)
    ex = sub.add_parser("export", help="write the game on the board (running or finished) as a record")
    ex.add_argument("--port", help="the serial port or pty (default: the one Pico plugged in)")
    ex.add_argument("-o", "--output", help="the record file to write (default: standard output)")
    ex.add_argument("--board", type=board_arg,
                    help="the board file, if its geometry is not the standard one (" + BOARD_HELP + ")")


def export_record(port: str, geometry=None, timeout: float = 5.0) -> str:
    """Sync with the board and return its game as record text."""
    from turtleboard.connection.replica import Mirror

    mirror = Mirror(port, geometry)
    mirror.start()
    try:
        mirror.wait_synced(timeout)
    except LinkError as e:
        raise UserError(f"{e}; is the firmware on the board ours and up to date?") from None
    finally:
        mirror.close()
    if mirror.log_reports:
        from turtleboard.console.app import safe_text

        for report in mirror.log_reports:
            shown = safe_text(report).replace("\n", "\\n")  # one line each, no terminal codes
            print(f"turtleboard: the board's game log was damaged: {shown}", file=sys.stderr)
    game = mirror.replica.game
    if game is None:
        raise UserError("there is no game on the board to export; start one first")
    return write_record(game, True)


def run(args) -> int:
    from turtleboard.commands.flash import pick_port
    from turtleboard.mirror.app import board_file_for

    geometry = (board_file_for(None, args.board) or {}).get("geometry") if args.board else None
    text = export_record(pick_port(args.port), geometry)
    if args.output:
        try:
            Path(args.output).write_text(text, encoding="utf-8")
        except OSError as e:
            raise UserError(f"cannot write {args.output}: {e}") from None
        n = sum(1 for line in text.splitlines() if line and not line.startswith("["))
        print(f"wrote {args.output}: {n} actions", file=sys.stderr)
    else:
        sys.stdout.write(text)
    return 0
