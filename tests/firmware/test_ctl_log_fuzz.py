# Every truncation and every byte flip of a real game log: the device boots
# (restore never raises), says what it found (a `log` error for anything but
# a clean end or a torn last line), keeps the damaged log whole in game.log.bad,
# and restores every action whose line comes before damage to an action line,
# and every action after a damaged snapshot.
import os

from ctl_rig import Rig, only
from hwtools import exists, read, write

from controller.gamelog import unseal
from turtles.rng import Rng


def _flips():
    # xor masks tried at every byte; TB_LOG_FLIPS=all tries all 255 (bench/fuzz.py)
    try:
        if os.getenv("TB_LOG_FLIPS") == "all":
            return tuple(range(1, 256))
    except AttributeError:
        pass
    return (0x01, 0x80, 0xFF)


FLIPS = _flips()


def _real_log(n=10):
    # A Tortuga game of n actions written by the controller, as on the device,
    # with a snapshot after 5 actions and one after n that the takeback at the
    # end goes behind.
    rig = Rig("tortuga")
    rig.new()
    game = rig.ctl.session.game
    rng = Rng(5)
    texts = []
    for k in range(n):
        legal = game.legal_actions()
        action = legal[rng.below(len(legal))]
        assert rig.ctl.commit(action, "host")
        texts.append(game.action_text(action))
        if k + 1 in (5, n):
            rig.ctl.session.log.snapshot(game.state_hash(), game.state_text())  # `S` lines
    rig.ctl.takeback("host")  # a `U` line too
    texts.pop()
    return rig.folder, read(rig.folder + "/game.log", "rb"), texts


def _lines(data):
    # Byte offsets where each line starts and ends.
    out = []
    start = 0
    for i in range(len(data)):
        if data[i] == 10:
            out.append((start, i + 1))
            start = i + 1
    return out


def _proven(data, lines, upto):
    # The actions the lines before line index `upto` prove (A adds, U pops).
    got = []
    for k in range(1, upto):
        line = data[lines[k][0]:lines[k][1]]
        if line.startswith(b"A "):
            got.append(line[2:-11].decode())
        elif line.startswith(b"U "):
            got.pop()
    return got


def _boot(folder, data, pieces=0):
    # `pieces`: blocks of the log read ahead first, as boot reads them while
    # calibration waits (GameLog.read_ahead); the restore reads the rest.
    write(folder + "/game.log", data, "wb")
    for name in ("/game.log.bad", "/game.log.tmp"):
        if exists(folder + name):
            os.remove(folder + name)
    rig = Rig("tortuga", folder=folder)
    for _ in range(pieces):
        rig.ctl.session.log.read_ahead()
    restored = rig.ctl.restore()
    got = rig.frames()
    rig.run(20)  # and it runs on
    history = list(rig.ctl.session.action_texts()) if restored else []  # what `sync` sends
    return rig, history, only(got, "error")


def test_every_truncation_boots_and_keeps_what_was_written():
    folder, data, texts = _real_log()
    lines = _lines(data)
    ends = [e for _, e in lines]
    count = 0
    for cut in range(len(data) + 1):
        rig, history, errors = _boot(folder, data[:cut], cut % 3)
        whole = len([e for e in ends if e - 1 <= cut])  # (a line missing only its newline is whole)
        assert history == (_proven(data, lines, whole) if whole else []), cut
        if cut == 0:  # an emptied log: said so
            assert [e["code"] for e in errors] == ["log"] and "empty" in errors[0]["msg"], cut
        elif cut < ends[0] - 1:  # never a power cut: a new game's header is renamed into place
            assert [e["code"] for e in errors] == ["log"] and "header" in errors[0]["msg"], cut
        else:
            assert errors == [], (cut, errors)  # a torn end is a power cut, not damage
        count += 1
    assert count == len(data) + 1


def test_every_byte_flip_boots_says_so_and_keeps_a_copy():
    folder, data, texts = _real_log()
    lines = _lines(data)
    for at in range(len(data)):
        k = 0
        while lines[k][1] <= at:
            k += 1
        for mask in FLIPS:
            bad = bytearray(data)
            bad[at] ^= mask
            rig, history, errors = _boot(folder, bytes(bad), (at + mask) % 3)
            if _still_sealed(bytes(bad[lines[k][0]:lines[k][1]])):
                # a checksum digit in the other case: the line is as proven as before
                assert history == texts and errors == [], (at, mask)
                continue
            assert [e["code"] for e in errors][:1] == ["log"], (at, mask, errors)
            assert read(folder + "/game.log.bad", "rb") == bytes(bad), (at, mask)
            start, end = lines[k]
            if at == len(data) - 1:
                # the last newline damaged: that line's own checksum still proves it
                assert history == _proven(data, lines, k + 1), (at, mask, history)
            elif data[start:start + 2] == b"S ":
                # a snapshot only saves time: every action after it is replayed,
                # whatever byte of it is damaged (its kind, its count, its end)
                assert history == texts, (at, mask, history)
            else:
                # an action or takeback line: the actions after it need it
                assert history == _proven(data, lines, k), (at, mask, history)


def _still_sealed(line):
    try:
        return unseal(line.decode()) is not None
    except UnicodeError:
        return False


def test_damage_is_reported_with_the_line_and_what_was_restored():
    folder, data, texts = _real_log()
    lines = _lines(data)
    bad = bytearray(data)
    bad[lines[4][0] + 3] ^= 0x02  # the 4th action's line
    rig, history, errors = _boot(folder, bytes(bad))
    assert history == texts[:3]
    msg = errors[0]["msg"]
    assert "line 5" in msg and "3 actions" in msg and "game.log.bad" in msg, msg
    # The log goes on cleanly from there.
    rig.ctl.commit(rig.ctl.session.game.legal_actions()[0], "host")
    again = Rig("tortuga", folder=folder)
    assert again.ctl.restore() and len(again.ctl.session.game.history) == 4


def test_a_zeroed_or_headless_log_is_reported_not_silently_no_game():
    folder, data, texts = _real_log()
    for junk in (b"\x00" * len(data), data[:5] + b"\x01" + data[6:], b"\xff" * 3000):
        rig, history, errors = _boot(folder, junk)
        assert rig.ctl.session.game is None and history == []
        assert errors and errors[0]["code"] == "log" and "header" in errors[0]["msg"], errors
        assert read(folder + "/game.log.bad", "rb") == junk
        assert not exists(folder + "/game.log")

