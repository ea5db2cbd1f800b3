# The virtual Pico's `vfs` module (MicroPython code, run by the unix port):
# MicroPython's own vfs plus rom_ioctl, as the rp2 port's C code provides on
# a board built with a ROMFS partition (ports/rp2/rp2_flash.c). The partition
# is a file next to the flash folder; installed as sys.modules["vfs"] at boot.
from os import getenv as _getenv
from os import stat as _stat

from vfs import *  # noqa: F401,F403  (mount, umount, VfsRom, VfsPosix, ...)

_BLOCK = 4096  # the RP2040's flash sector: the erase unit
_PAGE = 256  # the flash page: writes start on one and are whole pages
_EINVAL = 22


class _Flash(bytearray):
    """The partition as rp2.Flash shows it: a read-only buffer over its bytes
    (what VfsRom mounts) and the block device methods. Writes go to the file
    at once, as to flash: a power cut keeps what was written."""

    def readblocks(self, block, buf, offset=0):
        at = block * _BLOCK + offset
        buf[:] = memoryview(self)[at : at + len(buf)]

    def writeblocks(self, block, buf, offset=None):
        at = block * _BLOCK
        if offset is None:  # erase the blocks first, as rp2.Flash does
            for n in range((len(buf) + _BLOCK - 1) // _BLOCK):
                self._erase(block + n)
        else:
            at += offset
        self._program(at, buf)

    def ioctl(self, op, arg):
        if op in (1, 2, 3):  # init, deinit, sync
            return 0
        if op == 4:  # block count
            return len(self) // _BLOCK
        if op == 5:  # block size
            return _BLOCK
        if op == 6:  # erase one block
            self._erase(arg)
            return 0
        return None

    def _erase(self, block):
        at = block * _BLOCK
        if block < 0 or at + _BLOCK > len(self):
            raise ValueError("block %d is outside the ROM partition" % block)
        self[at : at + _BLOCK] = b"\xff" * _BLOCK
        self._save(at, _BLOCK)

    def _program(self, at, buf):
        n = len(buf)
        if at % _PAGE or n % _PAGE:
            raise ValueError("flash writes are whole %d-byte pages" % _PAGE)
        if at < 0 or at + n > len(self):
            raise ValueError("write outside the ROM partition")
        for i in range(n):  # programming only clears bits
            self[at + i] &= buf[i]
        self._save(at, n)

    def _save(self, at, n):
        f = open(_path, "r+b")
        f.seek(at)
        f.write(memoryview(self)[at : at + n])
        f.close()


def _load(path):
    size = _stat(path)[6]
    dev = _Flash(size)
    f = open(path, "rb")
    f.readinto(dev)
    f.close()
    return dev


_path = _getenv("TURTLEBOARD_ROMFS")
_rom = _load(_path)


def rom_ioctl(op, *args):
    """1: number of partitions; 2: partition 0 (rp2.Flash-like). rp2 has no other."""
    if op == 1:
        return 1
    if op == 2:
        return _rom
    return -_EINVAL
