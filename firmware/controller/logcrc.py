# The game log's line check in native code (viper), for the loop that
# costs most in Python on a Pico: logscan._sealed, which a boot pays for
# every line of a long game (~0.2 ms a line). logscan.py uses them where the
# port has native code (the rp2 port, the unix port) and its own Python
# elsewhere; tests/engine/test_checksums.py checks both give the same. Only
# the log scan imports this: the device drops both after the restore
# (controller/boot.py), ~1.6 KB of native code off the heap.

from array import array

import micropython


def _nibble_tables():
    # CRC-32's (as zlib's) step for each low nibble of the register, as
    # the step's high and low 16-bit halves.
    high = array("H", [0] * 16)
    low = array("H", [0] * 16)
    for n in range(16):
        hi = 0
        lo = n
        for _ in range(4):
            bit = lo & 1
            lo = (lo >> 1) | ((hi & 1) << 15)
            hi >>= 1
            if bit:
                hi ^= 0xEDB8  # the polynomial 0xEDB88320, reflected
                lo ^= 0x8320
        high[n] = hi
        low[n] = lo
    return high, low


_HIGH, _LOW = _nibble_tables()


@micropython.viper
def sealed_native(raw) -> int:
    # A game log line "<body> *<crc32 in 8 hex digits>\n": the length of
    # its body when the CRC-32 of the body is the one written, else -1.
    # The register as two 16-bit halves, so that no value passes 2**30 on
    # a 32-bit port; half a byte a step.
    d = ptr8(raw)  # noqa: F821
    n = int(len(raw)) - 11
    if n < 0 or d[n] != 32 or d[n + 1] != 42 or d[n + 10] != 10:  # " *", "\n"
        return -1
    want_hi = 0
    want_lo = 0
    i = 0
    while i < 8:
        c = d[n + 2 + i]
        if c >= 48 and c <= 57:  # 0-9
            v = c - 48
        elif c >= 97 and c <= 102:  # a-f
            v = c - 87
        elif c >= 65 and c <= 70:  # A-F
            v = c - 55
        else:
            return -1
        if i < 4:
            want_hi = (want_hi << 4) | v
        else:
            want_lo = (want_lo << 4) | v
        i += 1
    th = ptr16(_HIGH)  # noqa: F821
    tl = ptr16(_LOW)  # noqa: F821
    hi = 0xFFFF
    lo = 0xFFFF
    i = 0
    while i < n:
        lo ^= d[i]
        t = lo & 15
        lo = ((lo >> 4) | ((hi & 15) << 12)) ^ tl[t]
        hi = (hi >> 4) ^ th[t]
        t = lo & 15
        lo = ((lo >> 4) | ((hi & 15) << 12)) ^ tl[t]
        hi = (hi >> 4) ^ th[t]
        i += 1
    if hi ^ 0xFFFF != want_hi or lo ^ 0xFFFF != want_lo:
        return -1
    return n


@micropython.viper
def ascii_native(data, start: int, end: int) -> bool:
    # Whether data[start:end] is ASCII (and so UTF-8 text).
    d = ptr8(data)  # noqa: F821
    i = start
    while i < end:
        if d[i] >= 128:
            return False
        i += 1
    return True
