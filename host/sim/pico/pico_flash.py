# A region of the virtual Pico's flash (MicroPython code, run by the unix
# port): a file next to the flash folder, shown as rp2.Flash shows a region
# of a Pico's flash (ports/rp2/rp2_flash.c): a read-only buffer over its
# bytes and the block device methods. Writes go to the file at once, as to
# flash: a power cut keeps what was written. The ROM partition (pico_vfs)
# and the game log's area (turtleboard_log) are such regions.
from os import stat as _stat

_BLOCK = 4096  # the RP2040's flash sector: the erase unit
_PAGE = 256  # the flash page: writes start on one and are whole pages


class Flash(bytearray):
    # .path: its file; .what: what it is, for a message

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
            raise ValueError("block %d is outside %s" % (block, self.what))
        self[at : at + _BLOCK] = b"\xff" * _BLOCK
        self._save(at, _BLOCK)

    def _program(self, at, buf):
        n = len(buf)
        if at % _PAGE or n % _PAGE:
            raise ValueError("flash writes are whole %d-byte pages" % _PAGE)
        if at < 0 or at + n > len(self):
            raise ValueError("write outside %s" % self.what)
        for i in range(n):  # programming only clears bits
            self[at + i] &= buf[i]
        self._save(at, n)

    def _save(self, at, n):
        f = open(self.path, "r+b")
        f.seek(at)
        f.write(memoryview(self)[at : at + n])
        f.close()


def load(path, what):
    size = _stat(path)[6]
    dev = Flash(size)
    dev.path = path
    dev.what = what
    f = open(path, "rb")
    f.readinto(dev)
    f.close()
    return dev
