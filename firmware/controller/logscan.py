# Reading the game log back (gamelog.py writes it): the lines' checksums, the
# scan that keeps every action it can prove, the damage set aside and the
# report of it kept until a host has seen it. Module functions of the log's
# path: GameLog keeps what they find.
#
# One line per record, each ending in its own checksum (seal()):
#   H <header json> *<crc32 hex>     the game: name, players, options, extra
#   A <action text> *<crc32 hex>     one committed action
#   U *<crc32 hex>                   one takeback (undoes the last action)
#   S <n> <hash> <state> *<crc32 hex> the game's state after its first n
#                                    actions (Game.state_text), its state
#                                    hash in hex: boot resumes from the last
#                                    one and replays only the actions after it
# Reading it back keeps every action it can prove:
# - a torn last line (the power went mid-write) is the normal end of a power
#   cut; a last line whole but for its newline is kept;
# - a damaged snapshot line is passed over (it only saves time): the game
#   resumes from the snapshot before it, or the start, and replays every
#   action line after it. A line longer than any action line cannot be an
#   action: whatever one byte of it is damaged (its kind, count, star, a
#   byte made a newline, its newline) it is read as the snapshot it was;
# - a damaged or unreadable action or takeback line ends the game there: the
#   actions after it cannot be replayed without it.
# Any damage (not a torn end) keeps the log as it was in <log>.bad
# (keep_copy) and is described (describe); the description is kept in
# <log>.report until a host says it has seen it.

import json
import sys

from .logline import MAX_ACTION, GameLogError, crc32, seal, sync  # noqa: F401  (the lines' format)

MAX_ACTION_LINE = 2 + MAX_ACTION + 11  # "A <text> *<crc32>\n": a longer line is no action


sealed_native = ascii_native = None
if sys.implementation.name == "micropython":  # (CPython may find a `micropython` that is no such thing)
    try:
        from controller.logcrc import (  # native code: the rp2 port, the unix port
            ascii_native,
            sealed_native,
        )
    except (ImportError, SyntaxError, ValueError):  # a port without a native emitter
        pass


def _open(path):
    # The log to read: a file's path, or a log area (flashlog.py).
    return open(path, "rb") if isinstance(path, str) else path.open()


def unseal(line):
    # The body of a good line, or None for a torn or damaged one.
    return _body(line.encode())


def scan(path):
    # -> (header or None, offsets of the kept action lines, number of
    # lines dropped from where the provable game ends, [(line number,
    # what)] of the lines set aside as damaged (line 0: an empty log),
    # (n, offset) of the last snapshot that fits or None, whether the
    # file needs mending (a torn end, a last line without its newline)),
    # or None when there is no file.
    # An action or takeback line that cannot be read ends the game
    # there: the actions after it cannot be replayed without it. A
    # damaged snapshot is passed over: it only saved time.
    found = [None]
    for _ in scanning(path, found):
        pass
    return found[0]


def scanning(path, found):
    # scan(path) a block at a time: pauses (yields) after each block read,
    # so that boot can scan while calibration waits between its samples;
    # puts what scan() returns in found[0] at the end.
    try:
        f = _open(path)
    except OSError:
        return
    header = None
    kept = []
    snaps = []  # (n, offset) of the snapshots not taken back behind
    aside = []
    dropped = 0
    mend = False
    at = 0
    n = 0
    sealed = _sealed if sealed_native is None else sealed_native  # (a third of the scan on a Pico)
    ascii = ascii_native
    try:
        lines = _lines(f)
        back = []  # [(a line to read again first, 1 if it is a line of its own)]
        while True:
            if back:
                raw, new = back.pop()
            else:
                raw, new = next(lines, b""), 1
                if raw is None:  # a block read
                    yield
                    continue
                if not raw:
                    break
            n += new
            size = sealed(raw)
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
            if size < 0 and n > 1:
                # a damaged snapshot (alone, run on into the next line, or
                # broken in two by a byte made a newline) is passed over
                skip = len(raw) if _damaged_snapshot(raw, len(kept)) else _cut(raw)
                joined = 0  # the next line too (its start was this snapshot's)
                if skip and skip < len(raw):
                    back.append((raw[skip:], 0))  # the next line, after the damaged newline
                if not skip and raw[-11:-9] != b" *":
                    more = next(lines, b"")
                    while more is None:
                        yield
                        more = next(lines, b"")
                    if more and sealed(more) < 0 and _damaged_snapshot(raw + more, len(kept)):
                        skip, joined = len(raw) + len(more), 1
                    elif more:
                        back.append((more, 1))
                if skip:
                    aside.append((n, "a snapshot, passed over"))
                    n += joined
                    mend = True
                    at += skip
                    continue
            if size < 0:
                what = "the game's header" if n == 1 else "an action"
            elif header is None:
                header = _header(_text(raw, size))
                if header is None:
                    what = "the game's header"
            elif size >= 2 and raw.startswith(b"A "):  # an action (no text made)
                if (ascii is not None and ascii(raw, 2, size)) or _is_text(raw, 2, size):
                    kept.append(at)
                else:
                    what = "an action that is not UTF-8 text"
            elif size >= 2 and raw.startswith(b"S "):  # a snapshot
                k = _snapshot_n(_text(raw, size))
                if k == len(kept):
                    snaps.append((k, at))
            elif size == 1 and raw[0] == 85:  # "U": a takeback
                if not kept:
                    what = "a takeback of nothing"
                else:
                    kept.pop()
                    while snaps and snaps[-1][0] > len(kept):
                        snaps.pop()
            else:
                what = "a line of no known kind"
            if what is not None:
                # this line and every line after it are set aside
                aside.append((n, what))
                dropped = 1 + len(back)
                for rest in lines:
                    if rest is not None:
                        dropped += 1
                break
            at += len(raw)
    finally:
        f.close()
    if n == 0:
        aside.append((0, "empty"))
    found[0] = (header, kept, dropped, aside, snaps[-1] if snaps else None, mend)


