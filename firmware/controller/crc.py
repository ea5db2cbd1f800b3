# The frames' CRC-16 in native code (viper): frames.crc16's loop, which
# every frame to the host pays for (~0.12 ms per 10 bytes in Python on a
# Pico). frames.py uses it where the port has native code (the rp2 port,
# the unix port) and its own Python elsewhere; tests/engine/test_checksums.py
# checks both give the same. (The game log's checks are in logcrc.py: only
# the log scan at boot uses them, and the device drops them after.)

import micropython


@micropython.viper
def crc16_native(data, high, low) -> int:
    # high, low: the byte-at-a-time table's high and low bytes (frames.py)
    d = ptr8(data)  # noqa: F821 (viper's pointer types)
    th = ptr8(high)  # noqa: F821
    tl = ptr8(low)  # noqa: F821
    n = int(len(data))
    hi = 0xFF
    lo = 0xFF
    i = 0
    while i < n:
        t = hi ^ d[i]
        hi = lo ^ th[t]
        lo = tl[t]
        i += 1
    return (hi << 8) | lo
