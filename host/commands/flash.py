"""`turtleboard flash [--port P] --board FILE`: firmware and board file onto a board.
`turtleboard flash --micropython FILE.uf2 [--board FILE]`: MicroPython first,
onto a Pico in BOOTSEL mode (its RPI-RP2 drive), then the firmware.
`turtleboard flash [--drive DIR] --board FILE` onto a board running
CircuitPython: onto its CIRCUITPY drive, the CircuitPython way.

With a ROMFS partition (a MicroPython built with one) the packages go into it
as one image and run from flash; without one they are copied as .mpy files
and loaded into the heap (docs/host.md)."""

from __future__ import annotations

import sys
from pathlib import Path

from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn

from turtleboard.connection.ports import list_serial_ports, resolve_port
from turtleboard.errors import UserError
from turtleboard.flashing.circuitpy import (
    DriveInstall,
    check_version,
    circuitpy_drive,
    console_banner,
    drive_files,
    find_circuitpy,
    soft_reload,
)
from turtleboard.flashing.flasher import (
    FILES_COPYING,
    NO_MPY_CROSS,
    NOT_RESTARTED,
    NOTHING_CHANGED,
    Flasher,
    copy_uf2,
    wait_for_serial,
)
from turtleboard.flashing.uf2 import (
    BOOTROMS,
    INFO_FILE,
    WHERE_TO_GET,
    check_uf2,
    find_drives,
    read_info,
)
from turtleboard.paths import BOARD_HELP, FIRMWARE, board_arg, check_firmware
from turtleboard.terminal import message_console

NO_ROMFS = ("this board's MicroPython has no ROMFS partition, so the firmware runs from RAM "
            "(about 2x the heap; see docs/firmware.md)")
UF2_COPYING = ("the copy of MicroPython onto the Pico's drive was cut short: the Pico stays in "
               "BOOTSEL mode (if its drive is gone, unplug it and plug it in holding BOOTSEL)")
UF2_RESTARTING = "MicroPython was copied onto the Pico, which was restarting"
NO_FIRMWARE = "MicroPython is on the board, the Turtleboard firmware not yet"


def add_arguments(p) -> None:
    p.add_argument("--port", help="the serial port, or the virtual board's DIR/pty "
                                  "(default: the one Pico plugged in)")
    p.add_argument("--board", type=board_arg,
                   help=BOARD_HELP + " (needed unless --micropython only puts MicroPython on)")
    p.add_argument("--micropython", metavar="FILE.uf2",
                   help="first put MicroPython on a Pico in BOOTSEL mode (its RPI-RP2 drive): "
                        "the .uf2 from micropython.org/download/RPI_PICO, or the Turtleboard "
                        "build (micropython/boards/TURTLEBOARD_PICO)")
    p.add_argument("--drive", metavar="DIR",
                   help="a CircuitPython board's CIRCUITPY drive to flash (default: the one "
                        "mounted, found by its boot_out.txt); with --micropython: the BOOTSEL "
                        "drive's folder (default: found among the mounted drives by its "
                        "INFO_UF2.TXT)")
    p.add_argument("--wait", type=float, default=60, metavar="S",
                   help="with --micropython: seconds to wait for the board to come back as a "
                        "serial port (default 60)")
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


def bootsel_advice(drive) -> str:
    return (f"a Pico in BOOTSEL mode is plugged in (its drive {drive.path}, {drive.board_id}): "
            f"no MicroPython runs on it, so it has no serial port yet. Put MicroPython on it "
            f"first: turtleboard flash --micropython FILE.uf2 --board <board>. {WHERE_TO_GET}.")


def pick_port(port: str | None, drives: list[str] | None = None) -> str:
    """The port named, or the one board plugged in; when there is none, a Pico
    in BOOTSEL mode (found, or among `drives`) gets advice on MicroPython."""
    if port:
        return port
    boards = [p.path for p in list_serial_ports() if p.likely_board]
    if len(boards) == 1:
        return boards[0]
    if not boards:
        picos = [d for d in find_drives(drives) if d.board_id in BOOTROMS]
        if picos:
            raise UserError(bootsel_advice(picos[0]))
        raise UserError("no Pico found; plug it in or name the port with --port")
    raise UserError(f"several Picos are plugged in ({', '.join(boards)}); choose one with --port")


