"""`turtleboard record export [--port P] [-o FILE]`: the board's game as a record."""

from __future__ import annotations

import sys
from pathlib import Path

from turtleboard.connection.link import LinkError
from turtleboard.errors import UserError
from turtleboard.paths import BOARD_HELP, board_arg, writable_file
from turtles.record import write_record


def add_arguments(p) -> None:
    sub = p.add_subparsers(dest="action", metavar="ACTION", required=True)
    ex = sub.add_parser("export", help="write the game on the board (running or finished) as a record")
    ex.add_argument("--port", help="the serial port or pty (default: the one Pico plugged in)")
    ex.add_argument("-o", "--output", help="the record file to write (default: standard output)")
    ex.add_argument("--board", type=board_arg,
                    help="the board file, if its geometry is not the standard one (" + BOARD_HELP + ")")


def export_record(port: str, geometry=None, timeout: float = 5.0) -> str:
    """Sync with the board and return its game as record text: the game it
    announced when connected, or a UserError saying why not."""
    from turtleboard.connection.replica import Mirror

    mirror = Mirror(port, geometry)
    hello = dict(mirror.start())
    try:
        events = mirror.wait_synced(timeout, answered=True)
    except LinkError as e:
        raise UserError(f"{e}; is the firmware on the board ours and up to date?") from None
    finally:
        mirror.close()
    game = mirror.replica.game
    check_announced(hello, events, game)  # (before the reports: a refusal is one line)
    if mirror.log_reports:
        for report in mirror.log_reports:
            shown = shown_text(report, 1000)  # one line each (a report is at most 400)
            print(f"turtleboard: the board's game log was damaged: {shown}", file=sys.stderr)
    if game is None:
        raise UserError("there is no game on the board to export; start one first")
    return write_record(game, True)


def shown_text(text, width: int = 80) -> str:
    """A board's text on one line of at most `width` characters, no terminal codes."""
    from turtleboard.console.app import safe_text

    return safe_text(str(text)).replace("\n", "\\n")[:width]


def check_announced(hello: dict, events: list, game) -> None:
    """The game synced must be the one the board announced when connected
    (its hello: the same game, holding that position), and nothing the board
    said meanwhile may name another: else nothing is written."""
    said = hello.get("game")
    for kind, ev in events:
        if kind == "frame" and ev.kind in ("hello", "state") and ev.payload.get("game") != said:
            raise UserError(
                f"the board announced another game during the export ({shown_text(said or 'no game')} "
                f"when connected, then {shown_text(ev.payload.get('game') or 'no game')}); nothing written. "
                f"Export again when nothing else is changing the board's game")
    if game is None or said is None:
        return
    n, want = hello.get("n"), hello.get("hash")
    if game.name != said or not isinstance(n, int) or not holds(game, n, want):
        raise UserError(
            f"the board's sync ({game.name} at action {len(game.history)}) is not the game it announced "
            f"when connected ({shown_text(said)} at action {shown_text(n)}, hash {shown_text(want)}); "
            f"nothing written. Export again")


def holds(game, n: int, want) -> bool:
    """Whether `game` went through the position hello gives: action n, state hash `want`."""
    from itertools import islice

    from turtleboard.connection.replica import hash_text

    if not 0 <= n <= len(game.history):
        return False
    start = game.__class__(game.players, game.options, game.geometry)
    for action in islice(game.history, n):
        start.push(action)
    return hash_text(start.state_hash()) == want


def run(args) -> int:
    from turtleboard.commands.flash import pick_port
    from turtleboard.mirror.app import board_file_for

    geometry = (board_file_for(None, args.board) or {}).get("geometry") if args.board else None
    if args.output:
        writable_file(args.output, "the record")
    text = export_record(pick_port(args.port), geometry)
    if args.output:
        try:
            Path(args.output).write_text(text, encoding="utf-8")
        except OSError as e:
            raise UserError(f"cannot write {args.output}: {e}") from None
        n = sum(1 for line in text.splitlines() if line and not line.startswith("["))
        name = text.split('"', 2)[1] if text.startswith("[Game ") else "?"
        print(f"wrote {args.output}: the board's {name} game, {n} actions", file=sys.stderr)
    else:
        sys.stdout.write(text)
    return 0
