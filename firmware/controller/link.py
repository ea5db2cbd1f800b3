# The device end of the serial protocol: bytes in -> commands, frames out.
# Frame syntax is controller/frames.py; payloads are listed in docs/protocol.md.

import json

from turtles.jsontext import dumps, plain, quote

from .frames import MAX_LINE, FrameError, LineReader, decode, encode_fitted, encode_text, is_frame

LOG_CHUNK = 700  # bytes of action texts per `log` frame, well inside MAX_LINE
NOTHING = ()  # what poll() returns on a quiet line: nothing allocated


def action_payload(n, text, hash_text, by, bust=False):
    # An `action` frame's payload, written by hand as dumps() writes it: the
    # general writer took ~4 ms of the committing cycle on a Pico (and
    # writing this one ~0.9 ms of the emulated Pico's: a move made on the
    # board has it made while its turtle is in the air, Controller.words).
    return '{%s"by":"%s","hash":"%s","n":%d,"text":%s}' % (
        '"bust":true,' if bust else "", by, hash_text, n, quote(text))


class Link:
    def __init__(self, hal):
        self.hal = hal
        self.reader = LineReader()
        self.seq = 0
        self.damaged = 0  # frames dropped for a bad checksum or syntax
        self.plain_cells = False  # no cell name of the board needs escaping (set_cells())

    def set_cells(self, names):
        # The board's cell names, which `status` frames quote.
        ok = True
        for name in names:
            ok = ok and plain(name)
        self.plain_cells = ok

    def send(self, kind, payload=None):
        # Never too long for a line: the longest fields cut, named in "cut".
        line = encode_fitted(self.seq, kind, payload or {})
        self.seq = (self.seq + 1) & 0xFFFF
        self.hal.serial_write(line.encode() + b"\n")

    def send_text(self, kind, payload_text):
        # A payload already written as JSON text (sorted keys, no spaces).
        try:
            line = encode_text(self.seq, kind, payload_text)
        except FrameError:  # too long for a line: cut as send() cuts it
            self.send(kind, json.loads(payload_text))
            return
        self.seq = (self.seq + 1) & 0xFFFF
        self.hal.serial_write(line.encode() + b"\n")

    def send_leds(self, start, hexes):
        # `leds` written by hand: colours are plain hex, and the general JSON
        # writer would cost a millisecond a frame on the device.
        self.send_text("leds", '{"c":["%s"],"from":%d}' % ('","'.join(hexes), start))

    def send_action(self, n, text, hash_text, by, bust=False):
        # The frame of a commit. `bust`: the action was one.
        self.send_text("action", action_payload(n, text, hash_text, by, bust))

    def send_status(self, text, expect):
        # `status` written by hand too (~3 ms less a frame on a Pico).
        self.send_text("status", '{"expect":%s,"text":%s}' % (self._expect(expect), dumps(text)))

    def _expect(self, expect):
        # A status's expect ({key: [cell names] or text}) as dumps() writes
        # it, each list of cell names joined at once where no name needs
        # escaping (the general writer took ~2.5 ms of the cycle on a Pico).
        if not expect:
            return "{}"
        if not self.plain_cells:
            return dumps(expect)
        parts = []
        for key in sorted(expect):
            v = expect[key]
            if isinstance(v, list):
                parts.append('"%s":[%s]' % (key, '"' + '","'.join(v) + '"' if v else ""))
            else:
                parts.append('"%s":%s' % (key, dumps(v)))
        return "{" + ",".join(parts) + "}"

    def send_undone(self, n, hash_text):
        self.send_text("undone", '{"hash":"%s","n":%d}' % (hash_text, n))

    def error(self, code, msg, re=None):
        payload = {"code": code, "msg": msg}
        if re is not None:
            payload["re"] = re
        self.send("error", payload)  # (an echo of a long input: its msg cut to fit)

    def poll(self):
        # -> [(seq, kind, payload)] of the frames that arrived, in order; a
        # bad line comes as (None, code, message) for an `error` answer.
        data = self.hal.serial_read()
        if not data:
            return NOTHING
        out = []
        for line in self.reader.feed(data):
            if line is None:
                out.append((None, "too-long", "a line longer than %d bytes was dropped; send one frame per line"
                            % MAX_LINE))
                continue
            line = line.strip()
            if not line:
                continue
            if not is_frame(line):
                out.append((None, "not-a-frame", "ignored a line that is not a frame (%s); send frames "
                            "like ~TB <seq> <kind> {...} *<crc>" % _show(line)))
                continue
            try:
                out.append(decode(line))
            except FrameError as e:
                self.damaged += 1
                out.append((None, "bad-frame", "dropped a damaged frame: %s; send it again" % e))
            except Exception as e:  # JSON nested too deep for the device, ...
                out.append((None, "bad-frame", "could not read a frame (%r); send a flat JSON object" % (e,)))
        return out

    def send_log(self, texts):
        # The game's action texts in `log` frames that each fit a line, made
        # one frame at a time: a long Mahé game's texts at once would take
        # tens of KB of the device's heap.
        start = 0
        chunk = []
        size = 0
        i = 0
        for t in texts:
            if chunk and size + len(t) + 3 > LOG_CHUNK:
                self.send("log", {"from": start, "actions": chunk})
                start = i
                chunk = []
                size = 0
            chunk.append(t)
            size += len(t) + 3
            i += 1
        if chunk:
            self.send("log", {"from": start, "actions": chunk})


def _show(line):
    if len(line) > 40:
        line = line[:40] + "..."
    return repr(line)
