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
# renamed over the old one. Reading it back keeps every action it can prove:
# - a torn last line (the power went mid-write) is the normal end of a power
#   cut; a last line whole but for its newline is kept;
# - a damaged snapshot line is passed over (it only saves time): the game
#   resumes from the snapshot before it, or the start, and replays every
#   action line after it;
# - a damaged or unreadable action or takeback line ends the game there: the
#   actions after it cannot be replayed without it.
# Then the file is rewritten with the good lines only before the next append.
# Any damage (not a torn end) keeps the log as it was in <log>.bad and is
# described in `damage`; the description is also kept in <log>.report
# (`report`) until a host says it has seen it (forget_report), so a host that
# connects later still hears of it.
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

MAX_ACTION = 100  # characters of an action text (the engine's are under 20)
MAX_ACTION_LINE = 2 + MAX_ACTION + 11  # "A <text> *<crc32>\n": a longer line is no action
REPORT_MAX = 400  # characters of the damage report (it goes in `hello` and `state`)


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
        self.report = None  # what damage the log had, until a host has seen it (<log>.report)
        self._kept_copy = False

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
        self.report = self._read_report()
        found = self._scan(self.path)
        if found is None:
            # A new game was written but the power went before its rename
            # (only where rename cannot replace a file): finish the job.
            found = self._scan(self.path + ".tmp")
            if found is None or found[0] is None:
                return None
            os.rename(self.path + ".tmp", self.path)
        header, kept, dropped, aside, snap, mend = found
        if aside:
            self.damage = self._describe(header, kept, dropped, aside)
            if header is None and (self._kept_copy or aside[0][0] == 0):
                os.remove(self.path)  # its copy is in .bad; the next boot is clean
            self.add_report(self.damage)
        if header is None:
            return None
        self._kept = kept
        self.dropped = dropped
        self._snap = snap
        if dropped or aside or mend:
            # Rewrite without the damage, so the next append starts clean.
            self._replace(self._lines(header))
            found = self._scan(self.path)
            self._kept = found[1]
            snap = self._snap = found[4]
        self.snapped = snap[0] if snap is not None else 0
        self._clean = True
        self.count = len(self._kept)
        return header

    def _describe(self, header, kept, dropped, aside):
        # The damage report: each line set aside, what was restored, where
        # the log as it was is kept.
        self._kept_copy = False
        if aside[0][0] == 0:
            return "the game log is empty: it holds no game, so none is restored"
        parts = []
        for n, what in aside[:4]:
            parts.append("line %d (%s)" % (n, what))
        if len(aside) > 4:
            parts.append("%d more" % (len(aside) - 4))
        if header is None:
            text = "%s of the game log %s damaged, so no game can be restored" % (
                ", ".join(parts), "is" if len(aside) == 1 else "are")
        else:
            text = "%s of the game log %s damaged; %d actions are restored" % (
                ", ".join(parts), "is" if len(aside) == 1 else "are", len(kept))
            if dropped:
                text += "; %s could not be used" % (
                    "that line" if dropped == 1 else "the %d lines from line %d on" % (dropped, aside[-1][0]))
        copied, where = self.keep_copy()
        self._kept_copy = copied
        return text + "; the log as it was " + where

    # ---- the damage report, kept until a host has seen it -----------------

    def _read_report(self):
        try:
            f = open(self.path + ".report")
        except OSError:
            return None
        try:
            return f.read().strip() or None
        except Exception:  # not text: a damaged report is still a report
            return "an earlier damage report could not be read"
        finally:
            f.close()

    def add_report(self, text):
        # Kept in <log>.report until a host acknowledges it (forget_report).
        if self.report and text in self.report:
            return
        report = text if not self.report else self.report + " | " + text
        if len(report) > REPORT_MAX:
            report = report[:REPORT_MAX - 3] + "..."
        self.report = report
        try:
            f = open(self.path + ".report", "w")
            try:
                f.write(report)
                f.flush()
            finally:
                f.close()
        except OSError:
            pass  # said at this boot only, then

    def forget_report(self):
        self.report = None
        try:
            os.remove(self.path + ".report")
        except OSError:
            pass

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
                        yield line[2:line.rfind(b" *")].decode()  # "A <text> *<crc32>\n" (the last: maybe no \n)
                    except UnicodeError:  # (scan() sets such a line aside: the file changed since)
                        raise GameLogError("action %d in the game log is not text" % (k + 1))
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
        # lines dropped from where the provable game ends, [(line number,
        # what)] of the lines set aside as damaged (line 0: an empty log),
        # (n, offset) of the last snapshot that fits or None, whether the
        # file needs mending (a torn end, a last line without its newline)),
        # or None when there is no file.
        # An action or takeback line that cannot be read ends the game
        # there: the actions after it cannot be replayed without it. A
        # damaged snapshot is passed over: it only saved time.
        try:
            f = open(path, "rb")
        except OSError:
            return None
        header = None
        kept = []
        snaps = []  # (n, offset) of the snapshots not taken back behind
        aside = []
        dropped = 0
        mend = False
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
                    # the last line: whole but for its newline (kept), torn
                    # short by a power cut, or whole with its newline damaged
                    size = _sealed(raw + b"\n")
                    if size < 0:
                        size = _sealed(raw[:-1] + b"\n")
                        if size >= 0:
                            aside.append((n, "its newline"))
                    if size >= 0:
                        mend = True
                    elif n > 1:
                        dropped = 1  # a write the power cut short: no damage
                        break
                what = None  # why this line ends the provable game
                if size < 0:
                    if n > 1 and _damaged_snapshot(raw, len(kept)):
                        aside.append((n, "a snapshot, passed over"))
                        mend = True
                        at += len(raw)
                        continue
                    what = "the game's header" if n == 1 else "an action"
                elif header is None:
                    header = _header(_text(raw, size))
                    if header is None:
                        what = "the game's header"
                else:
                    kind = raw[:2] if size >= 2 else raw[:size]  # b"A ", b"S ", b"U" (no text made)
                    if kind == b"A ":
                        if _text(raw[2:], size - 2) is None:
                            what = "an action that is not UTF-8 text"
                        else:
                            kept.append(at)
                    elif kind == b"S ":
                        k = _snapshot_n(_text(raw, size))
                        if k == len(kept):
                            snaps.append((k, at))
                    elif kind == b"U" and kept:
                        kept.pop()
                        while snaps and snaps[-1][0] > len(kept):
                            snaps.pop()
                    else:
                        what = "a takeback of nothing" if kind == b"U" else "a line of no known kind"
                if what is not None:
                    # this line and every line after it are set aside
                    aside.append((n, what))
                    dropped = 1
                    while f.readline():
                        dropped += 1
                    break
                at += len(raw)
        finally:
            f.close()
        if n == 0:
            aside.append((0, "empty"))
        return header, kept, dropped, aside, snaps[-1] if snaps else None, mend

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
        if not isinstance(text, str) or not text or "\n" in text or "\r" in text or len(text) > MAX_ACTION:
            raise GameLogError("an action text is one non-empty line of at most %d characters, not %r" % (
                MAX_ACTION, text))

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


def _damaged_snapshot(raw, count):
    # A damaged line that can only be a snapshot written after `count`
    # actions: longer than any action line, its kind and count intact, and
    # no line end of another line inside it (two lines run together).
    if len(raw) <= MAX_ACTION_LINE or not raw.startswith(("S %d " % count).encode()):
        return False
    star = raw.find(b" *")
    return star == len(raw) - 11 or star == len(raw) - 10


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
