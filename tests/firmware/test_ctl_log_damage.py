# The game log's damage cases: the board restores every action whose own
# line it can prove, keeps every line it could not use aside in game.log.bad,
# and says what it could not restore in `hello` and `state` until a host
# acknowledges it (`ack`), also to a host that connects after a reboot.
import os

from ctl_rig import Rig, only, play_seeded
from hwtools import exists, read, write

from controller.gamelog import crc32, seal
from turtles.jsontext import quote
from turtles.rng import Rng


def _game(before=50, after=10):
    # A Mahé game: `before` actions, a snapshot, `after` more actions.
    rig = Rig("mahe")
    rig.new(players=2, dice="physical")
    game = rig.ctl.session.game

    def snapshot(k):
        if k + 1 == before:
            rig.ctl.session.log.snapshot(game.state_hash(), game.state_text())

    texts = play_seeded(rig, before + after, 3, snapshot)
    assert len(texts) == before + after
    return rig.folder, read(rig.folder + "/game.log", "rb"), texts


def _lines(data):
    return [line + b"\n" for line in data.split(b"\n")[:-1]]


def _boot(folder, data=None, pieces=0):
    # A reboot with the log as `data` (None: as it is), and no host listening;
    # `pieces`: blocks of the log read ahead first, as boot reads them while
    # calibration waits (GameLog.read_ahead).
    if data is not None:
        write(folder + "/game.log", data, "wb")
    rig = Rig("mahe", folder=folder)
    for _ in range(pieces):
        rig.ctl.session.log.read_ahead()
    rig.ctl.restore()  # as boot does
    errors = only(rig.frames(), "error")
    return rig, errors


def _synced(rig):
    # What a host that connects now hears: hello, then the sync's state and log.
    hello = only(rig.send("hello", {"host": "t", "proto": 1}), "hello")[0]
    got = rig.send("sync")
    state = only(got, "state")[0]
    texts = []
    for chunk in only(got, "log"):
        texts.extend(chunk["actions"])
    return hello, state, texts


