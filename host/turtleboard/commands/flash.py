"""`turtleboard flash [--port P] --board FILE`: firmware and board file onto a board."""

from __future__ import annotations

from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn

from turtleboard.errors import UserError
from turtleboard.flashing import Flasher
from turtleboard.ports import list_serial_ports


def add_arguments(p) -> None:
    p.add_argument("--port", help="the serial port (default: the one RP2040 board plugged in)")
    p.add_argument("--board", required=True, help="the board definition file (boards/*.json)")
    p.add_argument("--force", action="store_true", help="copy every file, even unchanged ones")
    p.add_argument("--no-reset", action="store_true", help="do not restart the board afterwards")


def pick_port(port: str | None) -> str:
    if port:
        return port
    boards = [p.path for p in list_serial_ports() if p.likely_board]
    if len(boards) == 1:
        return boards[0]
    if not boards:
        raise UserError("no Pico found; plug it in or name the port with --port")
    raise UserError(f"several Picos are plugged in ({', '.join(boards)}); choose one with --port")


def run(args) -> int:
    out = Console(stderr=False, highlight=False)
    flasher = Flasher(pick_port(args.port), args.board)
    board = flasher.check_board()
    out.print(f"board file {args.board}: {board.get('name', '?')} v{board.get('version', '?')}, ok")
    flasher.check_port_free()
    info = flasher.device_info()
    out.print(
        f"{flasher.port}: MicroPython {info['version']} on {info['platform']}, "
        f".mpy v{info['mpy']}.{info['mpy_sub']}" + (f" ({info['arch']})" if info["arch"] else "")
    )
    files = flasher.build()
    flasher.read_device()
    if args.force:
        flasher.device = {}
    todo = flasher.changed()
    stale = flasher.stale()
    out.print(
        f"{len(files)} files, {len(todo)} changed" + (f", {len(stale)} stale to remove" if stale else "")
    )
    if todo or stale:
        with Progress(
            TextColumn("copying"), BarColumn(), TextColumn("{task.completed}/{task.total} {task.description}"),
            console=out, transient=False,
        ) as bar:
            task = bar.add_task("", total=max(1, len(todo)))

            def step(i, n, path):
                bar.update(task, completed=i, description=path)

            flasher.copy(step)
            if not todo:
                bar.update(task, completed=1)
    else:
        out.print("nothing to copy: the board has this firmware already")
    if args.no_reset:
        out.print("done (not restarted)")
        return 0
    out.print("restarting the board...")
    hello = flasher.reset_and_wait()
    out.print(
        f"[green]ok[/green]: firmware {hello.get('fw')}, protocol {hello.get('proto')}, "
        f"board {hello.get('board')} v{hello.get('board_version')}"
    )
    return 0
