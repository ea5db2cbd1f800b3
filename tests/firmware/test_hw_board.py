# Board files: the reference boards load; every kind of mistake is named with
# its JSON path. Plain test functions (CPython via pytest, MicroPython via mprun).
import json

from hwtools import BOARDS, board, read

from controller.board import BoardError, check_board, load_board
from turtles import game_class, new_game
from turtles.jsontext import dumps, quote


def _obj(name="mahe"):
    return json.loads(read(BOARDS + name + ".json"))


def _problems(obj):
    return check_board(obj)


def _paths(obj):
    return [path for path, _ in check_board(obj)]


def _has(obj, path, words):
    for p, message in check_board(obj):
        if p == path and words in message:
            return message
    raise AssertionError("no problem %r at %s in %r" % (words, path, check_board(obj)))


def test_reference_boards_load():
    for name, cells, muxes in (("mahe", 23, 2), ("race", 10, 1), ("tortuga", 37, 3)):
        b = board(name)
        cls = game_class(b.games[0])
        assert b.cells == cls(cls.min_players, None, b.geometry).cells()
        assert len(b.cells) == cells and len(b.mux["adc"]) == muxes
        assert len(b.sensor_of) == cells and len(b.led_of) == cells
        assert "turn" in b.groups and "status" in b.groups
        assert [n for n, _ in b.buttons] == ["next", "ok", "undo"]
        assert b.channels() == 16 * muxes
        assert b.sensing["stable_ms"] == 15


def test_geometry_is_the_engines_default():
    for name in ("mahe", "race", "tortuga"):
        b = board(name)
        cls = game_class(b.games[0])
        assert json.loads(json.dumps(cls.default_geometry())) == b.geometry, name


def test_cell_without_a_sensor():
    o = _obj()
    del o["cells"]["14"]["sensor"]
    assert _paths(o) == ["$.cells.14"]
    _has(o, "$.cells.14", "missing key 'sensor'")


def test_typo_is_named_with_a_suggestion():
    o = _obj()
    o["cells"]["14"]["sensr"] = o["cells"]["14"].pop("sensor")
    msg = _has(o, "$.cells.14.sensr", "unknown key")
    assert "did you mean 'sensor'?" in msg
    o = _obj()
    o["sensng"] = o.pop("sensing")
    assert "did you mean 'sensing'?" in _has(o, "$.sensng", "unknown key")
    _has(o, "$", "missing key 'sensing'")
    o = _obj()
    o["leds"]["groups"]["turn"] = o["leds"]["groups"].pop("turn")
    o["buttons"] = {"nxt": 6, "ok": 7}
    _has(o, "$.buttons", "no 'next' button")


def test_two_cells_on_one_channel():
    o = _obj()
    o["cells"]["7"]["sensor"] = 3
    msg = _has(o, "$.cells.7.sensor", "channel 3 is also the sensor of $.cells.3")
    assert "own sensor" in msg
    assert len(check_board(o)) == 1


def test_channel_beyond_the_multiplexers():
    o = _obj("race")  # one multiplexer: channels 0..15
    o["cells"]["lettuce"]["sensor"] = 16
    _has(o, "$.cells.lettuce.sensor", "channels 0..15")


def test_led_index_out_of_range_and_shared():
    o = _obj()
    o["cells"]["nest"]["led"] = 37
    _has(o, "$.cells.nest.led", "out of range: the chain has 37 LEDs (0..36)")
    o = _obj()
    o["cells"]["nest"]["led"] = 5
    _has(o, "$.cells.nest.led", "LED 5 is also the LED of $.cells.5")
    o = _obj()
    o["cells"]["nest"]["led"] = 36
    _has(o, "$.cells.nest.led", "LED 36 is also in $.leds.groups.status.0")
    o = _obj()
    o["leds"]["groups"]["dice"][2] = 99
    _has(o, "$.leds.groups.dice.2", "out of range")


def test_pin_used_twice_and_bad_pins():
    o = _obj()
    o["buttons"]["undo"] = 22
    _has(o, "$.buttons.undo", "GPIO 22 is already used by $.leds.pin")
    o = _obj()
    o["mux"]["select"][3] = 2
    _has(o, "$.mux.select.3", "GPIO 2 is already used by $.mux.select.0")
    o = _obj()
    o["mux"]["adc"][1] = 21
    _has(o, "$.mux.adc.1", "GPIO 21 has no ADC")
    o = _obj()
    o["leds"]["pin"] = 25
    _has(o, "$.leds.pin", "not on the Pico's header")
    o = _obj()
    o["mux"]["select"] = [2, 3, 4]
    _has(o, "$.mux.select", "4 GPIOs")


def test_wrong_types():
    o = _obj()
    o["version"] = "1"
    o["cells"]["3"]["led"] = 3.0
    o["sensing"]["stable_ms"] = True
    o["leds"]["count"] = None
    o["games"] = "mahe"
    paths = _paths(o)
    for path in ("$.version", "$.cells.3.led", "$.sensing.stable_ms", "$.leds.count", "$.games"):
        assert path in paths, (path, paths)
    _has(o, "$.sensing.stable_ms", "whole number, not true/false")
    _has(o, "$.version", "whole number, not text '1'")
    assert _problems([1, 2]) == [("$", "a board file is a JSON object {...}, not a list")]
    _has({"cells": 5}, "$.cells", "must be an object")