def test_a_damaged_snapshot_replays_every_action_after_it_and_says_so_until_acknowledged():
    folder, data, texts = _game()
    lines = _lines(data)
    snap = 51  # H, 50 actions, then the snapshot
    assert lines[snap].startswith(b"S 50 ")
    bad = bytearray(lines[snap])
    bad[len(bad) // 2] ^= 0x04  # one flipped bit in its state
    damaged = b"".join(lines[:snap]) + bytes(bad) + b"".join(lines[snap + 1:])
    rig, errors = _boot(folder, damaged)
    assert len(rig.ctl.session.game.history) == 60 and list(rig.ctl.session.action_texts()) == texts
    assert errors and errors[0]["code"] == "log"
    msg = errors[0]["msg"]
    assert "line 52 (a snapshot, passed over)" in msg and "60 actions are restored" in msg, msg
    assert read(folder + "/game.log.bad", "rb") == damaged
    # A host that connects later: told in hello and in the sync, again and again.
    for _ in range(2):
        hello, state, synced = _synced(rig)
        assert hello["log"] == state["log"] and "line 52" in hello["log"]
        assert synced == texts and state["n"] == 60
    # A reboot before any host came: still told.
    rig, errors = _boot(folder)
    assert errors == [] and len(rig.ctl.session.game.history) == 60  # the log was mended
    hello, state, synced = _synced(rig)
    assert "line 52" in hello["log"]
    # Acknowledged only with the report itself.
    got = rig.send("ack", {"log": "something else"})
    assert only(got, "error")[0]["code"] == "bad-payload"
    got = rig.send("ack", {"log": hello["log"]})
    assert only(got, "ok")
    hello, state, synced = _synced(rig)
    assert hello["log"] is None and state["log"] is None and synced == texts
    rig, errors = _boot(folder)
    assert _synced(rig)[0]["log"] is None


def test_a_last_line_missing_only_its_newline_is_kept():
    folder, data, texts = _game(50, 3)
    rig, errors = _boot(folder, data[:-1])
    assert errors == [] and list(rig.ctl.session.action_texts()) == texts
    assert _synced(rig)[0]["log"] is None  # (no damage: a power cut before the newline)
    rig.ctl.commit(rig.ctl.session.game.legal_actions()[0], "host")  # the log goes on cleanly
    again, errors = _boot(folder)
    assert errors == [] and len(again.ctl.session.game.history) == 54


def test_an_emptied_log_says_so():
    folder, data, texts = _game(3, 0)
    rig, errors = _boot(folder, b"")
    assert rig.ctl.session.game is None
    assert [e["code"] for e in errors] == ["log"] and "empty" in errors[0]["msg"]
    hello, state, synced = _synced(rig)
    assert "empty" in hello["log"] and state["game"] is None and "empty" in state["log"]
    assert not exists(folder + "/game.log")  # the next boot is clean, the report stays
    rig, errors = _boot(folder)
    assert errors == [] and "empty" in _synced(rig)[0]["log"]


def test_an_action_that_is_not_text_behind_a_snapshot_ends_the_game_before_it():
    # Its checksum is right, but it is no action: the board never sends it
    # as one (the host could never replay it), and says what it lost.
    folder, data, texts = _game(50, 10)
    lines = _lines(data)
    body = b"A \xff\xfe"
    lines[30] = body + (" *%08x\n" % crc32(body)).encode()  # action 30, before the snapshot
    rig, errors = _boot(folder, b"".join(lines))
    assert list(rig.ctl.session.action_texts()) == texts[:29]
    msg = errors[0]["msg"]
    assert "line 31 (an action that is not UTF-8 text)" in msg and "29 actions are restored" in msg, msg
    assert "the 32 lines from line 31 on could not be used" in msg, msg
    hello, state, synced = _synced(rig)
    assert synced == texts[:29] and state["n"] == 29 and "line 31" in state["log"]


def test_a_damaged_action_line_keeps_every_action_before_it_and_counts_the_rest():
    folder, data, texts = _game(50, 10)
    lines = _lines(data)
    lines[55] = lines[55][:3] + b"#" + lines[55][4:]  # action 54, after the snapshot
    rig, errors = _boot(folder, b"".join(lines))
    assert list(rig.ctl.session.action_texts()) == texts[:53]
    msg = errors[0]["msg"]
    assert "line 56 (an action)" in msg and "53 actions are restored" in msg, msg
    assert "game.log.bad" in msg and "line 56" in _synced(rig)[0]["log"]


def test_an_action_the_rules_refuse_is_reported_until_acknowledged():
    folder, data, texts = _game(5, 0)
    write(folder + "/game.log", read(folder + "/game.log") + seal("A z9-z9"))
    rig, errors = _boot(folder)
    assert len(rig.ctl.session.game.history) == 5
    assert "stops making sense at action 6" in _synced(rig)[0]["log"]


def test_a_report_never_makes_a_frame_too_long():
    folder, data, texts = _game(3, 0)
    for k in range(30):  # damage at every boot, never acknowledged
        junk = b"U *00000000\n" * (k + 1)  # (a report of its own each time)
        write(folder + "/game.log", read(folder + "/game.log", "rb") + junk, "wb")
        rig, errors = _boot(folder)
        hello, state, synced = _synced(rig)  # (decoding checks each line's length)
    assert 300 < len(hello["log"]) <= 400 and hello["log"].endswith("...")
    os.remove(folder + "/game.log.report")
    rig, errors = _boot(folder)
    assert _synced(rig)[0]["log"] is None


def test_a_report_of_accented_letters_is_capped_by_its_bytes_as_written():
    # A sealed action line of 300 "é" that the rules refuse, and more at the
    # next boots, never acknowledged: the reports quote them, and "é" is 6
    # bytes in a frame (\u00e9). Every boot's hello fits, the report at most
    # 400 bytes as written, and an `ack` ends it.
    folder, data, texts = _game(3, 0)
    for boot in range(6):
        write(folder + "/game.log", read(folder + "/game.log") + seal("A %d" % boot + "\u00e9" * 300))
        rig, errors = _boot(folder)
        assert [e["code"] for e in errors] == ["log"]
        hello, state, synced = _synced(rig)  # (decoding checks each line's length)
        assert "stops making sense at action 4" in hello["log"] and hello["log"] == state["log"]
        assert "game.log.bad" in hello["log"]  # (the text quoted short: where the log is kept is said)
        assert len(quote(hello["log"])) - 2 <= 400 and synced == texts and "cut" not in hello
    assert hello["log"].endswith("...") and len(quote(hello["log"])) - 2 > 380  # (the byte cap at work)
    assert only(rig.send("ack", {"log": hello["log"]}), "ok")
    rig, errors = _boot(folder)
    assert _synced(rig)[0]["log"] is None


def test_a_new_game_replaces_the_old_logs_report_with_the_old_log():
    # The host starting a new game had the report in its hello; the log it
    # spoke of is gone (its copy stays in game.log.bad): never said again.
    folder, data, texts = _game(5, 0)
    write(folder + "/game.log", read(folder + "/game.log") + seal("A z9-z9"))
    rig, errors = _boot(folder)
    hello, state, synced = _synced(rig)
    assert "stops making sense at action 6" in hello["log"]
    got = rig.new(players=2, dice="physical")
    assert only(got, "state")[0]["log"] is None
    hello, state, synced = _synced(rig)
    assert hello["log"] is None and state["log"] is None and synced == []
    assert not exists(folder + "/game.log.report") and exists(folder + "/game.log.bad")
    rig, errors = _boot(folder)
    assert errors == [] and _synced(rig)[0]["log"] is None


def _flip_bits():
    # Which bytes of a snapshot line get each of their 8 bits flipped: every
    # byte of its frame ("S <n> <hash> " and " *<crc32>\n") and a seeded
    # sample of its state; TB_LOG_FLIPS=all flips every bit of every byte
    # (bench/fuzz.py).
    try:
        return os.getenv("TB_LOG_FLIPS") == "all"
    except AttributeError:  # (MicroPython's os has no getenv)
        return False


def test_every_bit_flip_of_a_snapshot_line_keeps_every_action_after_it():
    # A snapshot line longer than any action line cannot be an action: a
    # flipped bit anywhere in it (its kind, a count digit, a space, the star,
    # its newline, or a byte made a newline) passes it over as a damaged
    # snapshot and every action line after it is replayed.
    rig = Rig("mahe")
    rig.new(players=2, dice="physical")
    game = rig.ctl.session.game

    def snapshot(k):
        if k + 1 in (50, 100):
            rig.ctl.session.log.snapshot(game.state_hash(), game.state_text())

    texts = play_seeded(rig, 110, 3, snapshot)
    folder, data = rig.folder, read(rig.folder + "/game.log", "rb")
    lines = _lines(data)
    every = _flip_bits()
    rng = Rng(37)
    tried = 0
    for snap in (51, 102):  # H, 50 actions, S; 50 more, S; 10 more
        line = lines[snap]
        assert line.startswith(("S %d " % (snap - 1 - (snap > 51))).encode()) and len(line) > 200
        start = len(b"".join(lines[:snap]))
        head = line.index(b" ", 5) + 1  # "S <n> <hash> "
        sample = [rng.below(len(line) - head - 11) + head for _ in range(6)]
        for at in range(len(line)):
            if not (every or at < head or at >= len(line) - 11 or at in sample):
                continue
            for bit in range(8):
                bad = bytearray(data)
                bad[start + at] ^= 1 << bit
                if exists(folder + "/game.log.report"):
                    os.remove(folder + "/game.log.report")
                rig, errors = _boot(folder, bytes(bad), tried % 3)
                got = list(rig.ctl.session.action_texts())
                assert got == texts, (snap, at, bit, len(got))
                if 97 <= line[at] <= 102 and bit == 5 and at >= len(line) - 9:
                    assert errors == []  # a checksum digit in the other case: still proven
                    continue
                msg = errors[0]["msg"]
                assert "line %d (a snapshot, passed over)" % (snap + 1) in msg, (snap, at, bit, msg)
                assert "110 actions are restored" in msg, msg
                assert read(folder + "/game.log.bad", "rb") == bytes(bad)
                tried += 1
    assert tried >= 2 * 8 * (14 + 11)
