# The game log on a raw flash area outside the filesystem (the Turtleboard
# build of MicroPython gives one: micropython/boards/TURTLEBOARD_PICO; the
# virtual Pico plays it with a file). Appending a line costs a page program
# (~0.7 ms on a Pico), not the sector erase a filesystem's append costs
# (~45 ms): so every action can be on flash before its `action` frame goes out.
#
# The area is a ring of 4 KB sectors. A game's log is the same lines as the
# file's (gamelog.py, logline.py), written one after the other from the start
# of a sector, on across the next sectors; it ends at the first erased byte
# (0xff, never in UTF-8 text). Its header line carries the game's number in
# the ring ("log": n): the current game is the good header at a sector's
# start with the highest number. A new game, or a copy of the game without a
# torn end (a repair), begins at the next erased sector with the next number,
# its header programmed last, so that a power cut before then leaves the game
# before it current. Sectors are erased ahead of the end (prepare()) while
# the board is still; a write that finds none erased erases one itself
# (counted in `forced`).
#
# On a stock MicroPython the filesystem owns the whole flash: there the ring's
# sectors are the flash blocks of the log's files (logfiles.py), in order,
# given as `where`; elsewhere sector k is the area's block k.

from .logline import GameLogError

SECTOR = 4096  # the flash's erase unit
PAGE = 256  # its program unit: every write programs whole pages, 0xff where nothing changes
RESERVE = 4  # sectors kept erased ahead of the end (16 KB: ~800 Mahé actions)


