# The power-safe game log in flash: the game being played, so that a power
# cut or a reset at any moment boots back into the same position. GameLog
# writes it (the lines' format and checksums: logline.py); logscan.py reads
# it back (the scan, the damage set aside and reported), imported only then.
#
# Lines are only ever appended; a new game is written to a new file that is
# renamed over the old one. Reading it back keeps every action it can prove,
# then the file is rewritten with the good lines only before the next append.
# Any damage (not a torn end) keeps the log as it was in <log>.bad and is
# described in `damage`; the description is also kept in <log>.report
# (`report`) until a host says it has seen it (forget_report), so a host that
# connects later still hears of it.
#
# Every action is on flash when append() returns, so the controller sends
# its `action` frame after it: nothing reported is lost to a power cut. Where
# the MicroPython build gives a raw log area outside the filesystem
# (log_area(), flashlog.py) a line costs a page program (~0.7 ms), with
# sectors erased ahead while the board is still (prepare()). In a file on a
# filesystem an append often costs a sector erase or two (littlefs copies a
# file's last block to a fresh one, 45-120 ms on a Pico): there a move the
# pieces alone prove (append(later=True)) is written in the cycle after its
# frame (write_behind()); one waits at most, and a power cut in between
# leaves it on the pieces, where the board reads it again at boot
# (decide.py, RESTORE). A stock Pico's log area (the blocks of files,
# logfiles.py) does the same, for the ~1 ms its page program would add
# to the frame of a board whose code sits in the heap.

import os

from turtles.jsontext import dumps

from .logline import MAX_ACTION, GameLogError, crc32, seal, sync  # noqa: F401  (callers import them from here)

REPORT_MAX = 400  # characters of the damage report (it goes in `hello` and `state`)


def unseal(line):
    # The body of a good line, or None for a torn or damaged one.
    return _scan().unseal(line)


def log_area(path):
    # The raw log area of this MicroPython build (the Turtleboard's: its
    # frozen module `turtleboard_log`; the virtual Pico's: a file), or on a
    # stock rp2 MicroPython the blocks of the log's files (logfiles.py), as
    # the log `path`; or None: the log is then the file `path`.
    try:
        from turtleboard_log import area  # type: ignore[import-not-found]
    except ImportError:
        pass
    else:
        from .flashlog import LogArea

        return LogArea(area(), path)
    try:
        from _rp2 import Flash  # type: ignore[import-not-found]
    except ImportError:
        return None  # (not a Pico: the virtual stock Pico, CircuitPython)
    from .logfiles import file_area  # (boot.py forgets it once used)

    flash = Flash()  # the flash the stock _boot.py mounts as the filesystem
    where = file_area(flash, path + ".area")
    if where is None:
        return None
    from .flashlog import LogArea

    area = LogArea(flash, path, where)
    area.later = True  # a proven move's line after its frame, as in a file (docs/firmware.md)
    return area


def _scan():
    # The log's reader, imported when the log is read back: at boot (the
    # device drops it once the game is restored, controller/boot.py) and
    # for the rare takeback behind the last snapshot.
    from . import logscan

    return logscan


