"""`turtleboard` command line: argument parsing only; each command is a module
in turtleboard.commands with add_arguments(parser) and run(args) -> int."""

from __future__ import annotations

import argparse
import importlib
import sys

from turtleboard import __version__
from turtleboard.errors import UserError

COMMANDS = [
    ("replay", "check a game record and print the final position and result"),
    ("selfplay", "play a whole game with simple bots and write its record"),
    ("match", "bots play seeded games against each other: win shares with 95%% intervals"),
    ("render", "draw a position of a record as an SVG picture"),
    ("record", "export the game on a board as a record"),
    ("board", "check a board definition file"),
    ("devices", "list serial ports and mark the Turtleboards"),
    ("flash", "put the firmware and a board file on a board"),
    ("play", "mirror the game on a board live in the terminal"),
    ("console", "the debugging console of a board"),
    ("sim", "start a virtual board on a pseudo-terminal"),
    ("demo", "a whole game on the virtual board with scripted hands, mirrored live"),
]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="turtleboard", description="Turtleboard: the augmented board for turtle games."
    )
    parser.add_argument("--version", action="version", version=f"turtleboard {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, help_text in COMMANDS:
        module = importlib.import_module(f"turtleboard.commands.{name}")
        p = sub.add_parser(name, help=help_text, description=help_text.replace("%%", "%"))
        module.add_arguments(p)
        p.set_defaults(run=module.run)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "run", None):
        parser.print_help()
        return 2
    try:
        return int(args.run(args) or 0)
    except UserError as e:
        print(f"turtleboard {args.command}: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"turtleboard {args.command}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # The reader went away (`turtleboard replay --json f | head`): not an error of ours.
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


if __name__ == "__main__":
    raise SystemExit(main())