class LogArea:
    later = False  # a move the pieces prove written after its frame (a stock Pico's: gamelog.log_area)

    def __init__(self, dev, path, where=None):
        self.dev = dev  # rp2.Flash-like: readblocks, writeblocks(block, buf, offset), ioctl
        self.mem = memoryview(dev)  # the flash's bytes, read in place (XIP on a Pico)
        if where is None:
            where = range(len(self.mem) // SECTOR)  # (a range: no list in the heap)
        self.where = where  # the ring's sectors: the flash block of each, in order
        self.sectors = len(where)
        self.size = self.sectors * SECTOR
        self.most = self.sectors // 2 * SECTOR  # the most a game holds: a copy of it always fits
        self.path = path  # the log's name: its report and damaged copy are files of that name
        self.page = bytearray(b"\xff" * PAGE)  # all 0xff between writes: a page program changes only what it sets
        self.at = 0  # where reading the game as a file is (open(), read(), readline(), seek())
        self.found = False  # find() done
        self.start = None  # where the current game begins (a sector's start), or None
        self.end = 0  # its length in bytes: it ends at start + end
        self.number = 0  # its number in the ring (the header's "log")
        self.ready = 0  # sectors after the end's known erased
        self.erased = 0  # sectors erased ahead while the board was still (prepare)
        self.forced = 0  # sectors erased by a write that found none erased

    # ---- finding the game ------------------------------------------------

    def find(self):
        # At boot: the current game, its end, and how many sectors after it
        # are erased.
        self.found = True
        best = None
        for s in range(self.sectors):
            k = _number(self.header_at(s * SECTOR))
            if k is not None and (best is None or k > best[0]):
                best = (k, s * SECTOR)
        if best is None:
            self.start = None
            self.end = 0
            self.number = 0
            self.ready = 0
            return
        self.number, self.start = best
        mem = self.mem
        at = 0
        while at < self.most:
            a = self._flash((self.start + at) % self.size)
            if mem[a + PAGE - 1] == 0xFF:  # the end is in this page
                at += bytes(mem[a:a + PAGE]).find(b"\xff")
                break
            at += PAGE
        self.end = at
        self.ready = 0
        while self.ready < RESERVE and self._next_free(self.ready) is not None and self._blank(
                self._next_free(self.ready)):
            self.ready += 1

    def header_at(self, a):
        # The line at the start of the sector at area offset `a` if it begins
        # "H " (up to 1 KB), else None.
        mem = self.mem
        a = self._flash(a)
        if mem[a] != 72 or mem[a + 1] != 32:
            return None
        end = bytes(mem[a:a + 1024]).find(b"\n")
        return bytes(mem[a:a + end + 1]) if end > 0 else None

    # ---- reading: the game as a file, for logscan -----------------------------

    def open(self):
        # The game from its start, read as a file (read, readline, seek, close).
        if not self.found:
            self.find()
        if self.start is None:
            raise OSError(2, "no game in the log area")
        self.at = 0
        return self

    def read(self, n=-1):
        got = self.bytes_at(self.at, self.end if n < 0 else n)
        self.at += len(got)
        return got

    def readline(self):
        line = b""
        while True:
            chunk = self.bytes_at(self.at, 128)
            if not chunk:
                return line
            k = chunk.find(b"\n") + 1
            if k:
                self.at += k
                return line + chunk[:k]
            self.at += len(chunk)
            line += chunk

    def seek(self, at):
        self.at = at

    def close(self):
        pass

    def bytes_at(self, at, n):
        # n bytes of the game from its byte `at` (fewer at its end).
        n = min(n, self.end - at)
        if n <= 0:
            return b""
        a = (self.start + at) % self.size
        got = b""
        while True:  # a sector at a time: the ring's sectors need not be the flash's in order
            k = min(n, SECTOR - a % SECTOR)
            p = self._flash(a)
            got += bytes(self.mem[p:p + k])
            n -= k
            if not n:
                return got
            a = (a + k) % self.size

    # ---- writing -----------------------------------------------------------

    def append(self, data):
        # Program `data` (whole lines, bytes) after the game's end.
        if self.start is None:
            raise GameLogError("no game in the log area to add to; begin() one first")
        at = self.start + self.end
        n = len(data)
        off = at % PAGE
        if off + n < PAGE and at % SECTOR:  # one page, no sector edge reached: the common case, lean
            page = self.page
            page[off:off + n] = data
            a = at % self.size
            try:
                self.dev.writeblocks(self.where[a // SECTOR], page, a % SECTOR - off)
            finally:
                page[off:off + n] = b"\xff" * n
        else:
            self._program(at, data, self.start + self.most)
        self.end += n

    def begin(self, lines):
        # A new game (or a copy of this one) from the next erased sector:
        # `lines`, its header line first (the caller gives it this ring's
        # next number: number + 1). The header is programmed last, and the
        # game before stays whole until then.
        if not self.found:
            self.find()
        s = self._next_free(0)
        if s is None:
            raise GameLogError("the game log is full (a game of over %d KB); start a new game" % (self.most // 1024))
        stop = s + self.size
        if self.start is not None:
            stop = s + ((self.start - s) % self.size or self.size)
        if self.ready:
            self.ready -= 1  # (entered now)
        elif not self._blank(s):
            self._erase(s, True)
        header = None
        at = s
        try:
            for line in lines:
                data = line.encode()
                if header is None:
                    header = data
                    at += len(data)
                    continue
                self._program(at, data, stop)
                at += len(data)
            if header is None:
                raise GameLogError("a game begins with its header line")
            self._program(s, header, stop, True)
        except Exception:
            self.ready = 0  # the sectors after the game's end are looked at again
            raise
        self.start = s
        self.end = at - s
        self.number += 1

    def prepare(self):
        # One sector erased ahead of the game's end, while the board is still
        # (~45 ms on a Pico). -> True if it erased one, False when RESERVE
        # sectors are ready (or the ring holds no more).
        if not self.found:
            self.find()
        if self.ready >= RESERVE:
            return False
        a = self._next_free(self.ready)
        if a is None:
            return False
        if not self._blank(a):
            self._erase(a, False)
        self.ready += 1
        return True

    # ---- inside ------------------------------------------------------------

    def _program(self, at, data, stop, fresh=False):
        # `data` at area offset `at` (unwrapped: it may pass the ring's end;
        # nothing at `stop` or after), a page program at a time. Every sector
        # it enters is erased first (a ready one, or erased now), and so is
        # the next one when it ends on a sector's edge: the game always ends
        # at an erased byte, never in older data.
        n = len(data)
        if at + n >= stop:
            raise GameLogError("the game log is full (a game of over %d KB); start a new game" % (self.most // 1024))
        b = (at + SECTOR - 1) // SECTOR * SECTOR  # the first sector edge at or after `at`
        if fresh and b == at:
            b += SECTOR  # (a new game's first sector: begin() made it ready)
        while b <= at + n:
            if b < at + n:  # entered by this write
                if self.ready:
                    self.ready -= 1
                    b += SECTOR
                    continue
            elif self.ready:  # ends on the edge: the next sector is ready
                break
            a = b % self.size
            if not self._blank(a):
                self._erase(a, True)
            if b == at + n:
                self.ready += 1
            b += SECTOR
        page = self.page
        size = self.size
        i = 0
        while i < n:
            a = (at + i) % size
            off = a % PAGE
            k = min(PAGE - off, n - i)
            page[off:off + k] = data[i:i + k]
            try:
                self.dev.writeblocks(self.where[a // SECTOR], page, a % SECTOR - off)
            finally:
                page[off:off + k] = b"\xff" * k
            i += k

    def _flash(self, a):
        # The flash offset of area offset `a`.
        return self.where[a // SECTOR] * SECTOR + a % SECTOR

    def _next_free(self, k):
        # The area offset of the k-th sector after the one the game ends in
        # (k 0: where a new game begins), or None where that would come back
        # to the game's first sector.
        if self.start is None:
            return k * SECTOR if k < self.sectors else None
        nxt = ((self.start + self.end - 1) // SECTOR + 1 + k) * SECTOR
        if nxt + SECTOR > self.start + self.size:
            return None
        return nxt % self.size

    def _blank(self, a):
        mem = self.mem
        a = self._flash(a)
        for p in range(a, a + SECTOR, PAGE):
            if mem[p:p + PAGE] != self.page:  # (all 0xff)
                return False
        return True

    def _erase(self, a, forced):
        self.dev.ioctl(6, self.where[a // SECTOR])
        if forced:
            self.forced += 1
        else:
            self.erased += 1


def _number(line):
    # The ring number of a good header line, or None.
    if line is None:
        return None
    from .logscan import unseal  # (boot only: the reader is imported then)

    body = unseal(line.decode())
    if body is None:
        return None
    try:
        import json

        k = json.loads(body[2:]).get("log")
    except (ValueError, AttributeError):
        return None
    return k if isinstance(k, int) else None
