# The virtual Pico's game-log area, as the Turtleboard build of MicroPython
# freezes it (micropython/boards/TURTLEBOARD_PICO/turtleboard_log.py): raw
# flash outside the filesystem, here a file next to the flash folder
# ($TURTLEBOARD_LOG_AREA). pico_boot imports it at power-on when the virtual
# Pico has one; a stock Pico has no such module.
from os import getenv

from pico_flash import load

_area = load(getenv("TURTLEBOARD_LOG_AREA"), "the game log's area")
LOG_AREA_BYTES = len(_area)


def area():
    return _area
