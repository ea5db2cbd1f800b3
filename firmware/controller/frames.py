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
    # shifted out, every other entry is its lowest bit's ^ the rest's.
    # (What _HIGH and _LOW below are: tests/engine/test_checksums.py.)
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


# A byte at a time, the register kept as two bytes: fewer steps per byte (a
# third faster on MicroPython). The tables are written out: from a ROMFS
# partition a constant stays in flash, where tables made at import took
# 512 bytes of a Pico's heap.
_HIGH = (
    b"\x00\x10\x20\x30\x40\x50\x60\x70\x81\x91\xa1\xb1\xc1\xd1\xe1\xf1"
    b"\x12\x02\x32\x22\x52\x42\x72\x62\x93\x83\xb3\xa3\xd3\xc3\xf3\xe3"
    b"\x24\x34\x04\x14\x64\x74\x44\x54\xa5\xb5\x85\x95\xe5\xf5\xc5\xd5"
    b"\x36\x26\x16\x06\x76\x66\x56\x46\xb7\xa7\x97\x87\xf7\xe7\xd7\xc7"
    b"\x48\x58\x68\x78\x08\x18\x28\x38\xc9\xd9\xe9\xf9\x89\x99\xa9\xb9"
    b"\x5a\x4a\x7a\x6a\x1a\x0a\x3a\x2a\xdb\xcb\xfb\xeb\x9b\x8b\xbb\xab"
    b"\x6c\x7c\x4c\x5c\x2c\x3c\x0c\x1c\xed\xfd\xcd\xdd\xad\xbd\x8d\x9d"
    b"\x7e\x6e\x5e\x4e\x3e\x2e\x1e\x0e\xff\xef\xdf\xcf\xbf\xaf\x9f\x8f"
    b"\x91\x81\xb1\xa1\xd1\xc1\xf1\xe1\x10\x00\x30\x20\x50\x40\x70\x60"
    b"\x83\x93\xa3\xb3\xc3\xd3\xe3\xf3\x02\x12\x22\x32\x42\x52\x62\x72"
    b"\xb5\xa5\x95\x85\xf5\xe5\xd5\xc5\x34\x24\x14\x04\x74\x64\x54\x44"
    b"\xa7\xb7\x87\x97\xe7\xf7\xc7\xd7\x26\x36\x06\x16\x66\x76\x46\x56"
    b"\xd9\xc9\xf9\xe9\x99\x89\xb9\xa9\x58\x48\x78\x68\x18\x08\x38\x28"
    b"\xcb\xdb\xeb\xfb\x8b\x9b\xab\xbb\x4a\x5a\x6a\x7a\x0a\x1a\x2a\x3a"
    b"\xfd\xed\xdd\xcd\xbd\xad\x9d\x8d\x7c\x6c\x5c\x4c\x3c\x2c\x1c\x0c"
    b"\xef\xff\xcf\xdf\xaf\xbf\x8f\x9f\x6e\x7e\x4e\x5e\x2e\x3e\x0e\x1e"
)
_LOW = (
    b"\x00\x21\x42\x63\x84\xa5\xc6\xe7\x08\x29\x4a\x6b\x8c\xad\xce\xef"
    b"\x31\x10\x73\x52\xb5\x94\xf7\xd6\x39\x18\x7b\x5a\xbd\x9c\xff\xde"
    b"\x62\x43\x20\x01\xe6\xc7\xa4\x85\x6a\x4b\x28\x09\xee\xcf\xac\x8d"
    b"\x53\x72\x11\x30\xd7\xf6\x95\xb4\x5b\x7a\x19\x38\xdf\xfe\x9d\xbc"
    b"\xc4\xe5\x86\xa7\x40\x61\x02\x23\xcc\xed\x8e\xaf\x48\x69\x0a\x2b"
    b"\xf5\xd4\xb7\x96\x71\x50\x33\x12\xfd\xdc\xbf\x9e\x79\x58\x3b\x1a"
    b"\xa6\x87\xe4\xc5\x22\x03\x60\x41\xae\x8f\xec\xcd\x2a\x0b\x68\x49"
    b"\x97\xb6\xd5\xf4\x13\x32\x51\x70\x9f\xbe\xdd\xfc\x1b\x3a\x59\x78"
    b"\x88\xa9\xca\xeb\x0c\x2d\x4e\x6f\x80\xa1\xc2\xe3\x04\x25\x46\x67"
    b"\xb9\x98\xfb\xda\x3d\x1c\x7f\x5e\xb1\x90\xf3\xd2\x35\x14\x77\x56"
    b"\xea\xcb\xa8\x89\x6e\x4f\x2c\x0d\xe2\xc3\xa0\x81\x66\x47\x24\x05"
    b"\xdb\xfa\x99\xb8\x5f\x7e\x1d\x3c\xd3\xf2\x91\xb0\x57\x76\x15\x34"
    b"\x4c\x6d\x0e\x2f\xc8\xe9\x8a\xab\x44\x65\x06\x27\xc0\xe1\x82\xa3"
    b"\x7d\x5c\x3f\x1e\xf9\xd8\xbb\x9a\x75\x54\x37\x16\xf1\xd0\xb3\x92"
    b"\x2e\x0f\x6c\x4d\xaa\x8b\xe8\xc9\x26\x07\x64\x45\xa2\x83\xe0\xc1"
    b"\x1f\x3e\x5d\x7c\x9b\xba\xd9\xf8\x17\x36\x55\x74\x93\xb2\xd1\xf0"
)

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
