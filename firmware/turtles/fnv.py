# FNV-1a over bytes in native code (viper): game.fnv_more's loop, which
# hashes the state at every commit (~2.5 ms of it in Python on a Pico).
# game.py uses it where the port has native code (the rp2 port, the unix
# port) and its own loop elsewhere (CPython, CircuitPython, no native
# emitter); tests/engine/test_fnv_native.py checks both give the same.
# The two 16-bit halves as in fnv_more: no product passes 2**26.

import micropython


@micropython.viper
def fnv_native(state, data, table) -> object:
    # -> the state (hi, lo) after the bytes of `data` (each b as table[b]
    # when `table` is not None)
    hi = int(state[0])
    lo = int(state[1])
    d = ptr8(data)  # noqa: F821 (viper's pointer types)
    n = int(len(data))
    i = 0
    if not table:
        while i < n:
            lo ^= d[i]
            t = lo * 0x193
            hi = (hi * 0x193 + (t >> 16) + ((lo & 0xFF) << 8)) & 0xFFFF
            lo = t & 0xFFFF
            i += 1
    else:
        tb = ptr8(table)  # noqa: F821
        m = int(len(table))
        while i < n:
            b = d[i]
            if b >= m:  # as table[b] in Python
                raise IndexError("a value off the table")
            lo ^= tb[b]
            t = lo * 0x193
            hi = (hi * 0x193 + (t >> 16) + ((lo & 0xFF) << 8)) & 0xFFFF
            lo = t & 0xFFFF
            i += 1
    return (hi, lo)
