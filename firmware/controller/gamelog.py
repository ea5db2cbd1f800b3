# The power-safe game log in flash: the game being played, so that a power
# cut or a reset at any moment boots back into the same position.
#
# One line per record, each ending in its own checksum:
#   H <header json> *<crc32 hex>     the game: name, players, options, extra
#   A <action text> *<crc32 hex>     one committed action
#   U *<crc32 hex>                   one takeback (undoes the last action)
#   S <n> <hash> <state> *<crc32 hex> the game's state after its first n
#                                    actions (Game.state_text), its state
#                                    hash in hex: boot resumes from the last
#                                    one and replays only the actions after it
# Lines are only ever appended; a new game is written to a new file that is
# renamed over the old one. A line that fails its checksum ends the log: it
# and everything after it are dropped, and the file is rewritten without them
# before the next append. A torn last line (the power went mid-write) is the
# normal end of a power cut; any other damage is kept whole in <log>.bad and
# described in `damage`, for the controller to tell the host. A snapshot
# only saves time: one that a takeback went behind, or that does not fit the
# game, is passed over (the actions are all in the log).
#
# Writing behind: queue() keeps an action in RAM until write_pending() puts
# every queued line on flash in one write, so that no flash write (a page
# program, often a sector erase: littlefs copies a file's last block to a
# fresh one on each append) stands between a move on the board and its
# `action` frame. Only for actions the board's sensors see again after a
# power cut; a takeback of a queued action just drops it.

import json
import os

from turtles.jsontext import dumps


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


def unseal(line):
    # The body of a good line, or None for a torn or damaged one.
    return _body(line.encode())


