# The quick path of Sensing.scan, in native code (viper): the settled cells,
# which are most of them on a quiet board. For such a cell the full scan
# would only note a changed reading, smooth it, and follow the empty level's
# drift; that is done here, and every other cell is left to scan() (its
# index in s._todo, in order: `left` of them). scan() does every cell itself
# on ports that have no native code (CircuitPython, the 32-bit wasm build).
# tests/firmware/test_hw_quick.py
# checks that both give the very same sensing, scan after scan.
# Viper ints are machine words; nothing here is negative or above 2**21
# but the offset d, which stays in a native int.

import micropython


@micropython.viper
def settle(s, now: int) -> int:
    # -> how many cells are left to scan()
    raw = ptr32(s.raw)  # noqa: F821 (viper's pointer types)
    last = ptr32(s._last)  # noqa: F821
    moved = ptr32(s._moved)  # noqa: F821
    total = ptr32(s._sum)  # noqa: F821
    base = ptr32(s.base)  # noqa: F821
    lo = ptr32(s._lo)  # noqa: F821
    hi = ptr32(s._hi)  # noqa: F821
    todo = ptr8(s._todo)  # noqa: F821
    k = int(s.smooth)
    low = int(s.rail)
    high = 65535 - low
    half = int(s.release) >> 1
    bias = int(1 << 17)
    n = int(len(s._todo))
    left = 0
    i = 0
    while i < n:
        r = raw[i]
        t = total[i]
        f = t + r - (t >> k)
        d = (f >> k) - base[i]
        e = d + bias
        if low < r and r < high and lo[i] <= e and e <= hi[i]:
            if r != last[i]:
                last[i] = r
                moved[i] = now
            total[i] = f
            if -half < d and d < half:
                base[i] += d >> 4  # clearly empty: follow its empty level's drift
        else:
            todo[left] = i
            left += 1
        i += 1
    return left
