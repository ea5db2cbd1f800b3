"""`turtleboard devices [--probe] [PATH...]`: list serial ports, mark the boards,
and the Picos waiting in BOOTSEL mode (their RPI-RP2 drive)."""

from __future__ import annotations

import json
import os

from turtleboard.connection.ports import list_serial_ports, probe
from turtleboard.errors import UserError
from turtleboard.flashing.uf2 import BOOTROMS, INFO_FILE, find_drives, read_info


def add_arguments(p) -> None:
    p.add_argument("paths", nargs="*",
                   help="extra ports to include (e.g. the pty of `turtleboard sim`), or the "
                        "folder of a BOOTSEL drive not mounted where drives usually are")
    p.add_argument("--probe", action="store_true", help="open each likely port and ask for a Turtleboard hello")
    p.add_argument("--all", action="store_true", help="with --probe: probe every port, not only likely ones")
    p.add_argument("--json", action="store_true", help="print the list as JSON")


def mark(row: dict) -> str:
    if row["rp2040"]:
        return "  RP2040 (a Pico?)"
    if row["circuitpython"]:
        return "  CircuitPython board (Adafruit USB id)"
    return ""


def drive_line(drive) -> str:
    if drive.board_id in BOOTROMS:
        return (f"{drive.path}  {drive.board_id} drive: an {drive.chip} in BOOTSEL mode, no "
                f"MicroPython running. Put it on with `turtleboard flash --micropython "
                f"FILE.uf2` (the .uf2 from micropython.org/download/RPI_PICO)")
    return (f"{drive.path}  UF2 drive of {drive.model or drive.board_id or 'an unknown board'}"
            f" (not a Pico)")


def run(args) -> int:
    ports, folders = [], []
    for path in args.paths:
        if not os.path.exists(path):
            raise UserError(f"no such port: {path}")
        if os.path.isdir(path):
            if read_info(path) is None:
                raise UserError(f"{path} is a folder without {INFO_FILE}: neither a port "
                                f"nor a BOOTSEL drive")
            folders.append(path)
        else:
            ports.append(path)
    rows = []
    for port in list_serial_ports(ports):
        likely = port.likely_board or port.path in ports
        row: dict = {
            "kind": "serial",
            "port": port.path,
            "description": port.description,
            "vid": port.vid,
            "pid": port.pid,
            "rp2040": port.rp2040,
            "circuitpython": port.circuitpython,
            "turtleboard": None,
            "probe": None,
        }
        if args.probe and (likely or args.all):
            verdict, hello = probe(port.path)
            row["probe"] = verdict
            row["turtleboard"] = hello
        rows.append(row)
    drives = find_drives(folders)
    if args.json:
        rows += [{"kind": "bootsel", "drive": d.path, "board_id": d.board_id, "model": d.model,
                  "chip": d.chip} for d in drives]
        print(json.dumps(rows, indent=2, sort_keys=True))
        return 0
    if not rows and not drives:
        print("no serial ports found. Plug the board in (or start one with `turtleboard sim`"
              " and pass its pty path here).")
        return 1
    for row in rows:
        ids = f" [{row['vid']:04x}:{row['pid']:04x}]" if row["vid"] is not None else ""
        print(f"{row['port']}  {row['description']}{ids}{mark(row)}")
        if row["probe"]:
            sign = "*" if row["turtleboard"] else "-"
            print(f"    {sign} {row['probe']}")
    for drive in drives:
        print(drive_line(drive))
    if rows and not args.probe:
        print("(add --probe to ask each likely port whether a Turtleboard answers)")
    return 0
