"""`turtleboard replay FILE`: check a record, print the final position and result."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from turtleboard.errors import UserError, reason
from turtleboard.pictures import text_picture
from turtles.record import RecordError, read_record, result_text


def add_arguments(p) -> None:
    p.add_argument("file", help="the game record ('-' reads standard input)")
    p.add_argument("--json", action="store_true", help="print the outcome as JSON")


def run(args) -> int:
    if args.file == "-":
        text = sys.stdin.read()
    else:
        try:
            text = Path(args.file).read_text(encoding="utf-8")
        except FileNotFoundError:
            raise UserError(f"no such record: {args.file}") from None
        except (OSError, UnicodeDecodeError) as e:
            raise UserError(f"cannot read {args.file}: {reason(e)}") from None
    try:
        game = read_record(text)
    except RecordError as e:
        if args.json:
            print(json.dumps({"ok": False, "line": e.line, "action": e.text, "error": e.why}))
        else:
            print(f"{args.file}:{e.line}: {e.text!r}: {e.why}", file=sys.stderr)
        return 1
    res = game.result()
    if args.json:
        print(
            json.dumps(
                {
                    "ok": True,
                    "game": game.name,
                    "players": game.players,
                    "options": game.options,
                    "actions": len(game.history),
                    "over": game.is_over(),
                    "result": res,
                    "hash": f"{game.state_hash():08x}",
                    "position": game.snapshot(),
                },
                sort_keys=True,
            )
        )
        return 0
    print(text_picture(game))
    print(f"{len(game.history)} actions, state hash {game.state_hash():08x}")
    print("result:", result_text(res) if res else "game not over")
    return 0
