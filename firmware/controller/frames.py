# Protocol frames: one text line each, shared by the device and the host.
#
#   ~TB <seq> <kind> <json payload> *<crc16 hex>
#
# The CRC (CRC-16/CCITT-FALSE) covers everything before " *". A line that
# does not start with the marker is not a frame (REPL noise, a traceback):
# it is passed on as raw text, never parsed.

import json
import sys

from turtles.jsontext import dumps, quote

MARKER = "~TB "
DIGITS = "0123456789"
MAX_LINE = 1024  # bytes, without the newline; longer lines are dropped


class FrameError(ValueError):
    pass


def _crc_tables():
    # The CRC's byte-at-a-time table, as its high and low bytes. The table
    # is linear (entry a ^ b == entry a ^ entry b): each bit's entry is
    # shifted out, every other entry is its lowest bit's ^ the rest's
    # (eight times fewer steps at boot than shifting out each entry).
    table = [0] * 256
    for k in range(8):
        crc = 1 << (k + 8)
        for _ in range(8):
            if crc & 0x8000:
                crc = ((crc << 1) ^ 0x1021) & 0xFFFF
            else:
                crc = (crc << 1) & 0xFFFF
        table[1 << k] = crc
    high = bytearray(256)
    low = bytearray(256)
    for n in range(1, 256):
        bit = n & -n
        crc = table[n] = table[bit] ^ table[n ^ bit]
        high[n] = crc >> 8
        low[n] = crc & 0xFF
    return bytes(high), bytes(low)


# A byte at a time, the register kept as two bytes: fewer steps per byte
# (a third faster on MicroPython) and 512 bytes of tables.
_HIGH, _LOW = _crc_tables()

crc16_native = None
if sys.implementation.name == "micropython":  # (CPython may find a `micropython` that is no such thing)
    try:
        from controller.crc import crc16_native  # native code: the rp2 port, the unix port
    except (ImportError, SyntaxError, ValueError):  # a port without a native emitter
        pass


def crc16(data):
    if crc16_native is not None:
        return crc16_native(data, _HIGH, _LOW)
    hi = 0xFF
    lo = 0xFF
    high = _HIGH
    low = _LOW
    for b in data:
        t = hi ^ b
        hi = lo ^ high[t]
        lo = low[t]
    return (hi << 8) | lo


def encode(seq, kind, payload=None):
    return encode_text(seq, kind, dumps(payload or {}))


def encode_text(seq, kind, payload_text):
    # The same with the payload already written as JSON text (sorted keys).
    body = "%s%d %s %s" % (MARKER, seq & 0xFFFF, kind, payload_text)
    line = "%s *%04x" % (body, crc16(body.encode()))
    if len(line) > MAX_LINE:
        raise FrameError("frame %s is %d bytes, over the %d-byte limit" % (kind, len(line), MAX_LINE))
    return line


def fit_text(text, size):
    # `text`, or as much of its start as fits with "...": at most `size`
    # bytes as a frame writes it (JSON: "é" is 6 bytes, \u00e9).
    if len(text) <= size and len(quote(text)) <= size + 2:
        return text
    used = 3
    end = 0
    for ch in text:
        used += len(quote(ch)) - 2
        if used > size:
            break
        end += 1
    return text[:end] + "..."


def encode_fitted(seq, kind, payload):
    # encode(), but never too long: the payload's longest fields are cut
    # (a text keeps its start and "...", a list its first half, anything
    # else becomes null) until the frame fits, and "cut" names them. A
    # frame too long must never stop the board (a crash falls to the REPL).
    try:
        return encode(seq, kind, payload)
    except FrameError:
        pass
    out = dict(payload)
    cut = []
    while True:
        big = None
        size = 4  # (null)
        for key in sorted(out):
            n = len(dumps(out[key]))
            if key != "cut" and n > size:
                big, size = key, n
        if big is None:  # nothing long, only too many: every field dropped
            return encode(seq, kind, {"cut": ["*"]})
        value = out[big]
        if isinstance(value, str) and len(value) > 3:
            out[big] = fit_text(value, size // 2)
        elif isinstance(value, list) and value:
            out[big] = value[:len(value) // 2]
        else:
            out[big] = None
        if big not in cut:
            cut.append(big)
        out["cut"] = sorted(cut)
        try:
            return encode(seq, kind, out)
        except FrameError:
            pass


def is_frame(line):
    return line.startswith(MARKER)


def decode(line):
    # -> (seq, kind, payload dict). Raises FrameError for a damaged frame.
    line = line.rstrip("\r\n")
    if not line.startswith(MARKER):
        raise FrameError("not a frame")
    star = line.rfind(" *")
    if star < 0 or len(line) - star != 6:
        raise FrameError("no checksum at the end of the frame")
    body = line[:star]
    try:
        want = int(line[star + 2:], 16)
    except ValueError:
        raise FrameError("the checksum is not hex")
    if crc16(body.encode()) != want:
        raise FrameError("checksum mismatch (a damaged line)")
    parts = body[len(MARKER):].split(" ", 2)
    if len(parts) != 3:
        raise FrameError("a frame needs a sequence number, a kind and a payload")
    seq = parts[0]
    # ASCII digits only: CPython's isdigit() also takes '\u00b2' and int() then fails
    if not 0 < len(seq) <= 5 or seq.strip(DIGITS) or int(seq) > 0xFFFF:
        raise FrameError("the sequence number must be a whole number 0..65535")
    try:
        payload = json.loads(parts[2])
    except Exception:  # ValueError; RecursionError/RuntimeError when nested too deep
        raise FrameError("the payload is not JSON (or is nested too deep)")
    if not isinstance(payload, dict):
        raise FrameError("the payload must be a JSON object")
    return int(seq), parts[1], payload


class LineReader:
    # Assembles bytes into lines of at most MAX_LINE bytes. An overlong line
    # is dropped whole and reported once as (None, length seen so far).
    def __init__(self, limit=MAX_LINE):
        self.limit = limit
        self.buf = bytearray()
        self.dropping = False

    def feed(self, data):
        out = []
        for b in data:
            if b == 10:  # \n
                if self.dropping:
                    self.dropping = False
                else:
                    out.append(_text(self.buf).rstrip("\r"))
                self.buf = bytearray()
            elif self.dropping:
                pass
            elif len(self.buf) >= self.limit:
                out.append(None)
                self.dropping = True
                self.buf = bytearray()
            else:
                self.buf.append(b)
        return out


def _text(buf):
    # MicroPython ignores decode's "replace" and raises: keep ASCII instead.
    try:
        return bytes(buf).decode()
    except UnicodeError:
        return "".join([chr(b) if b < 128 else "?" for b in buf])
