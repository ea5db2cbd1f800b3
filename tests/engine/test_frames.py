# Protocol frames, under both interpreters (the device and the host share them).
from controller.frames import (
    MAX_LINE,
    FrameError,
    LineReader,
    crc16,
    decode,
    encode,
    encode_fitted,
    fit_text,
)
from turtles.jsontext import quote

from check import raises


def test_crc16_ccitt_false_check_value():
    assert crc16(b"123456789") == 0x29B1


def test_round_trip():
    line = encode(7, "action", {"n": 3, "text": "roll", "hash": "0badf00d"})
    assert line.startswith("~TB 7 action {")
    assert decode(line) == (7, "action", {"n": 3, "text": "roll", "hash": "0badf00d"})


def test_damaged_frames_are_rejected():
    line = encode(1, "hello", {"fw": "1"})
    raises(FrameError, decode, line.replace("hello", "hellp"))
    raises(FrameError, decode, line[:-1])
    raises(FrameError, decode, "plain REPL text")
    raises(FrameError, decode, "~TB x hello {} *0000")


def test_overlong_frame_refused():
    raises(FrameError, encode, 1, "log", {"a": "x" * MAX_LINE})


def test_a_text_fits_its_size_as_a_frame_writes_it():
    assert fit_text("short", 400) == "short"
    for ch, each in (("x", 1), ('"', 2), ("\u00e9", 6), ("\U0001f422", 12)):
        for size in (5, 50, 400):
            text = fit_text(ch * 500, size)
            written = len(quote(text)) - 2
            assert text.endswith("...") and size - each < written <= size, (ch, size, written)
            assert text[:-3] == ch * len(text[:-3])
    assert fit_text("\u00e9" * 66, 400) == "\u00e9" * 66  # 396 bytes: fits whole


def test_a_frame_too_long_is_cut_to_fit_and_says_what_was_cut():
    payload = {"board": "\u00e9" * 300, "log": "x" * 2000, "n": 5, "list": list(range(400)), "fw": "1"}
    line = encode_fitted(3, "hello", payload)
    assert len(line) <= MAX_LINE
    seq, kind, got = decode(line)
    assert (seq, kind, got["n"], got["fw"]) == (3, "hello", 5, "1")
    assert got["cut"] == sorted(k for k in ("board", "log", "list") if got[k] != payload[k])
    assert "log" in got["cut"] and got["log"].endswith("...") and payload["log"].startswith(got["log"][:-3])
    assert got["list"] == payload["list"][:len(got["list"])]
    small = {"n": 1, "text": "roll"}
    assert encode_fitted(1, "action", small) == encode(1, "action", small)  # (nothing cut: no "cut")
    many = {}
    for k in range(60):
        many["k%03d" % k] = "v" * 30
    assert len(encode_fitted(1, "x", many)) <= MAX_LINE  # nothing long, just many: still fits
    for k in range(200):
        many["k%03d" % k] = 0
    assert decode(encode_fitted(1, "x", many))[2] == {"cut": ["*"]}  # too many to keep any


def test_line_reader_bounds_and_splits():
    r = LineReader(limit=8)
    assert r.feed(b"ab\r\ncd") == ["ab"]
    assert r.feed(b"e\n") == ["cde"]
    got = r.feed(b"0123456789abc\nok\n")
    assert got == [None, "ok"]


def _sealed(body):
    return "%s *%04x" % (body, crc16(body.encode()))


def test_sequence_numbers_have_a_range():
    # A frame may carry any digits with a good checksum; only 0..65535 are
    # sequence numbers, so every answer echoing one fits a line.
    assert decode(_sealed("~TB 65535 ping {}"))[0] == 65535
    for seq in ("9" * 960, "65536", "-1", "+1", " 1", "1.0", ""):
        raises(FrameError, decode, _sealed("~TB %s ping {}" % seq))


def test_deeply_nested_payloads_are_damaged_frames():
    # CPython's reader recurses (RecursionError): a damaged frame, never a
    # crash. MicroPython's reads them, up to what its heap holds.
    import sys

    for depth in (2000, 5000, 100000):
        raises(FrameError, decode, _sealed("~TB 1 ping " + "[" * depth + "]" * depth))
        line = _sealed('~TB 1 ping {"a":' + "[" * depth + "]" * depth + "}")
        if sys.implementation.name == "micropython":
            try:
                assert decode(line)[1] == "ping"
            except FrameError:
                pass
        else:
            raises(FrameError, decode, line)
