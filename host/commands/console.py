"""`turtleboard console [--port P] [--log FILE]`: the debugging console."""

from __future__ import annotations

from turtleboard.connection.link import Link, NotOurDevice, VersionMismatch
from turtleboard.console.app import run_console
from turtleboard.paths import writable_file
from turtleboard.terminal import kept_terminal, message_console


def add_arguments(p) -> None:
    p.add_argument("--port", help="the serial port or pty (default: the one Pico plugged in)")
    p.add_argument("--log", help="append the whole session to this file")
    p.add_argument("--linger", type=float, default=1.0,
                   help="when commands come from a pipe: keep showing frames until the board has "
                        "been quiet this many seconds")


def run(args) -> int:
    from turtleboard.commands.flash import pick_port

    if args.log:
        writable_file(args.log, "the session log")
    port = args.port or pick_port(None)
    link = Link(port)
    err = message_console(stderr=True)
    try:
        link.open(timeout=2.5)
    except (NotOurDevice, VersionMismatch) as e:
        # Still useful: show its raw output, reach its REPL.
        err.print(f"[yellow]warning:[/yellow] {e}")
        err.print("[yellow]opening it anyway: raw lines are shown; `repl` reaches MicroPython[/yellow]")
        link.connect()
    try:
        with kept_terminal():  # the REPL's raw mode never outlives the console
            return run_console(link, args.log, linger=args.linger)
    finally:
        link.close()
