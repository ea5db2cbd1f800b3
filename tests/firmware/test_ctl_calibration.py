# A saved empty level (calibration.txt) off by 7,000 to 20,000 on an empty
# cell: once a silent, lasting phantom turtle (a new Tortuga game left the
# cell out of "put on", or asked for ever to "take off" it). The board
# checks every saved level against the board's empty level at boot and
# before a new game, measures such a cell again, says which (an `error`
# frame, `hello`'s `calibration`, its LED lit) and the game plays.
from ctl_rig import Rig, only
from hwtools import read, write

from controller.scenes import RECALIBRATED
from controller.sensing import MID
from turtles import EMPTY, UP


def _booted(folder, changes, adc=None):
    # A boot with calibration.txt's levels changed: {cell: new level}.
    path = folder + "/calibration.txt"
    text = read(path)
    for cell in changes:
        text = text.replace("\n%s %d\n" % (cell, MID), "\n%s %d\n" % (cell, changes[cell]))
    write(path, text)
    return Rig("tortuga", folder=folder, adc=adc)


def _hello(rig):
    return only(rig.send("hello", {"host": "t", "proto": 1}), "hello")[0]


def _start(rig):
    # The cells a new game asks a turtle on.
    image = rig.ctl.session.game.image()
    return sorted([rig.board.cells[i] for i in range(len(image)) if image[i] == UP])


def _lit(rig, cell):
    return rig.hal.leds[rig.board.led_of[rig.board.cells.index(cell)]]


def test_a_wrong_empty_level_at_boot_is_measured_again_said_and_lit():
    first = Rig("tortuga")
    for off in (7000, -9000, 15000, -20000):
        rig = _booted(first.folder, {"d4": MID + off, "a1": MID - off})
        got = rig.frames()
        errors = only(got, "error")
        assert [e["code"] for e in errors] == ["sensor"], errors
        msg = errors[0]["msg"]
        assert "a1: saved empty level %d, it reads %d now" % (MID - off, MID) in msg, msg
        assert "d4: saved empty level %d" % (MID + off) in msg and "look at a1, d4" in msg, msg
        assert "\nd4 %d\n" % MID in read(first.folder + "/calibration.txt")  # the file corrected
        assert list(rig.sensing.image) == [EMPTY] * len(rig.board.cells)  # no phantom turtle
        hello = _hello(rig)
        assert hello["calibration"] == msg
        rig.run(50)
        assert _lit(rig, "d4") == RECALIBRATED and _lit(rig, "a1") == RECALIBRATED
        # A new game asks for every start cell, d4 too, and plays.
        got = rig.new()
        status = only(got + rig.run(100), "status")[-1]
        assert sorted(status["expect"]["on"]) == _start(rig) and status["expect"]["off"] == []
        assert _hello(rig)["calibration"] is None  # the new game's check found nothing more
        again = Rig("tortuga", folder=first.folder)
        assert only(again.frames(), "error") == [] and _hello(again)["calibration"] is None


def test_a_wrong_empty_level_under_a_turtle_at_boot_is_measured_again_before_a_new_game():
    # A turtle on d4 at boot hides it (the reading is off the others' too);
    # once d4 is empty, the next new game's check finds it.
    first = Rig("tortuga")
    d4 = first.board.sensor_of[first.board.cells.index("d4")]
    rig = _booted(first.folder, {"d4": MID + 7000}, {d4: MID + 7000 + 8000})  # a turtle on d4
    assert only(rig.frames(), "error") == [] and _hello(rig)["calibration"] is None
    rig.hal.adc[d4] = MID  # taken off: a phantom (its level is wrong) until...
    rig.run(100)
    assert rig.sensing.image[rig.board.cells.index("d4")] != EMPTY
    got = rig.send("new", {"game": "tortuga", "players": 2, "options": {}, "dice": "electronic"})
    errors = only(got, "error")
    assert len(errors) == 1 and "d4: saved empty level %d, it reads %d now" % (MID + 7000, MID) in errors[0]["msg"]
    assert rig.sensing.image[rig.board.cells.index("d4")] == EMPTY
    assert "d4: saved empty level" in _hello(rig)["calibration"]
    assert "\nd4 %d\n" % MID in read(first.folder + "/calibration.txt")
    status = only(got + rig.run(100), "status")[-1]
    assert sorted(status["expect"]["on"]) == _start(rig) and status["expect"]["off"] == []
    assert _lit(rig, "d4") == RECALIBRATED
    rig.show()
    rig.run(200)
    game = rig.ctl.session.game
    legal = game.legal_actions()
    rig.ctl.commit(legal[0], "host")  # the game's next action: the light goes
    rig.show()
    rig.run(200)
    assert _lit(rig, "d4") != RECALIBRATED and "d4" in _hello(rig)["calibration"]
