# The game log's lines: the format gamelog.py writes and logscan.py reads
# back, each line ending in its CRC-32 (seal), and pushing a write down to
# the flash (sync). Shared by both, so that neither imports the other.

import os

MAX_ACTION = 100  # characters of an action text (the engine's are under 20)


class GameLogError(ValueError):
    pass


try:
    from binascii import crc32 as _c_crc32  # in C on the Pico, the unix port, CPython
except ImportError:
    _c_crc32 = None


def crc32(data):
    # CRC-32 (as zlib). Bitwise only where binascii has none: on a 32-bit
    # MicroPython every step of it makes a long int, garbage for each byte.
    if _c_crc32 is not None:
        return _c_crc32(data) & 0xFFFFFFFF
    crc = 0xFFFFFFFF
    for b in data:
        crc ^= b
        for _ in range(8):
            if crc & 1:
                crc = (crc >> 1) ^ 0xEDB88320
            else:
                crc >>= 1
    return crc ^ 0xFFFFFFFF


def seal(body):
    return "%s *%08x\n" % (body, crc32(body.encode()))


def sync(f):
    # Push the data down to the medium where the platform lets us.
    if hasattr(os, "fsync"):
        if f is not None:
            os.fsync(f.fileno())  # CPython; the rename is ordered after it
    elif hasattr(os, "sync"):
        os.sync()  # MicroPython: flush every filesystem
