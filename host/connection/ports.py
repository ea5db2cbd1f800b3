"""Find serial ports and tell which ones are Turtleboards (`turtleboard devices`)."""

from __future__ import annotations

import os
from typing import NamedTuple

from serial.tools import list_ports

from turtleboard.connection.link import Link, LinkError, PortError
from turtleboard.errors import UserError

RP2040_VID = 0x2E8A  # Raspberry Pi: the Pico's USB vendor id
CIRCUITPYTHON_VID = 0x239A  # Adafruit: boards running CircuitPython


class Port(NamedTuple):
    path: str
    description: str
    vid: int | None
    pid: int | None
    serial_number: str | None

    @property
    def rp2040(self) -> bool:
        return self.vid == RP2040_VID

    @property
    def circuitpython(self) -> bool:
        return self.vid == CIRCUITPYTHON_VID

    @property
    def likely_board(self) -> bool:
        """A board the firmware may run on: a Pico, or a CircuitPython board."""
        return self.rp2040 or self.circuitpython


def list_serial_ports(extra: list[str] | None = None) -> list[Port]:
    """The system's serial ports (sorted by path) plus explicit paths (ptys)."""
    found = {}
    for info in list_ports.comports():
        found[info.device] = Port(
            info.device, info.description or "", info.vid, info.pid, info.serial_number
        )
    for path in extra or []:
        if path not in found:
            desc = "pseudo-terminal" if "/pts/" in os.path.realpath(path) else "given path"
            found[path] = Port(path, desc, None, None, None)
    return [found[k] for k in sorted(found)]


def resolve_port(port: str) -> str:
    """The device behind `port`: itself, or, for a small file naming one (the
    virtual board's DIR/pty), the path in it, as `play` opens it."""
    try:
        return Link(port).device_path()
    except PortError as e:
        raise UserError(str(e)) from None


def probe(path: str, timeout: float = 1.5) -> tuple[str, dict | None]:
    """Open a port briefly and say hello. -> (verdict text, hello payload or None)."""
    link = Link(path)
    try:
        hello = link.open(timeout)
    except LinkError as e:
        return str(e), None
    finally:
        link.close()
    if hello.get("board") is None:
        return (
            "Turtleboard firmware %s, protocol %s, but no usable board file: put one on it with "
            "turtleboard flash --port %s --board <board file or mahe|race|tortuga>"
            % (hello.get("fw"), hello.get("proto"), path),
            hello,
        )
    game = hello.get("game") or "no game"
    return (
        "Turtleboard: firmware %s, protocol %s, board %s v%s, %s, %s actions"
        % (
            hello.get("fw"),
            hello.get("proto"),
            hello.get("board"),
            hello.get("board_version"),
            game,
            hello.get("n"),
        ),
        hello,
    )
