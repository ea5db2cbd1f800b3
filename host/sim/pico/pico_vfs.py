# The virtual Pico's `vfs` module (MicroPython code, run by the unix port):
# MicroPython's own vfs plus rom_ioctl, as the rp2 port's C code provides on
# a board built with a ROMFS partition (ports/rp2/rp2_flash.c). The partition
# is a file next to the flash folder; installed as sys.modules["vfs"] at boot.
from os import getenv as _getenv

from pico_flash import load as _load
from vfs import *  # noqa: F401,F403  (mount, umount, VfsRom, VfsPosix, ...)

_EINVAL = 22

_rom = _load(_getenv("TURTLEBOARD_ROMFS"), "the ROM partition")


def rom_ioctl(op, *args):
    """1: number of partitions; 2: partition 0 (rp2.Flash-like). rp2 has no other."""
    if op == 1:
        return 1
    if op == 2:
        return _rom
    return -_EINVAL