def test_cells_that_are_not_the_games_cells():
    o = _obj()
    o["cells"]["neest"] = o["cells"].pop("nest")
    msg = _has(o, "$.cells.neest", "not a cell of this game")
    assert "did you mean 'nest'?" in msg
    _has(o, "$.cells", "missing cell(s): nest")
    o = _obj("race")
    o["games"] = ["mahe"]
    o["geometry"] = {"fields": 21, "beach": 21}
    _has(o, "$.cells", "missing cell(s): raft, 9, 10")
    _has(o, "$.cells.start", "not a cell")


def test_unknown_game_and_bad_geometry():
    o = _obj()
    o["games"] = ["mahé", "mahe", "mahe"]
    _has(o, "$.games.0", "is not a game")
    _has(o, "$.games.2", "listed twice")
    o = _obj("race")
    o["geometry"] = {"fields": 99}
    _has(o, "$.geometry", "the race rules reject this geometry")


def test_sensing_values_must_make_sense():
    o = _obj()
    o["sensing"]["hysteresis"] = 6000
    _has(o, "$.sensing.hysteresis", "below the threshold")
    o = _obj()
    o["sensing"]["zero_band"] = 4000
    _has(o, "$.sensing.zero_band", "below threshold - hysteresis (4000)")
    o = _obj()
    o["sensing"]["threshold"] = 70000
    _has(o, "$.sensing.threshold", "out of range 500..30000")


def test_every_mistake_is_reported_at_once():
    o = _obj("tortuga")
    o["cells"]["a1"]["sensor"] = 99
    o["cells"]["g4"]["led"] = -1
    o["buttons"]["ok"] = 6
    o["name"] = ""
    o["extra"] = 1
    assert len(check_board(o)) == 5, check_board(o)


def test_load_board_raises_with_all_problems():
    try:
        load_board("{not json")
        raise AssertionError("bad JSON must fail")
    except BoardError as e:
        assert e.problems[0][0] == "$" and "not valid JSON" in e.problems[0][1]
    o = _obj()
    o["cells"]["1"]["led"] = 500
    o["cells"]["2"]["sensor"] = 1
    try:
        load_board(json.dumps(o))
        raise AssertionError("a bad board must fail")
    except BoardError as e:
        assert [p for p, _ in e.problems] == ["$.cells.1.led", "$.cells.2.sensor"]
        assert "and 1 more" in str(e)


def test_a_device_keeps_the_built_board_not_the_files_geometry():
    # controller.boot.main: board.keep_small(). Tortuga games then share the
    # built board (its tables), and the parsed geometry is let go; the
    # games are the very same.
    from turtles import hexboard
    from turtles.hexboard import HexBoard

    for name in ("tortuga", "mahe", "race"):
        b = load_board(read(BOARDS + name + ".json"))
        desc = b.geometry
        b.keep_small()
        cls = game_class(b.games[0])
        if name == "tortuga":
            assert isinstance(b.geometry, HexBoard)
            assert hexboard._last is None or hexboard._last[0] is not desc
        else:
            assert b.geometry is desc
        for options in ({}, {"hatching": 1}, {"tattoo": 2}) if name == "tortuga" else ({},):
            kept = new_game(name, cls.min_players, options, b.geometry)
            plain = new_game(name, cls.min_players, options, desc)
            for _ in range(30):
                if kept.is_over() or kept.to_move() < 0:
                    break
                assert kept.legal_actions() == plain.legal_actions()
                assert kept.state_hash() == plain.state_hash()
                a = kept.legal_actions()[len(kept.legal_actions()) // 2]
                kept.push(a)
                plain.push(a)
            assert kept.copy().state_hash() == plain.state_hash()


def _renamed(o, old, new):
    # The Tortuga geometry with cell `old` called `new` everywhere, and its board file's cell.
    text = json.dumps(o).replace('"%s"' % old, json.dumps(new))
    return json.loads(text)


def test_names_are_bounded_so_that_every_frame_fits_a_line():
    # The board's name goes in `hello`; cell names in status frames and
    # action texts. Counted as JSON counts them, the same on CPython and
    # MicroPython whether the file writes an emoji as itself or escaped.
    o = _obj()
    for name, good in (("x" * 32, True), ("x" * 33, False), ("Ж" * 32, True), ("Ж" * 100, False),
                       ("\U0001f422" * 16, True), ("\U0001f422" * 17, False), ("x" * 1000, False)):
        o["name"] = "@"
        escaped = dumps(o).replace('"@"', quote(name))  # "\ud83d\udc22"
        for text in (escaped, escaped.replace(quote(name), '"%s"' % name)):  # and as itself
            got = [p for p in load_problems(text) if p[0] == "$.name"]
            assert (got == []) == good, (name[:3], len(name), got)
            if not good:
                assert "give the board a name of at most 32" in got[0][1], got
    o = _obj("tortuga")
    for cell, good in (("a1" + "x" * 10, True), ("a1" + "x" * 11, False)):
        got = [p for p in check_board(_renamed(o, "a1", cell)) if p[0] == "$.geometry"]
        assert (got == []) == good, (cell, got)
        if not good:
            assert "cell names must be text of 1 to 12 characters" in got[0][1], got


def load_problems(text):
    try:
        load_board(text)
    except BoardError as e:
        return e.problems
    return []
