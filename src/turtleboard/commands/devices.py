"""`turtleboard devices [--probe] [PATH...]`: list serial ports, mark the boards."""

from __future__ import annotations

import json
import os

from turtleboard.errors import UserError
from turtleboard.ports import list_serial_ports, probe


def add_arguments(p) -> None:
    p.add_argument("paths", nargs="*", help="extra ports to include (e.g. the pty of `turtleboard sim`)")
    p.add_argument("--probe", action="store_true", help="open each likely port and ask for a Turtleboard hello")
    p.add_argument("--all", action="store_true", help="with --probe: probe every port, not only likely ones")
    p.add_argument("--json", action="store_true", help="print the list as JSON")


def run(args) -> int:
    for path in args.paths:
        if not os.path.exists(path):
            raise UserError(f"no such port: {path}")
    ports = list_serial_ports(args.paths)
    rows = []
    for port in ports:
        likely = port.likely_board or port.path in args.paths
        row = {
            "port": port.path,
            "description": port.description,
            "vid": port.vid,
            "pid": port.pid,
            "rp2040": port.likely_board,
            "turtleboard": None,
            "probe": None,
        }
        if args.probe and (likely or args.all):
            verdict, hello = probe(port.path)
            row["probe"] = verdict
            row["turtleboard"] = hello
        rows.append(row)
    if args.json:
        print(json.dumps(rows, indent=2, sort_keys=True))
        return 0
    if not rows:
        print("no serial ports found. Plug the board in (or start one with `turtleboard sim`"
              " and pass its pty path here).")
        return 1
    for row in rows:
        ids = f" [{row['vid']:04x}:{row['pid']:04x}]" if row["vid"] is not None else ""
        mark = "  RP2040 (a Pico?)" if row["rp2040"] else ""
        print(f"{row['port']}  {row['description']}{ids}{mark}")
        if row["probe"]:
            sign = "*" if row["turtleboard"] else "-"
            print(f"    {sign} {row['probe']}")
    if not args.probe:
        print("(add --probe to ask each likely port whether a Turtleboard answers)")
    return 0
