# Our own PRNG: the same numbers on CPython and MicroPython. Python's
# `random` differs between the two, so the product never uses it.
#
# It is xorshift32, kept as two 16-bit halves: a 32-bit MicroPython (the
# Pico's) stores ints >= 2**30 on the heap, so no value here ever reaches
# 2**30 (the biggest is a product below n * n in below()). The numbers are
# those of the plain 32-bit xorshift32 with the same seed.

MAX_N = 1 << 15  # below(n) takes n up to this


class Rng:
    def __init__(self, seed=1):
        self._n = None  # below()'s last n, and what it worked out for it
        self._m = 0
        self._top = 0
        self.hi = (seed >> 16) & 0xFFFF
        self.lo = seed & 0xFFFF
        if not (self.hi or self.lo):
            self.hi, self.lo = 0x9E37, 0x79B9

    def stir(self, value):
        # Mixes a small int (e.g. the clock's milliseconds) into the state.
        self.lo ^= value & 0xFFFF
        if not (self.hi or self.lo):
            self.lo = 1

    def _step(self):
        # x ^= x << 13; x ^= x >> 17; x ^= x << 5 (all mod 2**32), per half.
        hi = self.hi
        lo = self.lo
        hi ^= ((hi << 13) | (lo >> 3)) & 0xFFFF
        lo ^= (lo << 13) & 0xFFFF
        lo ^= hi >> 1
        hi ^= ((hi << 5) | (lo >> 11)) & 0xFFFF
        lo ^= (lo << 5) & 0xFFFF
        self.hi = hi
        self.lo = lo

    def next16(self):
        # The high half of the next 32-bit output.
        self._step()
        return self.hi

    def next_halves(self):
        # The next 32-bit output as (high 16 bits, low 16 bits).
        self._step()
        return self.hi, self.lo

    def below(self, n):
        # Uniform in 0..n-1, without modulo bias: the 32-bit output x is
        # used if x < 2**32 - (2**32 % n), and x % n is returned, both
        # worked out on the halves (the step inlined: this is the hot path).
        if n != self._n:
            if n <= 0 or n > MAX_N:
                raise ValueError("below() needs 1 <= n <= %d" % MAX_N)
            m = 65536 % n                # 2**16 % n
            self._n = n
            self._m = m
            self._top = 65536 - (m * m) % n  # 2**32 % n outputs left out at the top
        m = self._m
        top = self._top
        hi = self.hi
        lo = self.lo
        while True:
            hi ^= ((hi << 13) | (lo >> 3)) & 0xFFFF
            lo ^= (lo << 13) & 0xFFFF
            lo ^= hi >> 1
            hi ^= ((hi << 5) | (lo >> 11)) & 0xFFFF
            lo ^= (lo << 5) & 0xFFFF
            if hi < 0xFFFF or lo < top:
                self.hi = hi
                self.lo = lo
                return ((hi % n) * m % n + lo) % n

    def choice(self, items):
        return items[self.below(len(items))]

    def weighted(self, pairs):
        # pairs: list of (item, positive int weight)
        total = 0
        for _, w in pairs:
            total += w
        r = self.below(total)
        for item, w in pairs:
            if r < w:
                return item
            r -= w
        raise ValueError("weighted() needs positive weights")

    def shuffle(self, items):
        # Fisher-Yates in place.
        i = len(items) - 1
        while i > 0:
            j = self.below(i + 1)
            items[i], items[j] = items[j], items[i]
            i -= 1