class GameLog:
    def __init__(self, path="game.log"):
        self.path = path
        self.dropped = 0  # damaged lines dropped by the last scan()
        self.damage = None  # what the last scan() found damaged (not a torn end)
        self.count = 0  # actions in the game (after scan or begin)
        self._clean = False  # the file ends with a good line
        self._kept = []  # where the actions scan() found start in the file
        self._snap = None  # (n, where) of the last snapshot scan() found good
        self.snapped = 0  # the actions the last good snapshot in the file follows
        self._queue = []  # texts of actions queued, not yet on flash (queue())

    def begin(self, game, players, options=None, extra=None):
        # Start a new game: the old log is replaced at once, never half.
        header = {"game": game, "players": players, "options": options or {},
                  "extra": extra or {}}
        self._queue = []  # the old game's: a new game replaces them
        self._replace([seal("H " + dumps(header))])
        self._clean = True
        self.count = 0
        self.snapped = 0

    def append(self, text):
        # One committed action; on flash when this returns.
        self._check_text(text)
        self._write(seal("A " + text))
        self.count += 1

    def queue(self, text):
        # One committed action, kept in RAM: on flash at the next
        # write_pending() (or any write: they go first, in order).
        self._check_text(text)
        self._queue.append(text)
        self.count += 1

    def pending(self):
        # How many actions are queued, not yet on flash.
        return len(self._queue)

    def write_pending(self):
        # The queued actions on flash, in one write. -> how many there were.
        n = len(self._queue)
        if n:
            self._write("")
        return n

    def pop(self):
        # One takeback of the last action.
        if self._queue:  # never written: nothing to write either
            self._queue.pop()
            self.count -= 1
            return
        if self._clean and self.count == 0:
            raise GameLogError("no action to take back")
        self._write(seal("U"))
        self.count -= 1
        if self.count < self.snapped:
            self.snapped = 0  # taken back behind it: no use any more

    def snapshot(self, state_hash, text):
        # The game's state after its `count` actions (one flash page).
        self._write(seal("S %d %08x %s" % (self.count, state_hash, text)))
        self._snap = None  # (scan() finds it; this boot's game needs it no more)
        self.snapped = self.count

    def last_snapshot(self):
        # -> (n, state hash, state text) of the last good snapshot scan()
        # found, or None.
        if self._snap is None:
            return None
        n, where = self._snap
        f = open(self.path, "rb")
        try:
            f.seek(where)
            body = _body(f.readline())
        finally:
            f.close()
        if body is None:  # the file changed under us: no snapshot then
            return None
        parts = body.split(" ", 3)
        return n, int(parts[2], 16), parts[3]

    def load(self):
        # -> (header dict, [action texts]) or None when there is no game.
        header = self.scan()
        if header is None:
            return None
        return header, list(self.actions())

    def scan(self):
        # Reads the log a line at a time and keeps only where each action's
        # line starts, so a long game's texts are never all in the heap
        # (actions() gives them one by one). Repairs a damaged end.
        # -> the header dict, or None when there is no game.
        self.dropped = 0
        self.damage = None
        self._kept = []
        self._snap = None
        self.snapped = 0
        found = self._scan(self.path)
        if found is None:
            # A new game was written but the power went before its rename
            # (only where rename cannot replace a file): finish the job.
            found = self._scan(self.path + ".tmp")
            if found is None or found[0] is None:
                return None
            os.rename(self.path + ".tmp", self.path)
        header, kept, dropped, bad_line, snap = found
        if bad_line:
            if header is None:
                self.damage = "line 1 (the game's header) of the game log is damaged, so no game can be restored"
            else:
                self.damage = "line %d of the game log is damaged; %d actions are restored" % (
                    bad_line, len(kept))
            copied, where = self.keep_copy()
            self.damage += "; %d lines could not be used; the log as it was %s" % (dropped, where)
            if header is None and copied:
                os.remove(self.path)  # its copy is in .bad; the next boot is clean
        if header is None:
            return None
        self._kept = kept
        self.dropped = dropped
        self._snap = snap
        if dropped or bad_line:
            # Rewrite without the damage, so the next append starts clean.
            self._replace(self._lines(header))
            found = self._scan(self.path)
            self._kept = found[1]
            snap = self._snap = found[4]
        self.snapped = snap[0] if snap is not None else 0
        self._clean = True
        self.count = len(self._kept)
        return header

    def actions(self, start=0, stop=None):
        # The texts of the actions scan() found, in order from action
        # `start` (0: the first) up to `stop` (None: the last), read one by one.
        kept = self._kept
        end = len(kept) if stop is None else min(stop, len(kept))
        if start >= end:
            return
        f = open(self.path, "rb")
        try:
            at = kept[start]
            f.seek(at)
            k = start
            while k < end:
                line = f.readline()
                if at == kept[k]:
                    try:
                        yield line[2:-11].decode()  # "A <text> *<crc32>\n"
                    except UnicodeError:  # sealed, yet no text: the game refuses it
                        yield "(not UTF-8)"
                    k += 1
                at += len(line)
        finally:
            f.close()

    def keep_copy(self):
        # Copy the log whole to <log>.bad (a chunk at a time) before anything
        # rewrites it. -> (done, where it went, said for a message).
        bad = self.path + ".bad"
        try:
            src = open(self.path, "rb")
            try:
                dst = open(bad, "wb")
                try:
                    while True:
                        chunk = src.read(512)
                        if not chunk:
                            break
                        dst.write(chunk)
                    dst.flush()
                finally:
                    dst.close()
            finally:
                src.close()
        except OSError as e:
            return False, "is lost: no copy could be kept (%s)" % (e,)
        _sync(None)
        return True, "is kept in %s" % bad

    # ---- inside ----------------------------------------------------------

    def _scan(self, path):
        # -> (header or None, offsets of the kept action lines, number of
        # damaged lines dropped, the first damaged line's number or 0 when
        # the only damage is a torn last line, (n, offset) of the last
        # snapshot that fits or None), or None when there is no file.
        try:
            f = open(path, "rb")
        except OSError:
            return None
        header = None
        kept = []
        snaps = []  # (n, offset) of the snapshots not taken back behind
        dropped = 0
        bad_line = 0
        at = 0
        n = 0
        try:
            while True:
                raw = f.readline()
                if not raw:
                    break
                n += 1
                size = _sealed(raw)
                if size < 0 and not raw.endswith(b"\n"):
                    # the last line: torn short by a power cut, or whole
                    # with its newline damaged (its body is proven: keep it)
                    size = _sealed(raw[:-1] + b"\n")
                    if size >= 0:
                        bad_line = n
                kind = raw[:2] if size >= 2 else raw[:size]  # b"A ", b"S ", b"U" (no text made)
                if size < 0:
                    good = False
                elif header is None:
                    header = _header(_text(raw, size))
                    good = header is not None
                elif kind == b"A ":
                    kept.append(at)
                    good = True
                elif kind == b"S ":
                    good = True
                    k = _snapshot_n(_text(raw, size))
                    if k == len(kept):
                        snaps.append((k, at))
                else:
                    good = kind == b"U" and len(kept) > 0
                    if good:
                        kept.pop()
                        while snaps and snaps[-1][0] > len(kept):
                            snaps.pop()
                if not good:
                    # this line and every line after it are dropped
                    dropped = 1
                    while f.readline():
                        dropped += 1
                    if dropped > 1 or raw.endswith(b"\n") or n == 1:
                        bad_line = n  # not just a write the power cut short
                    break
                at += len(raw)
        finally:
            f.close()
        return header, kept, dropped, bad_line, snaps[-1] if snaps else None

    def _lines(self, header):
        # The log's good lines again: the header, the actions, the last snapshot.
        snap = self.last_snapshot()
        yield seal("H " + dumps(header))
        k = 0
        for text in self.actions():
            if snap is not None and k == snap[0]:
                yield seal("S %d %08x %s" % snap)
            yield seal("A " + text)
            k += 1
        if snap is not None and k == snap[0]:
            yield seal("S %d %08x %s" % snap)

    def _check_text(self, text):
        if not isinstance(text, str) or not text or "\n" in text or "\r" in text:
            raise GameLogError("an action text is one non-empty line, not %r" % (text,))

    def _write(self, line):
        # `line` after the queued actions' lines, in one append; the queue
        # is emptied once they are all on flash.
        queued = self._queue
        if not self._clean:
            # Never append after a torn line: scan() first repairs the file.
            want = self.count  # the game's actions, the queued ones too
            if self.scan() is None:
                raise GameLogError("no game in %s to add to; begin() one first" % self.path)
            if queued:
                done = self.count - (want - len(queued))  # put on flash by a write that then failed
                if done > 0:
                    queued = self._queue = queued[done:]
                self.count = want
            if line.startswith("U ") and self.count == 0:
                raise GameLogError("no action to take back")
        self._clean = False  # until the write is done: a failed one is looked at again
        f = open(self.path, "a")
        try:
            for text in queued:
                f.write(seal("A " + text))
            f.write(line)
            f.flush()
            _sync(f)
        finally:
            f.close()
        self._clean = True
        if queued:
            self._queue = []

    def _replace(self, lines):
        # `lines`: the new file's lines, written to a new file that is then
        # renamed over the log.
        tmp = self.path + ".tmp"
        f = open(tmp, "w")
        try:
            for line in lines:
                f.write(line)
            f.flush()
            _sync(f)
        finally:
            f.close()
        try:
            os.rename(tmp, self.path)  # atomic on littlefs and POSIX
        except OSError:
            # FAT (CircuitPython) will not rename over a file: remove, then
            # rename; load() finishes the rename if the power goes between.
            os.remove(self.path)
            os.rename(tmp, self.path)
        _sync(None)


