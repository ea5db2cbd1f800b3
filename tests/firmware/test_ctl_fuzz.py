# Fuzz of the device's frame reader and command dispatcher: seeded lines
# (good commands with odd payloads, huge sequence numbers, unicode, deep
# JSON, damaged and overlong lines, raw bytes) into the real controller.
# Every cycle ends, every frame the device sends is a good frame, the game
# only changes through commands that were accepted, and the game log always
# holds the game. Runs under CPython and MicroPython; TB_FUZZ_LINES sets the
# count for a long run (bench/fuzz.py).
import os
import sys

from ctl_rig import Rig, only

from controller.frames import crc16, encode
from controller.gamelog import GameLog
from turtles.rng import Rng

MICRO = sys.implementation.name == "micropython"
KINDS = ("hello", "ping", "sync", "new", "answer", "enter", "undo", "bright", "diag",
         "ledtest", "zz", "")
KEYS = ("game", "players", "options", "dice", "seed", "id", "choice", "text", "level", "on")


def _count():
    try:
        return int(os.getenv("TB_FUZZ_LINES") or 0) or (600 if MICRO else 3000)
    except AttributeError:
        return 600


def _value(rng, depth=0):
    k = rng.below(11 if depth < 2 else 6)
    if k == 0:
        return None
    if k == 1:
        return rng.below(2) == 1
    if k == 2:
        return (0, 1, 2, -1, 255, 256, 0x3FFFFFFF, 1 << 40, 10 ** 30)[rng.below(9)]
    if k == 3:
        return ("tortuga", "mahe", "race", "physical", "electronic", "", "c1-c2", "roll",
                "\u00e9\u4e00", "\U0001f422", "x" * 900, "a\nb")[rng.below(12)]
    if k == 4:
        return rng.below(100)
    if k == 5:
        return ("c1-c2", "g4-g3", "c1xc3", "d3", "pass", "1")[rng.below(6)]
    if k in (6, 7):
        return [_value(rng, depth + 1) for _ in range(rng.below(3))]
    out = {}
    for _ in range(rng.below(3)):
        out[KEYS[rng.below(len(KEYS))]] = _value(rng, depth + 1)
    return out


def _payload(rng, kind, game):
    if kind == "new" and rng.below(3) == 0:
        return {"game": "tortuga", "players": 2, "seed": rng.below(1000)}
    if kind == "enter" and game is not None and rng.below(2) == 0:
        legal = game.legal_actions()
        if legal:
            return {"text": game.action_text(legal[rng.below(len(legal))])}
    p = {}
    for _ in range(rng.below(4)):
        p[KEYS[rng.below(len(KEYS))]] = _value(rng)
    return p


def _line(rng, seq, kind, payload):
    k = rng.below(16)
    if k == 0:
        depth = (40, 400, 3000)[rng.below(3)]
        body = "~TB %d %s %s" % (seq, kind, "[" * depth + "]" * depth)
        return ("%s *%04x\n" % (body, crc16(body.encode()))).encode()
    if k == 1:
        return bytes([rng.below(256) for _ in range(rng.below(40))]) + b"\n"
    if k == 2:
        body = "~TB %s %s {}" % ("9" * (1 + rng.below(1200)), kind)
        return ("%s *%04x\n" % (body, crc16(body.encode()))).encode()
    if k == 3:
        return b"~TB " + b"y" * (900 + rng.below(400)) + b"\n"
    try:
        line = encode(seq, kind, payload)
    except Exception:  # too long to be a frame: send it anyway
        line = "~TB %d %s {} *0000" % (seq, kind)
    data = line.encode()
    if k == 4 and data:
        i = rng.below(len(data))
        data = data[:i] + bytes([rng.below(256)]) + data[i + 1:]
    return data + b"\n"


def _fuzz(rig, rng, total, raw_only=False):
    sent = 0
    seq = 0
    while sent < total:
        kind = KINDS[rng.below(len(KINDS))]
        seq = (seq + 1) & 0xFFFF
        if raw_only:
            data = bytes([rng.below(256) for _ in range(rng.below(300))])
        else:
            data = _line(rng, seq, kind, _payload(rng, kind, rig.ctl.session.game))
        rig.hal.rx.extend(data)
        sent += 1
        if rng.below(4) == 0 or sent == total:
            got = rig.run(10)  # frames() decodes every line: each must be a good frame
            while len(rig.hal.rx) > 2048:  # (the rig's port buffer is a plain bytearray)
                got += rig.run(10)
            assert not [p for p in only(got, "error") if p["code"] == "internal"], got
    while rig.hal.rx:
        rig.run(10)
    rig.raw(b"\n")
    got = rig.send("ping", run=100)
    assert [p["re"] for p in only(got, "ok")] == [rig.seq]
    game = rig.ctl.session.game
    if game is not None:
        saved = GameLog(rig.folder + "/game.log").load()
        assert saved[1] == [game.action_text(a) for a in game.history]


def test_fuzzed_commands_to_a_board_without_a_game():
    _fuzz(Rig("tortuga"), Rng(14), _count() // 3)


def test_fuzzed_commands_during_a_game():
    rig = Rig("tortuga")
    rig.new()
    rng = Rng(15)
    for _ in range(6):
        legal = rig.ctl.session.game.legal_actions()
        rig.send("enter", {"text": rig.ctl.session.game.action_text(legal[rng.below(len(legal))])})
    _fuzz(rig, rng, _count() // 3)


def test_raw_bytes_of_any_kind():
    _fuzz(Rig("tortuga"), Rng(16), _count() // 3, raw_only=True)