def bootsel_drive(folder: str | None):
    """The one Pico in BOOTSEL mode (or the drive named with --drive)."""
    if folder:
        drive = read_info(folder)
        if drive is None:
            raise UserError(f"--drive {folder}: no {INFO_FILE} there, so it is not a BOOTSEL "
                            f"drive (a Pico's is named RPI-RP2 and holds INDEX.HTM and {INFO_FILE})")
        drives = [drive]
    else:
        drives = [d for d in find_drives() if d.board_id in BOOTROMS]
    if not drives:
        raise UserError(
            "no Pico in BOOTSEL mode found (a USB drive named RPI-RP2). Unplug the Pico, hold "
            "its BOOTSEL button while plugging it in, and flash again; if the drive shows but "
            "is not found here, name its folder with --drive."
        )
    if len(drives) > 1:
        raise UserError(f"several BOOTSEL drives are mounted ({', '.join(d.path for d in drives)}); "
                        f"choose one with --drive")
    drive = drives[0]
    if drive.board_id not in BOOTROMS:
        raise UserError(f"{drive.path} is a UF2 drive for {drive.board_id or 'an unknown board'} "
                        f"({drive.model or 'no model given'}), not a Pico's (RPI-RP2)")
    return drive


def put_micropython(args, out: Console, flasher: Flasher) -> str:
    """MicroPython onto the Pico in BOOTSEL mode; -> the serial port it comes back on."""
    uf2 = check_uf2(args.micropython)  # the file first: a bad one touches nothing
    drive = bootsel_drive(args.drive)
    chip, families = BOOTROMS[drive.board_id]
    if uf2.family not in families:
        raise UserError(
            f"{uf2.path} is for {uf2.chip} but the Pico on {drive.path} is an {chip} "
            f"({drive.model}): its bootrom would ignore it. {WHERE_TO_GET}."
        )
    out.print(f"{uf2.path.name}: UF2 for {uf2.chip}, {uf2.blocks} blocks, {uf2.size} bytes "
              f"of flash from 0x{uf2.start:08x}, ok")
    before = {p.path for p in list_serial_ports()}
    flasher.state = UF2_COPYING
    copy_uf2(uf2, drive.path)
    flasher.state = UF2_RESTARTING
    out.print(f"copied onto {drive.path} ({drive.board_id}); waiting up to {args.wait:g} s for "
              f"the board to restart as a serial port...")
    port = wait_for_serial(before, args.port, args.wait)
    if port is None:
        raise UserError(
            f"{uf2.path.name} was copied onto {drive.path}, but no board came back as a serial "
            f"port within {args.wait:g} s. If the {drive.board_id} drive shows again, the Pico "
            f"did not take the file: check that it is MicroPython for the {chip} and flash "
            f"again. Otherwise unplug the Pico, plug it in again (without BOOTSEL) and look for "
            f"it with `turtleboard devices` (on Linux you need the 'dialout' group)."
        )
    flasher.state = NO_FIRMWARE
    out.print(f"MicroPython is on the board: {port}")
    return port


def circuitpy_target(args):
    """The CIRCUITPY drive to flash when it is one: --drive DIR (a folder with
    CircuitPython's boot_out.txt), else, with no --port, the one mounted."""
    if args.drive:
        return circuitpy_drive(args.drive)
    if args.port:
        return None
    drives = find_circuitpy()
    if len(drives) > 1:
        raise UserError(f"several CIRCUITPY drives are mounted ({', '.join(d.path for d in drives)}); "
                        f"choose one with --drive")
    return drives[0] if drives else None


def circuitpy_of_port(port: str, said):
    """The drive of the CircuitPython board on `port` (its console said so)."""
    drives = find_circuitpy()
    if len(drives) != 1:
        why = "none is mounted" if not drives else "several are mounted"
        raise UserError(
            f"{port} runs CircuitPython {said.version}, which takes the firmware onto its "
            f"CIRCUITPY drive, but {why}: name its folder with --drive")
    return drives[0]


def circuitpy_port(args) -> str | None:
    """The console of the CircuitPython board, to restart it: --port, or the one
    serial port with Adafruit's USB id."""
    if args.port:
        return resolve_port(args.port)
    ports = [p.path for p in list_serial_ports() if p.circuitpython]
    return ports[0] if len(ports) == 1 else None


