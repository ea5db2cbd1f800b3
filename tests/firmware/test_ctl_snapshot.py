# Snapshots in the game log: boot resumes from the last good one and replays
# only the actions after it; a bad, torn or taken-back snapshot costs only
# time (every action is replayed), never a move of the game.
from ctl_rig import Rig, only, play_seeded
from hwtools import read, write

from controller.gamelog import seal
from controller.session import SNAPSHOT_EVERY


def _play(rig, n, seed=3, quiet=True):
    # n actions entered by the host, each followed by a quiet cycle's snapshot
    # check, as on the device. -> their texts.
    def after(k):
        if quiet:
            rig.ctl.session.keep_snapshot()
        if len(rig.hal.tx) > 8000:
            rig.hal.tx = bytearray()  # (the frames of a long game: not read here)

    return play_seeded(rig, n, seed, after)


def _mahe(n):
    rig = Rig("mahe")
    rig.new(players=4, dice="physical")
    texts = _play(rig, n)
    return rig, texts


def _snapshot_lines(folder):
    return [line for line in read(folder + "/game.log").splitlines() if line.startswith("S ")]


def _boot(folder, game="mahe"):
    again = Rig(game, folder=folder)
    assert again.ctl.restore()
    return again, only(again.frames(), "error")


def test_snapshots_are_written_every_so_many_actions_in_quiet_cycles():
    rig, texts = _mahe(2 * SNAPSHOT_EVERY + 7)
    lines = _snapshot_lines(rig.folder)
    assert [int(line.split()[1]) for line in lines] == [SNAPSHOT_EVERY, 2 * SNAPSHOT_EVERY]
    # and the control loop writes them itself, in a cycle with nothing else to do
    rig2 = Rig("mahe")
    rig2.new(players=4, dice="physical")
    _play(rig2, SNAPSHOT_EVERY, quiet=False)
    assert _snapshot_lines(rig2.folder) == []
    rig2.run(200)
    assert [int(line.split()[1]) for line in _snapshot_lines(rig2.folder)] == [SNAPSHOT_EVERY]


def test_boot_resumes_from_the_last_snapshot_and_replays_the_tail():
    rig, texts = _mahe(2 * SNAPSHOT_EVERY + 7)
    again, errors = _boot(rig.folder)
    assert errors == []
    game = again.ctl.session.game
    assert game.history.base == 2 * SNAPSHOT_EVERY and game.history.n == 7
    assert again.ctl.session.hash() == rig.ctl.session.hash() and len(game.history) == len(texts)
    assert game.legal_texts() == rig.ctl.session.game.legal_texts()
    # hello and sync tell the host the whole game, as before
    hello = only(again.send("hello", {"host": "t", "proto": 1}), "hello")[0]
    assert hello["n"] == len(texts) and hello["hash"] == rig.ctl.session.hash()
    got = again.send("sync")
    logged = []
    for frame in only(got, "log"):
        assert frame["from"] == len(logged)
        logged.extend(frame["actions"])
    assert logged == texts
    assert only(got, "synced")[0]["hash"] == rig.ctl.session.hash()
    # the game goes on and the next boot finds it
    more = _play(again, 3, seed=11)
    third, errors = _boot(rig.folder)
    assert list(third.ctl.session.action_texts()) == texts + more and errors == []


def test_takebacks_behind_the_snapshot_replay_the_whole_game():
    rig, texts = _mahe(SNAPSHOT_EVERY + 2)
    want = []
    for _ in range(4):
        rig.ctl.takeback("host")
        want.append(rig.ctl.session.hash())
    again, errors = _boot(rig.folder)  # the takebacks went behind the snapshot: no use
    assert again.ctl.session.game.history.base == 0 and again.ctl.session.hash() == want[-1] and errors == []
    # a fresh snapshot, then takebacks behind it on the running game
    rig, texts = _mahe(SNAPSHOT_EVERY + 2)
    again, errors = _boot(rig.folder)
    assert again.ctl.session.game.history.base == SNAPSHOT_EVERY
    for k in range(4):
        again.ctl.takeback("host")
        assert again.ctl.session.hash() == want[k]
    assert again.ctl.session.game.history.base == 0
    assert list(again.ctl.session.action_texts()) == texts[:-4]
    third, errors = _boot(rig.folder)
    assert third.ctl.session.hash() == want[-1] and errors == []