class GameLog:
    def __init__(self, path="game.log", area=None, wake_files=None):
        self.path = path  # the log's file, or (with an area) the name of its report and damaged copy
        self.area = area  # a LogArea (flashlog.py) holding the log, or None
        self.wake_files = wake_files  # the HAL's: the filesystem mounted, if it rests (hal/rp2.py)
        self._src = path if area is None else area  # what the log's reader opens
        self.dropped = 0  # damaged lines dropped by the last scan()
        self.damage = None  # what the last scan() found damaged (not a torn end)
        self.count = 0  # actions in the game (after scan or begin)
        self._clean = False  # the file ends with a good line
        self._kept = []  # where the actions scan() found start in the file
        self._snap = None  # (n, where) of the last snapshot scan() found good
        self.snapped = 0  # the actions the last good snapshot in the file follows
        self.report = None  # what damage the log had, until a host has seen it (<log>.report)
        self._ahead = None  # type: tuple | None  # (the boot's scan read ahead, [what it found]): read_ahead()
        self.behind = None  # type: str | None  # the line of a move the pieces prove, not yet written (append(later))

    def begin(self, game, players, options=None, extra=None):
        # Start a new game: the old log is replaced at once, never half.
        header = {"game": game, "players": players, "options": options or {},
                  "extra": extra or {}}
        self.behind = None  # (the last game's)
        self._replace([self._header(header)])
        self._clean = True
        self.count = 0
        self.snapped = 0

    def append(self, text, line=None, later=False):
        # One committed action; on flash when this returns. `line`: its
        # line as action_line() made it, if made ahead. `later`: a move the
        # pieces alone prove, which a log in a file writes in the next
        # cycle, after its frame (write_behind()).
        self._check_text(text)
        line = line or seal("A " + text)
        if later and (self.area is None or self.area.later):
            self.write_behind()  # (never two waiting)
            self.behind = line
        else:
            self._write(line)
        self.count += 1

    def write_behind(self):
        # The line append(later=True) kept, on flash when this returns. It
        # waits on if the write fails (the next write tries it first).
        line = self.behind
        if line is None:
            return
        scanned = not self._clean  # a repair first: its scan() counts the file's actions only
        self._put(line)
        self.behind = None
        if scanned:
            self.count += 1

    def action_line(self, text):
        # The line append() writes for an action.
        return seal("A " + text)

    def prepare(self):
        # While the board is still: one sector of the log area erased ahead
        # (~45 ms on a Pico). -> True if that was done, False when nothing
        # is left to do (always, for a log in a file).
        return self.area is not None and self.area.prepare()

    def pop(self):
        # One takeback of the last action.
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
        return _scan().read_snapshot(self._src, self._snap[0], self._snap[1])

    def load(self):
        # -> (header dict, [action texts]) or None when there is no game.
        header = self.scan()
        if header is None:
            return None
        return header, list(self.actions())

    def read_ahead(self):
        # One block of the boot's scan, read while calibration waits between
        # its samples (boot.py); scan() goes on from there. False once the
        # file is read (or the reading failed: scan() tries again and says why).
        if self._ahead is None:
            found = [None]
            self._ahead = (_scan().scanning(self._src, found), found)
        try:
            next(self._ahead[0])
            return True
        except StopIteration:
            return False
        except Exception:
            self._ahead = None
            return False

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
        reader = _scan()
        self._files()
        self.report = reader.read_report(self.path)
        ahead, self._ahead = self._ahead, None
        if ahead is not None:  # begun by read_ahead(): read the rest
            for _ in ahead[0]:
                pass
            found = ahead[1][0]
        else:
            found = reader.scan(self._src)
        if found is None:
            if self.area is not None:
                return self._adopt_file()
            # A new game was written but the power went before its rename
            # (only where rename cannot replace a file): finish the job.
            found = reader.scan(self.path + ".tmp")
            if found is None or found[0] is None:
                return None
            os.rename(self.path + ".tmp", self.path)
        header, kept, dropped, aside, snap, mend = found
        if aside:
            self.damage, copied = reader.describe(self._src, header, kept, dropped, aside)
            if header is None and (copied or aside[0][0] == 0) and self.area is None:
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
            found = reader.scan(self._src)
            self._kept = found[1]
            snap = self._snap = found[4]
        self.snapped = snap[0] if snap is not None else 0
        self._clean = True
        self.count = len(self._kept)
        return header

    def _adopt_file(self):
        # A log area with no game, beside the file an earlier firmware kept
        # the log in (a stock Pico's first boot with its area, logfiles.py):
        # the file's good lines copied into the area, then the file removed,
        # so a game in progress goes on. -> its header, or None.
        found = _scan().scan(self.path)
        if found is None or found[0] is None:
            return None
        self._src = self.path  # (_lines() reads the file)
        self._kept = found[1]
        self._snap = found[4]
        try:
            self._replace(self._lines(found[0]))
        finally:
            self._src = self.area
        os.remove(self.path)
        return self.scan()

    # ---- the damage report, kept until a host has seen it -----------------

    def add_report(self, text):
        # Kept in <log>.report until a host acknowledges it (forget_report).
        if self.report and text in self.report:
            return
        report = text if not self.report else self.report + " | " + text
        if len(report) > REPORT_MAX:
            report = report[:REPORT_MAX - 3] + "..."
        self.report = report
        try:
            self._files()
            f = open(self.path + ".report", "w")
            try:
                f.write(report)
                f.flush()
            finally:
                f.close()
        except OSError:
            pass  # said at this boot only, then

    def forget_report(self):
        if self.report is None:
            return  # no report, so no file (scan() read it, add_report() wrote it)
        self.report = None
        try:
            self._files()
            os.remove(self.path + ".report")
        except OSError:
            pass

    def actions(self, start=0, stop=None):
        # The texts of the actions scan() found, in order from action
        # `start` (0: the first) up to `stop` (None: the last), read one by one.
        self.write_behind()
        return _scan().read_actions(self._src, self._kept, start, stop)

    def keep_copy(self):
        # Copy the log whole to <log>.bad before anything rewrites it.
        # -> (done, where it went, said for a message).
        self.write_behind()
        self._files()
        return _scan().keep_copy(self._src)

    def _files(self):
        # The report and the damaged copy are files: on the Turtleboard
        # build the filesystem rests while the board plays (hal/rp2.py).
        # One that cannot be mounted fails the file's open, said there.
        if self.wake_files is not None:
            try:
                self.wake_files()
            except OSError:
                pass

    # ---- inside ----------------------------------------------------------

    def _lines(self, header):
        # The log's good lines again: the header, the actions, the last snapshot.
        snap = self.last_snapshot()
        yield self._header(header)
        k = 0
        for text in self.actions():
            if snap is not None and k == snap[0]:
                yield seal("S %d %08x %s" % snap)
            yield seal("A " + text)
            k += 1
        if snap is not None and k == snap[0]:
            yield seal("S %d %08x %s" % snap)

    def _header(self, header):
        # The header line; in a log area, with the game's number in the ring.
        if self.area is not None:
            header = dict(header)
            header["log"] = self.area.number + 1
        return seal("H " + dumps(header))

    def _check_text(self, text):
        if not isinstance(text, str) or not text or "\n" in text or "\r" in text or len(text) > MAX_ACTION:
            raise GameLogError("an action text is one non-empty line of at most %d characters, not %r" % (
                MAX_ACTION, text))

    def _write(self, line):
        # One line appended after any that waits, on flash when this returns.
        self.write_behind()
        self._put(line)

    def _put(self, line):
        if not self._clean:
            # Never append after a torn line: scan() first repairs the log.
            if self.scan() is None:
                raise GameLogError("no game in %s to add to; begin() one first" % self.path)
            if line.startswith("U ") and self.count == 0:
                raise GameLogError("no action to take back")
        self._clean = False  # until the write is done: a failed one is looked at again
        if self.area is not None:
            try:
                self.area.append(line.encode())
            except Exception:
                self.area.found = False  # where the game ends is read again
                raise
            self._clean = True
            return
        f = open(self.path, "a")
        try:
            f.write(line)
            f.flush()
            sync(f)
        finally:
            f.close()
        self._clean = True

    def _replace(self, lines):
        # `lines`: the new log's lines, written to a new file that is then
        # renamed over the log (in a log area: from its next erased sector).
        if self.area is not None:
            self.area.begin(lines)
            return
        tmp = self.path + ".tmp"
        f = open(tmp, "w")
        try:
            for line in lines:
                f.write(line)
            f.flush()
            sync(f)
        finally:
            f.close()
        try:
            os.rename(tmp, self.path)  # atomic on littlefs and POSIX
        except OSError:
            # FAT (CircuitPython) will not rename over a file: remove, then
            # rename; load() finishes the rename if the power goes between.
            os.remove(self.path)
            os.rename(tmp, self.path)
        sync(None)
