"""`turtleboard flash [--port P] --board FILE`: firmware and board file onto a board.

With a ROMFS partition (a MicroPython built with one) the packages go into it
as one image and run from flash; without one they are copied as .mpy files
and loaded into the heap (docs/host.md)."""

from __future__ import annotations

import os
from pathlib import Path

from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn

from turtleboard.errors import UserError
from turtleboard.flashing import Flasher
from turtleboard.paths import BOARD_HELP, FIRMWARE, board_arg
from turtleboard.ports import list_serial_ports

NO_ROMFS = ("this board's MicroPython has no ROMFS partition, so the firmware runs from RAM "
            "(about 2x the heap; see docs/firmware.md)")


def add_arguments(p) -> None:
    p.add_argument("--port", help="the serial port (default: the one RP2040 board plugged in)")
    p.add_argument("--board", required=True, type=board_arg, help=BOARD_HELP)
    p.add_argument("--firmware", metavar="DIR", default=None,
                   help="the firmware folder to flash (default: the one installed with this tool)")
    p.add_argument("--force", action="store_true",
                   help="copy every file and write the ROMFS image, even unchanged ones")
    p.add_argument("--calibration", metavar="FILE",
                   help="a calibration written by `turtleboard board test` for this board file, "
                        "put on the board as calibration.txt")
    p.add_argument("--no-reset", action="store_true", help="do not restart the board afterwards")
    how = p.add_mutually_exclusive_group()
    how.add_argument("--romfs", action="store_true",
                     help="deploy into the ROMFS partition, or fail if the board has none")
    how.add_argument("--files", action="store_true",
                     help="copy the firmware as files even when the board has a ROMFS partition")


def pick_port(port: str | None) -> str:
    if port:
        return port
    boards = [p.path for p in list_serial_ports() if p.likely_board]
    if len(boards) == 1:
        return boards[0]
    if not boards:
        raise UserError("no Pico found; plug it in or name the port with --port")
    raise UserError(f"several Picos are plugged in ({', '.join(boards)}); choose one with --port")


def progress_bar(out: Console, label: str, total: int):
    bar = Progress(TextColumn(label), BarColumn(),
                   TextColumn("{task.completed}/{task.total} {task.description}"),
                   console=out, transient=False)
    return bar, bar.add_task("", total=max(1, total))


def run(args) -> int:
    out = Console(stderr=False, highlight=False)
    if args.firmware and not os.path.isfile(os.path.join(args.firmware, "main.py")):
        raise UserError(f"--firmware {args.firmware}: no main.py there; name the folder that "
                        f"holds main.py, turtles/, controller/ and hal/")
    flasher = Flasher(pick_port(args.port), args.board, Path(args.firmware or FIRMWARE))
    board = flasher.check_board()
    out.print(f"board file {args.board}: {board.get('name', '?')} v{board.get('version', '?')}, ok")
    if args.calibration:
        flasher.check_calibration(args.calibration)
        out.print(f"calibration {args.calibration}: for this board file, ok")
    flasher.check_port_free()
    info = flasher.device_info()
    out.print(
        f"{flasher.port}: MicroPython {info['version']} on {info['platform']}, "
        f".mpy v{info['mpy']}.{info['mpy_sub']}" + (f" ({info['arch']})" if info["arch"] else "")
    )
    flasher.build()
    rom = flasher.read_rom()
    if args.files or (rom is None and not args.romfs):
        if rom is None:
            out.print(NO_ROMFS)
        else:
            out.print(f"copying files (--files), not into the ROMFS partition ({rom['size']} bytes)")
    else:
        flasher.use_romfs()  # a clear error when there is no partition or the image is too big
        size, room = len(flasher.image), rom["size"]
        out.print(f"into the ROMFS partition: image {size} bytes of {room} "
                  f"({100 * size // room}%), mounted at /rom")
        if flasher.image_on_board() and not args.force:
            out.print("the ROMFS partition holds this image already: nothing written")
        else:
            bar, task = progress_bar(out, "writing the image", 1)
            with bar:
                def step(i, n, what):
                    bar.update(task, completed=i, total=n, description=what)

                flasher.write_image(step)
    flasher.read_device()
    if flasher.romfs:
        gone = flasher.remove_packages()
        if gone:
            out.print(f"removed {', '.join(p + '/' for p in gone)} from the filesystem "
                      f"(files there would shadow /rom)")
    if args.force:
        flasher.device = {}
    todo = flasher.changed()
    stale = flasher.stale()
    out.print(
        f"{len(flasher.files)} files, {len(todo)} changed" + (f", {len(stale)} stale to remove" if stale else "")
    )
    if todo or stale:
        bar, task = progress_bar(out, "copying", len(todo))
        with bar:
            def copied(i, n, path):
                bar.update(task, completed=i, description=path)

            flasher.copy(copied)
            if not todo:
                bar.update(task, completed=1)
    else:
        out.print("nothing to copy: the board has these files already")
    if not flasher.romfs and rom is not None and rom["valid"] and rom["object"]:
        flasher.erase_image()  # the files run now; no old image left to confuse anyone
        out.print("erased the old ROMFS image: the firmware runs from the files")
    where = "ROMFS (/rom)" if flasher.romfs else "files"
    if args.no_reset:
        out.print(f"done, from {where} (not restarted)")
        return 0
    out.print("restarting the board...")
    hello = flasher.reset_and_wait()
    out.print(
        f"[green]ok[/green]: firmware {hello.get('fw')}, protocol {hello.get('proto')}, "
        f"board {hello.get('board')} v{hello.get('board_version')}, running from {where}"
    )
    return 0
