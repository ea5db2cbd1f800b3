# Hardware backends behind one small interface (docs/firmware.md):
# rp2 (a Pico with MicroPython), circuitpython, sim (the unix port).
import sys


def platform_hal(board):
    # The HAL for the platform this runs on, built for `board`.
    if sys.platform == "rp2":
        from .rp2 import Hal as Rp2

        return Rp2(board)
    if sys.implementation.name == "circuitpython":
        from .circuitpython import Hal as CircuitPython

        return CircuitPython(board)
    from .sim import Hal as Sim

    return Sim(board)