def test_a_snapshot_that_does_not_fit_is_passed_over_and_every_action_replayed():
    rig, texts = _mahe(SNAPSHOT_EVERY + 5)
    log = read(rig.folder + "/game.log")
    line = _snapshot_lines(rig.folder)[0]
    body = line[:line.rfind(" *")]
    n, h, state = body[2:].split(" ", 2)
    for bad in ("S %s %s %s" % (n, h, state.replace("[", "[9,", 1)),  # another state
                "S %s %08x %s" % (n, int(h, 16) ^ 1, state),  # another hash
                "S %s %s [1,2,3]" % (n, h),  # not this game's
                "S %d %s %s" % (int(n) + 1, h, state)):  # at another action
        write(rig.folder + "/game.log", log.replace(line + "\n", seal(bad)))
        again, errors = _boot(rig.folder)
        assert again.ctl.session.game.history.base == 0, bad
        assert again.ctl.session.hash() == rig.ctl.session.hash() and errors == [], bad


def test_a_torn_snapshot_is_a_power_cut_and_the_one_before_is_used():
    rig, texts = _mahe(2 * SNAPSHOT_EVERY)
    log = read(rig.folder + "/game.log")
    assert log.endswith("\n") and log.splitlines()[-1].startswith("S %d " % (2 * SNAPSHOT_EVERY))
    for cut in (3, 20, 60):
        write(rig.folder + "/game.log", log[:-cut])
        again, errors = _boot(rig.folder)
        assert errors == [] and again.ctl.session.game.history.base == SNAPSHOT_EVERY
        assert again.ctl.session.hash() == rig.ctl.session.hash()


def test_a_damaged_snapshot_is_passed_over_and_every_action_after_it_replayed():
    rig, texts = _mahe(SNAPSHOT_EVERY + 5)
    log = read(rig.folder + "/game.log")
    line = _snapshot_lines(rig.folder)[0]
    write(rig.folder + "/game.log", log.replace(line, line.replace(",", ";", 1)))
    again, errors = _boot(rig.folder)
    # every action restored (replayed from the start), the damage said, the log as it was kept
    assert list(again.ctl.session.action_texts()) == texts and again.ctl.session.game.history.base == 0
    assert again.ctl.session.hash() == rig.ctl.session.hash()
    assert errors[0]["code"] == "log" and "a snapshot, passed over" in errors[0]["msg"]
    assert "game.log.bad" in errors[0]["msg"]


def test_a_finished_game_comes_back_finished():
    rig = Rig("mahe")
    rig.new(players=2, dice="physical")
    texts = _play(rig, 5000, seed=5)
    game = rig.ctl.session.game
    assert game.is_over() and len(texts) > SNAPSHOT_EVERY
    for at_end in (False, True):
        if at_end:  # a snapshot of the finished game
            rig.ctl.session.log.snapshot(game.state_hash(), game.state_text())
        again, errors = _boot(rig.folder)
        got = again.ctl.session.game
        assert got.history.base == (len(texts) if at_end else len(texts) // SNAPSHOT_EVERY * SNAPSHOT_EVERY)
        assert got.is_over() and errors == [] and got.legal_actions() == []
        assert got.result() == game.result() and again.ctl.session.hash() == rig.ctl.session.hash()


def test_a_failing_snapshot_write_is_reported_and_the_game_goes_on():
    rig, texts = _mahe(SNAPSHOT_EVERY - 1)
    log = rig.ctl.session.log

    def broken(state_hash, text):
        raise OSError(28, "no space")

    log.snapshot = broken
    rig.frames()
    _play(rig, 3, seed=9)
    errors = only(rig.frames(), "error")
    assert len(errors) == 1 and "snapshot" in errors[0]["msg"]
    assert log.count == SNAPSHOT_EVERY + 2


def test_an_action_after_the_snapshot_that_makes_no_sense_is_found_with_every_action_held():
    rig, texts = _mahe(SNAPSHOT_EVERY + 6)
    log = read(rig.folder + "/game.log")
    lines = log.split("\n")
    at = len(lines) - 4  # the 3rd action from the end, after the snapshot
    assert lines[at].startswith("A ")
    lines[at] = seal("A first nobody")[:-1]  # sealed, but no action of this game
    write(rig.folder + "/game.log", "\n".join(lines))
    again, errors = _boot(rig.folder)
    n = len(texts) - 3
    assert list(again.ctl.session.action_texts()) == texts[:n] and again.ctl.session.game.history.base == 0
    assert errors[0]["code"] == "log" and "action %d" % (n + 1) in errors[0]["msg"]
    assert read(rig.folder + "/game.log.bad") == "\n".join(lines)
    third, errors = _boot(rig.folder)  # the log was rewritten to the game as it is
    assert errors == [] and list(third.ctl.session.action_texts()) == texts[:n]
