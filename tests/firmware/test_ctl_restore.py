# Power cuts: the game comes back from the log; the board is guided back to
# the game's position and nothing is committed until it matches.
from ctl_rig import Rig, actions, only
from hwtools import flash_area

from controller.flashlog import LogArea
from controller.gamelog import GameLog
from turtles import DOWN


def test_power_cut_restores_the_game_and_guides_the_board():
    rig = Rig("tortuga")
    rig.new()
    rig.show()
    rig.run(100)
    rig.take("c1")
    rig.put("c2")
    rig.run(100)
    rig.take("g4")
    rig.put("g3")
    rig.run(400)  # the board still: the log is written
    assert rig.ctl.session.game.history and len(rig.log.load()[1]) == 2
    want = rig.ctl.session.hash()
    # The power goes; meanwhile someone knocks two turtles off the board.
    adc = list(rig.hal.adc)
    again = Rig("tortuga", folder=rig.folder)
    again.hal.adc = adc
    again.take("g3")
    again.take("a1")
    got = again.run(10)
    assert again.ctl.session.game is None
    assert again.ctl.restore()
    got = again.run(3000)
    assert again.ctl.session.hash() == want
    assert actions(got) == []
    status = only(got, "status")[-1]
    assert sorted(status["expect"]["on"]) == ["a1", "g3"]
    # Putting one back is not enough, and no move is read into it.
    again.put("a1")
    assert actions(again.run(3000)) == []
    again.put("g3")
    got = again.run(100)
    assert only(got, "status")[-1]["text"] == "player 1 to move"
    assert actions(got) == []
    again.take("d1")
    again.put("d3")  # the game goes on from the restored position
    got = again.run(100)
    assert len(actions(got)) == 1


def on_flash(rig):
    # The actions in the rig's log (its file, or its log area) as a new boot
    # reads them, not through the controller's log, which writes what waits
    # first.
    path = rig.folder + "/game.log"
    area = LogArea(flash_area(rig.folder), path) if rig.log.area is not None else None
    return GameLog(path, area).load()[1]


def playing(area, entered=()):
    # A Tortuga game on the pieces, the host's `entered` actions made first.
    rig = Rig("tortuga", area=area)
    rig.new()
    for text in entered:
        rig.send("enter", {"text": text})
    rig.show()
    rig.run(400)
    return rig


def move(rig, lift, put, readied=True, turn=None):
    # One move made on the pieces (`turn`: a cell turned over on the way),
    # cycle by cycle up to its frame, so that the power can go right after
    # it. `readied`: held in the air long enough for its moves to be readied.
    # -> the actions the frames gave
    rig.take(lift)
    if readied:
        rig.run(150)
    if turn is not None:
        rig.put(turn, DOWN)
    rig.put(put)
    for _ in range(40):
        got = actions(rig.run(5))
        if got:
            return got
    return []


def boot_again(rig, area, lifted=None):
    # The power gone and back, the pieces as they were (`lifted`: a turtle
    # taken off meanwhile): a new board on the same flash, its game restored.
    again = Rig("tortuga", folder=rig.folder, area=area)
    again.hal.adc = list(rig.hal.adc)
    if lifted is not None:
        again.take(lifted)
    assert again.ctl.restore()
    return again


def hello_n(rig):
    return only(rig.send("hello", {"host": "t", "proto": 1}, run=5), "hello")[0]["n"]


def sent(got):
    # The action frames as (n, text, by).
    return [(p["n"], p["text"], p["by"]) for p in only(got, "action")]


def test_every_action_reported_comes_back_after_a_cut_right_after_its_frame():
    # Two moves in quick succession, the power gone right after the second
    # one's frame. The log area has every action on flash before its frame;
    # a log in a file writes a move the pieces prove in the next cycle, and
    # after a cut between the two the board reads it again from the pieces.
    for area in (True, False):
        rig = playing(area)
        reported = move(rig, "c1", "c2") + move(rig, "g4", "g3")
        assert reported == ["c1-c2", "g4-g3"]
        assert on_flash(rig) == (reported if area else ["c1-c2"])  # what a new boot finds
        again = boot_again(rig, area)
        assert hello_n(again) == (2 if area else 1)
        got = again.run(1000)
        assert sent(got) == ([] if area else [(2, "g4-g3", "sensors")]), area
        assert again.ctl.session.hash() == rig.ctl.session.hash()
        again.run(20)
        assert on_flash(again) == reported


