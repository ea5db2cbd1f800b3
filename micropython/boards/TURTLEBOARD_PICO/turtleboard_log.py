# The Turtleboard's Pico: the game log's raw flash area, the first 256 KB of
# the rp2 port's storage (MICROPY_HW_FLASH_STORAGE_BYTES); the filesystem is
# the rest (_boot.py). The firmware writes its game log here a page at a time
# (firmware/controller/flashlog.py) instead of into a file. Flash comes from
# _rp2 itself: the rp2 package's Python half (its PIO assembler) would stay
# in the heap for nothing (1.4 KB).
from _rp2 import Flash

LOG_AREA_BYTES = 256 * 1024  # a multiple of 4096 (the flash's erase unit)


def area():
    # The log area as a block device (readblocks, writeblocks with an
    # offset: a page program, ioctl 6: a sector erase) and a read-only buffer.
    return Flash(start=0, len=LOG_AREA_BYTES)


def filesystem():
    # The rest of the storage: the filesystem's block device.
    return Flash(start=LOG_AREA_BYTES)
