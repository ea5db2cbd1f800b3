# Protocol frames, under both interpreters (the device and the host share them).
from controller.frames import MAX_LINE, FrameError, LineReader, crc16, decode, encode

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


def test_line_reader_bounds_and_splits():
    r = LineReader(limit=8)
    assert r.feed(b"ab\r\ncd") == ["ab"]
    assert r.feed(b"e\n") == ["cde"]
    got = r.feed(b"0123456789abc\nok\n")
    assert got == [None, "ok"]