def test_a_file_log_writes_a_proven_move_in_the_cycle_after_its_frame():
    rig = playing(area=False)
    assert move(rig, "c1", "c2") == ["c1-c2"]
    assert on_flash(rig) == [] and rig.ctl.session.log.behind is not None
    rig.run(5)  # the next cycle
    assert rig.ctl.session.log.behind is None and on_flash(rig) == ["c1-c2"]


def test_a_cut_with_the_next_turtle_in_the_air_reads_the_unwritten_move_again():
    # The frame of c1-c2 out, its line not yet written, the next player's
    # turtle lifted, and the power goes: the pieces still prove c1-c2.
    rig = playing(area=False)
    assert move(rig, "c1", "c2") == ["c1-c2"] and on_flash(rig) == []
    again = boot_again(rig, area=False, lifted="g4")
    assert hello_n(again) == 0
    got = again.run(1000)
    assert sent(got) == [(1, "c1-c2", "sensors")]
    assert only(got, "status")[-1]["text"] == "put the turtle on a lit cell"
    again.put("g3")  # and the game goes on with it
    assert actions(again.run(1000)) == ["g4-g3"]
    again.run(20)
    assert on_flash(again) == ["c1-c2", "g4-g3"]


def test_a_cut_before_a_move_is_committed_reads_it_again():
    # The pieces moved, the power went before the move counted (no frame):
    # the board, one legal move on from the restored game, commits it again.
    rig = Rig("tortuga")
    rig.new()
    rig.show()
    rig.run(100)
    rig.take("c1")
    rig.put("c2")
    assert actions(rig.run(5)) == []  # still settling
    adc = list(rig.hal.adc)
    again = Rig("tortuga", folder=rig.folder)
    again.hal.adc = adc
    assert again.ctl.restore()
    got = again.send("hello", {"host": "t", "proto": 1}, run=5)
    assert only(got, "hello")[0]["n"] == 0
    got += again.run(1000)
    assert [(p["n"], p["text"], p["by"]) for p in only(got, "action")] == [(1, "c1-c2", "sensors")]
    assert again.log.load()[1] == ["c1-c2"]


