"""`turtleboard render FILE [--at N] [-o out.svg] [--player N]`: an SVG picture."""

from __future__ import annotations

import sys
from pathlib import Path

from turtleboard.errors import UserError, reason
from turtleboard.pictures.svg import svg_picture
from turtles.record import RecordError, read_record


def add_arguments(p) -> None:
    p.add_argument("file", help="a game record ('-' reads standard input)")
    p.add_argument("--at", type=int, help="the position after N actions (default: the last; negative counts back)")
    p.add_argument("-o", "--output", help="the SVG file to write (default: standard output)")
    p.add_argument("--player", type=int, help="draw what player N (from 1) may see; default: everything, "
                   "hidden cards too (the picture says which)")


def load_game(path: str):
    if path == "-":
        text = sys.stdin.read()
    else:
        try:
            text = Path(path).read_text(encoding="utf-8")
        except FileNotFoundError:
            raise UserError(f"no such record: {path}") from None
        except (OSError, UnicodeDecodeError) as e:
            raise UserError(f"cannot read {path}: {reason(e)}") from None
    try:
        return read_record(text)
    except RecordError as e:
        raise UserError(f"{path}:{e.line}: {e.text!r}: {e.why}") from None


def run(args) -> int:
    game = load_game(args.file)
    total = len(game.history)
    at = total if args.at is None else args.at
    if at < 0:
        at = total + at
    if not 0 <= at <= total:
        raise UserError(f"--at {args.at} is outside the record: it has actions 0..{total}")
    while len(game.history) > at:
        game.undo()
    player = None
    if args.player is not None:
        if not 1 <= args.player <= game.players:
            raise UserError(f"--player must be 1..{game.players} for this game")
        player = args.player - 1
    svg = svg_picture(game, player)
    if args.output:
        try:
            Path(args.output).write_text(svg, encoding="utf-8")
        except OSError as e:
            raise UserError(f"cannot write {args.output}: {reason(e)}") from None
        print(f"wrote {args.output} (position after {at} of {total} actions)")
    else:
        sys.stdout.write(svg)
    return 0
