# The power-safe game log in flash: the game being played, so that a power
# cut or a reset at any moment boots back into the same position.
#
# One line per record, each ending in its own checksum:
#   H <header json> *<crc32 hex>     the game: name, players, options, extra
#   A <action text> *<crc32 hex>     one committed action
#   U *<crc32 hex>                   one takeback (undoes the last action)
# Lines are only ever appended; a new game is written to a new file that is
# renamed over the old one. A line that fails its checksum (a write torn by a
# power cut, garbage after it) ends the log: it and everything after it are
# dropped, and the file is rewritten without them before the next append.

import json
import os

from turtles.jsontext import dumps


class GameLogError(ValueError):
    pass


def crc32(data):
    # CRC-32 (as zlib), bitwise: log lines are short and written rarely.
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
    if not line.endswith("\n"):
        return None  # the write never finished
    star = line.rfind(" *")
    if star < 0 or len(line) - star != 11:
        return None
    body = line[:star]
    try:
        want = int(line[star + 2:star + 10], 16)
    except ValueError:
        return None
    if crc32(body.encode()) != want:
        return None
    return body


class GameLog:
    def __init__(self, path="game.log"):
        self.path = path
        self.dropped = 0  # damaged lines dropped by the last load()
        self.count = 0  # actions in the game (after load or begin)
        self._clean = False  # the file ends with a good line

    def begin(self, game, players, options=None, extra=None):
        # Start a new game: the old log is replaced at once, never half.
        header = {"game": game, "players": players, "options": options or {},
                  "extra": extra or {}}
        self._replace(seal("H " + dumps(header)))
        self._clean = True
        self.count = 0

    def append(self, text):
        # One committed action; on flash when this returns.
        self._check_text(text)
        self._write(seal("A " + text))
        self.count += 1

    def pop(self):
        # One takeback of the last action.
        if self._clean and self.count == 0:
            raise GameLogError("no action to take back")
        self._write(seal("U"))
        self.count -= 1

    def load(self):
        # -> (header dict, [action texts]) or None when there is no game.
        self.dropped = 0
        text = self._read(self.path)
        if text is None:
            # A new game was written but the power went before its rename
            # (only where rename cannot replace a file): finish the job.
            text = self._read(self.path + ".tmp")
            if text is None or self._parse(text)[0] is None:
                return None
            os.rename(self.path + ".tmp", self.path)
        header, actions, dropped = self._parse(text)
        self.dropped = dropped
        if header is None:
            return None
        if dropped:
            # Rewrite without the damage, so the next append starts clean.
            self._replace(self._render(header, actions))
        self._clean = True
        self.count = len(actions)
        return header, actions

    # ---- inside ----------------------------------------------------------

    def _parse(self, text):
        # -> (header or None, actions, number of damaged lines dropped)
        lines = text.split("\n")
        torn = lines.pop()  # text after the last newline: "" or a torn line
        header = None
        actions = []
        for n in range(len(lines)):
            body = unseal(lines[n] + "\n")
            if body is None:
                break
            if header is None:
                if not body.startswith("H "):
                    break
                try:
                    header = json.loads(body[2:])
                except ValueError:
                    break
                if not isinstance(header, dict):
                    header = None
                    break
            elif body.startswith("A "):
                actions.append(body[2:])
            elif body == "U" and actions:
                actions.pop()
            else:
                break
        else:
            return header, actions, 1 if torn else 0
        return header, actions, len(lines) - n + (1 if torn else 0)

    def _render(self, header, actions):
        out = [seal("H " + dumps(header))]
        for text in actions:
            out.append(seal("A " + text))
        return "".join(out)

    def _check_text(self, text):
        if not isinstance(text, str) or not text or "\n" in text or "\r" in text:
            raise GameLogError("an action text is one non-empty line, not %r" % (text,))

    def _write(self, line):
        if not self._clean:
            # Never append after a torn line: load() first repairs the file.
            if self.load() is None:
                raise GameLogError("no game in %s to add to; begin() one first" % self.path)
            if line.startswith("U ") and self.count == 0:
                raise GameLogError("no action to take back")
        f = open(self.path, "a")
        try:
            f.write(line)
            f.flush()
            _sync(f)
        finally:
            f.close()

    def _replace(self, text):
        tmp = self.path + ".tmp"
        f = open(tmp, "w")
        try:
            f.write(text)
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

    def _read(self, path):
        try:
            f = open(path, "rb")
        except OSError:
            return None
        try:
            data = f.read()
        finally:
            f.close()
        try:
            return data.decode()
        except UnicodeError:
            # Garbage bytes: keep the text up to the last good line.
            return _decode_prefix(data)


def _decode_prefix(data):
    end = len(data)
    while end > 0:
        end = data.rfind(b"\n", 0, end)
        if end < 0:
            return ""
        try:
            return data[:end + 1].decode() + "?"
        except UnicodeError:
            pass
    return ""


def _sync(f):
    # Push the data down to the medium where the platform lets us.
    if hasattr(os, "fsync"):
        if f is not None:
            os.fsync(f.fileno())  # CPython; the rename is ordered after it
    elif hasattr(os, "sync"):
        os.sync()  # MicroPython: flush every filesystem