def _lines(f, size=512):
    # The file's lines (each with its newline; the last maybe without), read
    # a block at a time (readline() reads the file a byte at a time), and
    # None after each block.
    rest = b""
    while True:
        block = f.read(size)
        if not block:
            break
        yield None
        if rest:
            block = rest + block
        start = 0
        end = block.find(b"\n") + 1
        while end:
            yield block[start:end]
            start = end
            end = block.find(b"\n", start) + 1
        rest = block[start:]
    if rest:
        yield rest


def read_snapshot(path, n, where):
    # -> (n, state hash, state text) of the snapshot line at offset `where`,
    # or None when it is no longer good there (the file changed).
    f = _open(path)
    try:
        f.seek(where)
        body = _body(f.readline())
    finally:
        f.close()
    if body is None:
        return None
    parts = body.split(" ", 3)
    return n, int(parts[2], 16), parts[3]


def read_actions(path, kept, start=0, stop=None):
    # The texts of the action lines at the offsets `kept` (scan()), in order
    # from action `start` (0: the first) up to `stop` (None: the last), read
    # one by one.
    end = len(kept) if stop is None else min(stop, len(kept))
    if start >= end:
        return
    f = _open(path)
    try:
        at = kept[start]
        f.seek(at)
        k = start
        while k < end:
            line = f.readline()
            if not line:
                raise GameLogError("the game log changed while it was read")
            while k < end and kept[k] < at + len(line):
                # (after a snapshot whose newline is damaged, inside the line)
                text = line if kept[k] == at else line[kept[k] - at:]
                try:
                    yield text[2:text.rfind(b" *")].decode()  # "A <text> *<crc32>\n" (the last: maybe no \n)
                except UnicodeError:  # (scan() sets such a line aside: the file changed since)
                    raise GameLogError("action %d in the game log is not text" % (k + 1))
                k += 1
            at += len(line)
    finally:
        f.close()


def describe(path, header, kept, dropped, aside):
    # The damage report: each line set aside, what was restored, where the
    # log as it was is kept (a copy made here). -> (the report, whether the
    # copy was made).
    if aside[0][0] == 0:
        return "the game log is empty: it holds no game, so none is restored", False
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
    copied, where = keep_copy(path)
    return text + "; the log as it was " + where, copied


def keep_copy(path):
    # Copy the log whole to <log>.bad (a chunk at a time) before anything
    # rewrites it. -> (done, where it went, said for a message).
    bad = (path if isinstance(path, str) else path.path) + ".bad"
    try:
        src = _open(path)
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
    sync(None)
    return True, "is kept in %s" % bad


def read_report(path):
    # The damage report in <log>.report, or None.
    try:
        f = open(path + ".report")
    except OSError:
        return None
    try:
        return f.read().strip() or None
    except Exception:  # not text: a damaged report is still a report
        return "an earlier damage report could not be read"
    finally:
        f.close()


# ---- one line ------------------------------------------------------------


def _body(raw):
    # The body of a good raw line, or None for a torn or damaged one.
    return _text(raw, _sealed(raw))


def _sealed(raw):
    # The length of a good raw line's body (its checksum proven), or -1 for
    # a torn or damaged one. On the bytes: no text is made. (scan() uses
    # sealed_native instead where the port has native code.)
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


def _is_text(raw, start, end):
    # Whether raw[start:end] is UTF-8. (scan() asks ascii_native first
    # where the port has native code: no text made for ASCII.)
    try:
        raw[start:end].decode()
    except UnicodeError:
        return False
    return True


def _damaged_snapshot(raw, count):
    # Whether a damaged line can only be the snapshot written after `count`
    # actions: longer than any action line, no other line's end (" *<8 hex>")
    # inside it, and its frame ("S <count> <8 hex> ... *<8 hex>\n") intact
    # but for one byte at most (a flipped kind, count digit, space, star or
    # newline).
    end = len(raw)
    if end <= MAX_ACTION_LINE:
        return False
    star = raw.find(b" *")
    while 0 <= star < end - 11:
        if not _not_hex(raw, star + 2, star + 10):
            return False  # two lines run together
        star = raw.find(b" *", star + 1)
    head = ("S %d " % count).encode()
    k = len(head)
    wrong = _differ(raw, 0, head) + _differ(raw, k + 8, b" ") + _differ(raw, end - 11, b" *")
    wrong += _differ(raw, end - 1, b"\n") + _not_hex(raw, k, k + 8) + _not_hex(raw, end - 9, end - 1)
    return wrong <= 1


def _cut(raw):
    # Where the next line starts in a snapshot line whose newline alone is
    # damaged (its checksum proves the rest), run on into the next; or 0.
    end = raw.find(b" *") + 11
    if end < 11 or end >= len(raw) or not raw.startswith(b"S ") or _sealed(raw[:end - 1] + b"\n") < 0:
        return 0
    return end


def _differ(raw, at, want):
    # How many bytes of raw from `at` differ from `want`.
    wrong = 0
    for i in range(len(want)):
        if raw[at + i] != want[i]:
            wrong += 1
    return wrong


def _not_hex(raw, start, end):
    # How many bytes of raw[start:end] are no hex digit.
    wrong = 0
    for i in range(start, end):
        c = raw[i]
        if not (48 <= c <= 57 or 97 <= c | 32 <= 102):
            wrong += 1
    return wrong


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