def flash_circuitpy(args, out: Console, flasher: Flasher, drive) -> int:
    """The firmware onto a CIRCUITPY drive, then a restart through its console."""
    check_version(drive)
    if args.romfs:
        raise UserError("CircuitPython has no ROMFS partition: flash without --romfs")
    out.print(f"{drive.path}: CircuitPython {drive.version} on {drive.board}, a CIRCUITPY drive",
              markup=False, soft_wrap=True)
    if not flasher.compiler:
        out.print(NO_MPY_CROSS, markup=False, soft_wrap=True)
    install = DriveInstall(drive, drive_files(flasher))
    todo = list(install.files) if args.force else install.changed()
    stale = install.stale()
    out.print(f"{len(install.files)} files, {len(todo)} changed"
              + (f", {len(stale)} stale to remove" if stale else ""))
    if todo or stale:
        install.check_room(todo)
        flasher.state = FILES_COPYING
        bar, task = progress_bar(out, "copying", len(todo))
        with bar:
            def copied(i, n, path):
                bar.update(task, completed=i, description=path)

            install.write(sorted(todo, key=lambda p: (p == "code.py", p)), copied)
    else:
        out.print("nothing to copy: the drive has these files already")
    flasher.state = NOT_RESTARTED
    port = None if args.no_reset else circuitpy_port(args)
    if port is None:
        out.print("done: the firmware is on the drive. Press the board's reset button (or unplug "
                  "it and plug it in again) to start it" + ("" if args.no_reset else
                  "; no CircuitPython console was found to restart it through"), soft_wrap=True)
        return 0
    out.print(f"restarting the board through its console {port}...")
    flasher.port = port
    hello = flasher.reset_and_wait()
    out.print(f"[green]ok[/green]: firmware {hello.get('fw')}, protocol {hello.get('proto')}, "
              f"board {hello.get('board')} v{hello.get('board_version')}, on CircuitPython "
              f"{drive.version}")
    return 0


def progress_bar(out: Console, label: str, total: int):
    bar = Progress(TextColumn(label), BarColumn(),
                   TextColumn("{task.completed}/{task.total} {task.description}"),
                   console=out, transient=False)
    return bar, bar.add_task("", total=max(1, total))


def run(args) -> int:
    out = message_console()
    if not args.board and not args.micropython:
        raise UserError("say which board file to put on the board: --board <board file or "
                        "mahe|race|tortuga>")
    # a firmware folder found empty (a broken install, a wrong --firmware) is an
    # error, never a silent copy of nothing
    firmware = check_firmware(Path(args.firmware or FIRMWARE))
    with Flasher("", args.board or "", firmware) as flasher:
        try:
            return flash(args, out, flasher)
        except UserError as e:
            if flasher.state != FILES_COPYING:
                raise
            raise UserError(f"{e}. Now {flasher.state}. Flash again to finish.") from None
        except KeyboardInterrupt:
            port = args.port or flasher.port or "<port>"
            again = f"turtleboard flash --port {port} --board {args.board or '<board>'}"
            if flasher.state == NOTHING_CHANGED:
                what = "stopped before anything on the board was changed"
            else:
                what = f"stopped half-way: {flasher.state}"
            print(f"turtleboard flash: interrupted, {what}. Flash again to finish: {again}",
                  file=sys.stderr, flush=True)
            return 130


def flash(args, out: Console, flasher: Flasher) -> int:
    if args.board:
        board = flasher.check_board()
        out.print(f"board file {args.board}: {board.get('name', '?')} v{board.get('version', '?')}, ok")
        if args.calibration:
            flasher.check_calibration(args.calibration)
            out.print(f"calibration {args.calibration}: for this board file, ok")
    if args.micropython:
        port = put_micropython(args, out, flasher)
        if not args.board:
            out.print("done: MicroPython only; put the firmware on with "
                      f"turtleboard flash --port {port} --board <board>")
            return 0
    else:
        drive = circuitpy_target(args)
        if drive is not None:
            return flash_circuitpy(args, out, flasher, drive)
        port = pick_port(args.port, [args.drive] if args.drive else None)
    flasher.port = resolve_port(port)  # the virtual board's DIR/pty names its pty
    flasher.check_port_free()
    said = console_banner(flasher.port)
    if said is not None:  # CircuitPython: through its drive
        try:
            drive = circuitpy_of_port(flasher.port, said)
        except UserError:
            soft_reload(flasher.port)  # the firmware runs on, as before
            raise
        return flash_circuitpy(args, out, flasher, drive)
    info = flasher.device_info()
    flasher.check_micropython()
    out.print(
        f"{flasher.port}: MicroPython {info['version']} on {info['platform']}, "
        f".mpy v{info['mpy']}.{info['mpy_sub']}" + (f" ({info['arch']})" if info["arch"] else "")
    )
    if not flasher.compiler:
        out.print(NO_MPY_CROSS, markup=False, soft_wrap=True)  # one line, [mpy] as it is
    flasher.build()
    rom = flasher.read_rom()
    # without mpy-cross the sources go on as files: in a ROMFS image they would
    # not run in place, and they do not fit a Pico's partition
    if args.files or (rom is None or not flasher.compiler) and not args.romfs:
        if rom is None:
            out.print(NO_ROMFS)
        else:
            why = "--files" if args.files else "sources"
            out.print(f"copying files ({why}), not into the ROMFS partition ({rom['size']} bytes)")
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
