# Our own PRNG (xorshift32): the same numbers on CPython and MicroPython.
# Python's `random` differs between the two, so the product never uses it.

MASK = 0xFFFFFFFF


class Rng:
    def __init__(self, seed=1):
        s = seed & MASK
        self.state = s if s else 0x9E3779B9

    def next32(self):
        x = self.state
        x ^= (x << 13) & MASK
        x ^= x >> 17
        x ^= (x << 5) & MASK
        self.state = x
        return x

    def below(self, n):
        # Uniform in 0..n-1, without modulo bias.
        if n <= 0:
            raise ValueError("below() needs n >= 1")
        limit = (MASK + 1) - ((MASK + 1) % n)
        while True:
            x = self.next32()
            if x < limit:
                return x % n

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