def _body(raw):
    # The body of a good raw line, or None for a torn or damaged one.
    return _text(raw, _sealed(raw))


def _sealed(raw):
    # The length of a good raw line's body (its checksum proven), or -1 for
    # a torn or damaged one. On the bytes: no text is made.
    n = len(raw) - 11
    if n < 0 or raw[n:n + 2] != b" *" or raw[-1:] != b"\n":
        return -1  # (a line without its newline: the write never finished)
    digits = raw[n + 2:n + 10]
    if digits.strip(HEX):  # (no try: it costs a line as much as the checksum)
        return -1
    if crc32(memoryview(raw)[:n]) != int(digits, 16):
        return -1
    return n


HEX = b"0123456789abcdefABCDEF"


def _text(raw, size):
    # The body of a line _sealed() measured, as text, or None.
    if size < 0:
        return None
    try:
        return raw[:size].decode()
    except UnicodeError:
        return None


def _snapshot_n(body):
    # The action count of a snapshot line's body, or -1.
    parts = body.split(" ", 3) if body is not None else ()
    if len(parts) != 4 or len(parts[2]) != 8:
        return -1
    try:
        int(parts[2], 16)
        return int(parts[1])
    except ValueError:
        return -1


def _header(body):
    # The game of a header line's body, or None.
    if body is None or not body.startswith("H "):
        return None
    try:
        header = json.loads(body[2:])
    except ValueError:
        return None
    return header if isinstance(header, dict) else None


def _sync(f):
    # Push the data down to the medium where the platform lets us.
    if hasattr(os, "fsync"):
        if f is not None:
            os.fsync(f.fileno())  # CPython; the rename is ordered after it
    elif hasattr(os, "sync"):
        os.sync()  # MicroPython: flush every filesystem
