# Hardware backends behind one small interface (docs/firmware.md):
# rp2 (a Pico with MicroPython), circuitpython, sim (the unix port).
import sys


def platform_hal(board):
    # The HAL for the platform this runs on, built for `board`.
    if sys.platform == "rp2":
        from .rp2 import Hal as Rp2

        return Rp2(board, code_in_rom())
    if sys.implementation.name == "circuitpython":
        from .circuitpython import Hal as CircuitPython

        return CircuitPython(board)
    from .sim import Hal as Sim

    return Sim(board, in_rom=code_in_rom())


def code_in_rom():
    # Whether the firmware's packages were imported from the ROM partition
    # (/rom), not from the filesystem: then the filesystem can rest while
    # the board plays (a module imported later is not looked for there).
    for name in ("hal", "controller", "turtles"):
        path = getattr(sys.modules.get(name), "__path__", None)
        if not (isinstance(path, str) and path.startswith("/rom/")):
            return False
    return True