def until_action(rig, by, ms=5000):
    # Cycle by cycle up to the first action frame by `by`.
    for _ in range(ms // 5):
        for p in only(rig.run(5), "action"):
            if p["by"] == by:
                return p
    raise AssertionError("no action by %s" % by)


def test_a_roll_and_an_ok_answer_are_on_flash_before_their_frames():
    rig = Rig("mahe")
    rig.new(players=2, dice="electronic")
    rig.show()
    roll = until_action(rig, "dice")
    assert rig.log.load()[1] == [roll["text"]]
    rig = Rig("race")
    rig.new(players=3, dice="electronic")
    rig.show()
    rig.run(700)  # the Race's start stack: a chance prompt, answered with OK
    rig.hal.held.append("ok")
    answer = until_action(rig, "buttons")
    rig.hal.held.remove("ok")
    assert rig.log.load()[1] == [answer["text"]]


def test_hello_after_restore_reports_the_game():
    rig = Rig("mahe")
    rig.new(players=4, dice="physical")
    rig.send("enter", {"text": "e4"})
    again = Rig("mahe", folder=rig.folder)
    again.ctl.restore()
    hello = only(again.send("hello", {"host": "t", "proto": 1}), "hello")[0]
    assert hello["game"] == "mahe" and hello["n"] == 1
    assert hello["hash"] == rig.ctl.session.hash()
    assert again.ctl.session.dice == "physical"


def test_a_torn_last_line_loses_only_that_action():
    rig = Rig("mahe")
    rig.new(players=4, dice="physical")
    rig.send("enter", {"text": "e4"})
    rig.send("enter", {"text": "d2"})
    f = open(rig.folder + "/game.log", "a")
    f.write("A d3 *1234")  # a write cut by the power
    f.close()
    again = Rig("mahe", folder=rig.folder)
    assert again.ctl.restore()
    assert [again.ctl.session.game.action_text(a) for a in again.ctl.session.game.history] == ["e4", "d2"]


def test_no_log_means_no_game_and_a_damaged_one_is_reported():
    rig = Rig("tortuga")
    assert not rig.ctl.restore()
    f = open(rig.folder + "/game.log", "w")
    f.write("nonsense\n")
    f.close()
    assert not rig.ctl.restore()
    assert rig.ctl.session.game is None


def test_a_log_for_another_game_is_refused_with_an_error():
    rig = Rig("mahe")
    rig.new(players=4)
    again = Rig("tortuga", folder=rig.folder)
    assert not again.ctl.restore()
    got = again.frames()
    assert only(got, "error")[0]["code"] == "log"
    assert again.ctl.session.game is None


def test_restore_with_a_flipped_turtle_guides_a_flip():
    rig = Rig("tortuga")
    rig.new()
    rig.show()
    rig.run(100)
    again = Rig("tortuga", folder=rig.folder)
    again.hal.adc = list(rig.hal.adc)
    again.put("a1", DOWN)
    again.ctl.restore()
    got = again.run(200)
    assert only(got, "status")[-1]["expect"]["flip"] == ["a1"]


def test_a_log_action_the_rules_refuse_ends_the_replay_and_the_log():
    rig = Rig("tortuga")
    rig.new()
    rig.send("enter", {"text": "c1-c2"})
    rig.log.append("c1-c2")  # impossible now (say, written by other firmware)
    rig.log.append("g4-g3")
    again = Rig("tortuga", folder=rig.folder)
    assert again.ctl.restore()
    got = again.frames()
    assert only(got, "error")[0]["code"] == "log" and "action 2" in only(got, "error")[0]["msg"]
    assert len(again.ctl.session.game.history) == 1
    assert again.log.load()[1] == ["c1-c2"]


# game.log as the firmware of earlier releases wrote it (0.1.0: before the
# snapshot lines, and with them), the Mahé game of tests/data/format1.
OLD_LOGS = __file__.rsplit("/", 2)[0] + "/data/"


def test_a_game_log_an_earlier_release_wrote_still_restores():
    from turtles.record import read_record

    with open(OLD_LOGS + "format1/mahe-2-players.txt") as f:
        want = read_record(f.read())
    for name in ("mahe-no-snapshots.log", "mahe-snapshots.log"):
        rig = Rig("mahe")
        with open(OLD_LOGS + "gamelog/" + name, "rb") as f:
            data = f.read()
        with open(rig.folder + "/game.log", "wb") as f:
            f.write(data)
        assert rig.ctl.restore(), name
        assert len(rig.ctl.session.game.history) == len(want.history) == 592, name
        assert rig.ctl.session.game.state_hash() == want.state_hash(), name
        assert rig.ctl.session.game.result() == want.result(), name
        with open(rig.folder + "/game.log", "rb") as f:
            assert f.read() == data, name  # nothing found damaged, nothing rewritten


def test_the_log_area_is_erased_ahead_only_once_the_board_has_been_still():
    # The Turtleboard build: sectors are erased ahead of the log's end while
    # the board has been still 2 s, one a quiet cycle, never while moves come.
    rig = Rig("tortuga", area=True)
    rig.new()
    rig.show()
    rig.run(100)
    area = rig.log.area
    for k in range(1, 5):  # the sectors ahead hold older data (as once the ring came round)
        at = area._next_free(k - 1)
        area.dev.writeblocks(at // 4096, b"\x00" * 256, 0)
    area.ready = 0
    rig.take("c1")
    rig.put("c2")
    rig.run(1500)
    rig.take("g4")
    rig.put("g3")
    rig.run(1500)  # never still 2 s
    assert rig.log.load()[1] == ["c1-c2", "g4-g3"]
    assert area.erased == 0 and area.forced == 0
    rig.run(1000)
    assert area.erased == 4 and area.ready == 4 and area.forced == 0


def test_a_cut_with_the_moved_turtle_lifted_again_reads_its_capture_again():
    # e3xg3 jumps f3 and turns it over. Its frame out, its line not yet
    # written, the same turtle lifted again off g3 (to hop on), and the power
    # goes: e3 empty and f3 turned over prove e3xg3, the turtle in the air.
    rig = playing(False, ("f1-e2", "f5-f4", "a1-b2", "d6-e5", "e2-d3", "f4-f3", "d2-e2", "e5-e4", "e1xe3", "e6-e5"))
    assert rig.ctl.session.log.count == 10
    assert move(rig, "e3", "g3", turn="f3") == ["e3xg3"] and len(on_flash(rig)) == 10
    again = boot_again(rig, area=False, lifted="g3")
    assert hello_n(again) == 10
    assert sent(again.run(1000)) == [(11, "e3xg3", "sensors")]
    assert again.ctl.session.hash() == rig.ctl.session.hash()
    # Put back where it was, the game goes on from there.
    again.put("g3")
    got = again.run(1000)
    assert actions(got) == [] and only(got, "status")[-1]["text"].endswith("to move")
    again.run(20)
    assert on_flash(again)[-1] == "e3xg3"


def test_a_move_put_down_before_it_was_readied_is_written_behind_too():
    # Put down before its moves were readied in the air (the lift hidden by
    # a flash write, say): whether its player moves again is worked out in
    # the commit, and the line waits for the next cycle as any proven move.
    rig = playing(area=False)
    assert move(rig, "c1", "c2", readied=False) == ["c1-c2"]
    assert on_flash(rig) == [] and rig.ctl.session.log.behind is not None


def test_a_hop_on_that_turns_nothing_over_is_written_before_its_frame():
    # The same player moves again after it, and the board it leaves with its
    # turtle lifted again would be only a turtle lifted: no proof after a cut.
    rig = playing(area=False)
    rig.ctl.position().moves_again = lambda action: True  # (as the engine says of a hop on)
    assert move(rig, "c1", "c2", readied=False) == ["c1-c2"]
    assert on_flash(rig) == ["c1-c2"] and rig.ctl.session.log.behind is None


def test_a_write_behind_that_fails_is_said_and_done_by_the_next_write():
    rig = playing(area=False)
    path = rig.log.path
    rig.log.path = rig.folder + "/no such folder/game.log"  # the flash refuses the write
    assert move(rig, "c1", "c2") == ["c1-c2"]
    got = rig.run(5)  # the next cycle tries it
    errors = only(got, "error")
    assert [e["code"] for e in errors] == ["log"] and "reads it again from the pieces" in errors[0]["msg"]
    assert rig.log.behind is not None and on_flash(rig) == []
    rig.log.path = path
    assert move(rig, "g4", "g3") == ["g4-g3"]  # its commit writes the one waiting first
    assert on_flash(rig) == ["c1-c2"]
    rig.run(5)
    assert on_flash(rig) == ["c1-c2", "g4-g3"]


def test_ctrl_c_writes_the_line_that_waits():
    # mpremote, `turtleboard flash` and the REPL find the log whole.
    rig = playing(area=False)
    assert move(rig, "c1", "c2") == ["c1-c2"] and on_flash(rig) == []
    ticks = rig.hal.ticks_ms

    def interrupted():
        raise KeyboardInterrupt

    rig.hal.ticks_ms = interrupted
    try:
        rig.ctl.run()
        raise AssertionError("run() went on")
    except KeyboardInterrupt:
        pass
    rig.hal.ticks_ms = ticks
    assert on_flash(rig) == ["c1-c2"]
