# The self-test protocol (controller/selftest.py): raw readings of every
# channel, one LED at a time, the game standing still, and the board given
# back as it was when the host says so or goes away.
from ctl_rig import FIELD, Rig, actions, kinds, only

from controller.selftest import SPARE, TIMEOUT_MS
from controller.sensing import MID


def codes(frames):
    return [p["code"] for p in only(frames, "error")]


def playing(game, players=2):
    # A rig with a game set up on the board, its LEDs settled.
    rig = Rig(game)
    rig.new(players=players)
    rig.show()
    rig.run(300)
    return rig


def test_channels_are_read_raw_including_the_ones_no_cell_uses():
    rig = Rig("race")
    rig.hal.adc[12] = MID + 1234  # a sensor wired to an input the board file does not use
    rig.hal.held.append("ok")
    got = rig.send("selftest", {"on": True, "read": 4})
    ch = only(got, "channels")[0]
    assert len(ch["raw"]) == 16 and ch["raw"][12] == MID + 1234 and ch["raw"][0] == MID
    assert ch["held"] == ["ok"]
    assert kinds(got)[-1] == "ok"


def test_one_led_at_a_time_then_the_scene_again():
    rig = playing("tortuga")
    before = list(rig.hal.leds)
    rig.send("selftest", {"on": True, "led": 7, "colour": "ffffff"})
    lit = [i for i, c in enumerate(rig.hal.leds) if c != (0, 0, 0)]
    assert lit == [7] and rig.hal.leds[7] == (255, 255, 255)
    rig.send("selftest", {"led": 3, "colour": "00ff00"})
    assert [i for i, c in enumerate(rig.hal.leds) if c != (0, 0, 0)] == [3]
    rig.send("selftest", {"led": len(before) + SPARE - 1})  # past the chain: an LED too many?
    assert [i for i, c in enumerate(rig.hal.leds) if c != (0, 0, 0)] == [len(before) + SPARE - 1]
    rig.send("selftest", {"led": -1})
    assert rig.hal.leds == [(0, 0, 0)] * (len(before) + SPARE)
    rig.send("selftest", {"on": False}, run=200)
    assert rig.hal.leds == before


def test_the_game_stands_still_while_turtles_are_put_down_for_the_test():
    rig = playing("race")
    hash_before = rig.ctl.session.hash()
    n = len(rig.ctl.session.game.history)
    rig.send("selftest", {"on": True})
    got = []
    for cell in ("1", "2", "lettuce"):  # the maker tests cells one by one
        rig.put(cell)
        got += rig.run(400)
        rig.take(cell)
        got += rig.run(400)
    assert actions(got) == [] and only(got, "prompt") == [] and only(got, "status") == []
    for kind, payload in (("undo", {}), ("enter", {"text": "stack red"}),
                          ("new", {"game": "race", "players": 3})):
        assert codes(rig.send(kind, payload)) == ["selftest"]  # nor from the host
    got = rig.send("selftest", {"on": False}, run=300)
    assert len(rig.ctl.session.game.history) == n and rig.ctl.session.hash() == hash_before
    assert rig.ctl.session.game.players == 2
    assert only(got, "leds")  # the scene goes out again


def test_the_board_comes_back_by_itself_when_the_host_goes_away():
    rig = playing("race")
    before = list(rig.hal.leds)
    rig.send("selftest", {"on": True, "led": 0})
    rig.run(TIMEOUT_MS - 200)
    assert rig.ctl.selftest is not None
    rig.run(400)
    assert rig.ctl.selftest is None and rig.hal.leds == before


def test_a_put_down_turtle_reads_in_the_channels():
    rig = Rig("race")
    rig.send("selftest", {"on": True})
    rig.put("3")
    got = rig.send("selftest", {"read": 2})
    assert only(got, "channels")[0]["raw"][3] == MID + FIELD


def test_bad_selftest_payloads_change_nothing():
    rig = Rig("race")
    assert codes(rig.send("selftest", {"read": 1})) == ["bad-payload"]  # not started
    assert rig.ctl.selftest is None
    assert codes(rig.send("selftest", {"on": 1})) == ["bad-payload"]
    rig.send("selftest", {"on": True})
    for payload in ({"led": 999}, {"led": True}, {"led": -2}, {"led": 1, "colour": "red"},
                    {"led": 1, "colour": "gg0000"}, {"read": 0}, {"read": 17}, {"read": "2"}):
        assert codes(rig.send("selftest", payload)) == ["bad-payload"], payload
    assert rig.ctl.selftest is not None
    assert codes(rig.send("selftest", {"on": False})) == [] and rig.ctl.selftest is None
    assert kinds(rig.send("selftest", {"on": False})) == ["ok"]  # twice is harmless
