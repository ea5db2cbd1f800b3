# Hardware backends behind one small interface (docs/firmware.md):
# rp2 (a Pico with MicroPython), circuitpython, sim (the unix port).
import sys


def platform_hal(board):
    # The HAL for the platform this runs on, built for `board`.
    if sys.platform == "rp2":
        from .rp2 import Hal
    elif sys.implementation.name == "circuitpython":
        from .circuitpython import Hal
    else:
        from .sim import Hal
    return Hal(board)
