# The device end of the protocol: every bad input is answered with an
# `error` frame and changes nothing; the device never crashes.
from ctl_rig import Rig, actions, kinds, only

from controller.frames import MAX_LINE


def codes(frames):
    return [p["code"] for p in only(frames, "error")]


def test_hello_on_request_names_firmware_protocol_and_board():
    rig = Rig("tortuga")
    got = rig.send("hello", {"host": "test", "proto": 1})
    hello = only(got, "hello")[0]
    assert hello["proto"] == 1 and hello["fw"]
    assert hello["board"] == "test tortuga" and hello["board_version"] == 1
    assert hello["game"] is None and hello["n"] == 0
    assert only(got, "ok")


def test_garbage_lines_are_answered_and_skipped():
    rig = Rig("tortuga")
    got = rig.raw(b"hello there\n\x00\xff\xfe garbage\n\n")
    assert codes(got) == ["not-a-frame", "not-a-frame"]
    got = rig.raw(b"~TB 1 ping {} *0000\n")
    assert codes(got) == ["bad-frame"]
    got = rig.send("ping")
    assert kinds(got) == ["ok"]


def test_a_megabyte_line_is_dropped_whole_and_the_link_goes_on():
    rig = Rig("tortuga")
    rig.new()
    got = []
    piece = b"x" * 4096
    for _ in range(256):  # a megabyte, fed as it comes
        rig.hal.rx.extend(piece)
        while rig.hal.rx:
            got += rig.run(5)
    got += rig.raw(b"\n")
    assert codes(got) == ["too-long"]
    assert str(MAX_LINE) in only(got, "error")[0]["msg"]
    got = rig.send("ping")
    assert kinds(got) == ["ok"]
    assert rig.ctl.session.game is not None


def test_unknown_commands_and_bad_payloads():
    rig = Rig("tortuga")
    got = rig.send("fly", {})
    assert codes(got) == ["unknown-command"] and "ledtest" in only(got, "error")[0]["msg"]
    assert only(got, "error")[0]["re"] == rig.seq
    for payload in ({"level": 300}, {"level": True}, {"level": "9"}, {}):
        assert codes(rig.send("bright", payload)) == ["bad-payload"]
    assert codes(rig.send("diag", {"on": 1})) == ["bad-payload"]
    assert codes(rig.send("new", {"game": "chess", "players": 2})) == ["bad-payload"]
    assert codes(rig.send("new", {"game": "tortuga", "players": 2, "options": [1]})) == ["bad-payload"]
    assert codes(rig.send("new", {"game": "tortuga", "players": 2, "dice": "loaded"})) == ["bad-payload"]
    assert codes(rig.send("new", {"game": "tortuga", "players": 3})) == ["bad-setup"]
    assert codes(rig.send("new", {"game": "tortuga", "players": 2, "options": {"tattoo": 9}})) == ["bad-setup"]
    got = rig.send("new", {"game": "mahe", "players": 4})
    assert codes(got) == ["refused"] and "this board is for tortuga" in only(got, "error")[0]["msg"]
    assert rig.ctl.session.game is None


def test_a_read_only_flash_refuses_new_saying_what_to_do():
    # CircuitPython with `ok` held at power-on: the drive is the computer's
    # (boot.py) and every write to the flash fails with errno 30 (EROFS)
    rig = Rig("tortuga")

    def read_only(*args):
        raise OSError(30, "Read-only filesystem")

    rig.log.begin = read_only
    got = rig.send("new", {"game": "tortuga", "players": 2})
    assert codes(got) == ["log"] and rig.ctl.session.game is None
    msg = only(got, "error")[0]["msg"]
    assert "ok was held at power-on" in msg and "power the board off and on" in msg


def test_commands_for_a_game_that_is_not_running():
    rig = Rig("tortuga")
    for kind, payload in (("enter", {"text": "c1-c2"}), ("undo", {}), ("answer", {"id": 1, "choice": 0})):
        assert codes(rig.send(kind, payload)) == ["no-game"]
    got = rig.send("sync")
    assert only(got, "state")[0]["game"] is None and only(got, "synced")


def test_sync_without_a_game_sends_status_and_leds_again():
    # docs/protocol.md: after `synced` the status and the LEDs are sent
    # again, for a host that just connected; with no game running too.
    rig = Rig("tortuga")
    first = rig.run(200)
    assert only(first, "status") and only(first, "leds")
    assert rig.run(200) == []  # nothing changes, nothing is sent
    got = rig.send("sync", run=200)
    k = kinds(got)
    assert k.index("synced") < k.index("status") and "leds" in k, k
    assert only(got, "status")[0]["text"] == "no game: start one from the host"
    assert only(got, "leds")[0]["from"] == 0  # the whole frame again, from its first LED


def test_illegal_and_malformed_actions_are_never_committed():
    rig = Rig("tortuga")
    rig.new()
    for text in ("c1-c3", "zz", "", 5):
        got = rig.send("enter", {"text": text})
        assert len(codes(got)) == 1 and actions(got) == []
    assert codes(rig.send("enter", {"text": "c1-c3"})) == ["illegal"]
    assert codes(rig.send("enter", {"text": "q9-q8"})) == ["bad-notation"]
    assert rig.ctl.session.game.history == [] and rig.log.load()[1] == []
    got = rig.send("enter", {"text": "c1-c2"})
    assert actions(got) == ["c1-c2"] and only(got, "action")[0]["by"] == "host"


def test_every_tortuga_variant_starts():
    for options in ({}, {"tattoo": 1}, {"hatching": 1}):
        rig = Rig("tortuga")
        got = rig.send("new", {"game": "tortuga", "players": 2, "options": options})
        state = only(got, "state")[0]
        for k in options:
            assert state["options"][k] == options[k]
        assert state["options"]["hops"] == 1


def test_race_plays_with_real_cards_unless_the_host_asks_the_board_to_deal():
    rig = Rig("race")
    got = rig.send("new", {"game": "race", "players": 4, "options": {}})
    assert only(got, "state")[0]["options"]["mode"] == "physical"
    got = rig.send("new", {"game": "race", "players": 4, "options": {"mode": "dealt"}})
    assert only(got, "state")[0]["options"]["mode"] == "dealt"


def test_sync_sends_state_log_chunks_and_synced():
    rig = Rig("mahe")
    rig.new(players=4, dice="physical")
    game = rig.ctl.session.game
    from turtles.bots import random_action
    from turtles.rng import Rng

    rng = Rng(3)
    for _ in range(250):
        if game.is_over():
            break
        rig.send("enter", {"text": game.action_text(random_action(game, rng))}, run=5)
    got = rig.send("sync")
    k = kinds(got)
    assert k[0] == "state" and k.index("synced") < k.index("ok")
    if rig.ctl.prompt is not None:  # the open prompt again, for a host that just came
        assert only(got, "prompt")[-1]["id"] == rig.ctl.prompt.id
    texts = []
    for log in only(got, "log"):
        assert log["from"] == len(texts)
        texts += log["actions"]
    assert len(only(got, "log")) > 1
    assert texts == [game.action_text(a) for a in game.history]
    state = only(got, "state")[0]
    assert state["n"] == len(texts) and state["hash"] == only(got, "synced")[0]["hash"]


def test_undo_from_the_host_and_at_the_start():
    rig = Rig("tortuga")
    rig.new()
    rig.show()
    rig.run(100)
    assert codes(rig.send("undo")) == ["illegal"]
    rig.send("enter", {"text": "c1-c2"})
    got = rig.send("undo")
    assert only(got, "undone") == [{"n": 0, "hash": "%08x" % rig.ctl.session.game.state_hash()}]
    assert rig.log.load()[1] == []


def test_diagnostics_stream_sense_frames_rate_limited():
    rig = Rig("tortuga")
    rig.send("diag", {"on": True})
    got = rig.run(1000)
    sense = only(got, "sense")
    assert 3 <= len(sense) <= 5
    assert len(sense[0]["raw"]) == 37 and len(sense[0]["image"]) == 37
    rig.send("diag", {"on": False})
    assert only(rig.run(1000), "sense") == []


def test_brightness_scales_every_led():
    rig = Rig("tortuga")
    rig.new()
    rig.show()
    rig.run(100)
    full = list(rig.hal.leds)
    rig.send("bright", {"level": 51})
    dim = list(rig.hal.leds)
    assert dim == [(r * 51 // 255, g * 51 // 255, b * 51 // 255) for r, g, b in full]
    assert dim != full


def test_led_test_runs_then_the_scene_comes_back():
    rig = Rig("tortuga")
    rig.new()
    rig.show()
    rig.run(100)
    scene = list(rig.hal.leds)
    rig.send("ledtest", run=10)
    assert set(rig.hal.leds) == {(255, 0, 0)}
    rig.run(2000)
    assert rig.hal.leds == scene


def test_the_device_never_sends_ctrl_c_or_ctrl_d():
    rig = Rig("tortuga")
    rig.raw(b"\x03\x04~TB \x03 x\n")  # the fake HAL raises if 3 or 4 go out
    got = rig.send("enter", {"text": "\x03\x04"})
    assert len(codes(got)) == 1


def test_hostile_but_well_formed_frames():
    from controller.frames import crc16

    rig = Rig("tortuga")
    rig.new()
    deep = "~TB 9 ping " + "[" * 300 + "]" * 300
    line = "%s *%04x\n" % (deep, crc16(deep.encode()))
    got = rig.raw(line.encode())
    assert codes(got) == ["bad-frame"]
    got = rig.send("enter", {"text": "\u00e9" * 150})  # echoed, escaped: still one line
    assert codes(got) == ["bad-notation"]
    got = rig.send("new", {"game": ["tortuga"], "players": 2})
    assert codes(got) == ["bad-payload"]
    got = rig.send("answer", {"id": {"a": 1}, "choice": 0})
    assert codes(got) == ["no-prompt"]
    assert rig.ctl.session.game.history == []
    assert kinds(rig.send("ping")) == ["ok"]


def test_a_huge_sequence_number_never_freezes_the_device():
    # 960 nines with a good checksum on a command the device refuses: its
    # `error` echoes the number, which used to make an answer that never fit.
    from controller.frames import crc16

    rig = Rig("tortuga")
    rig.new()
    for seq, kind in (("9" * 960, "zz"), ("9" * 1005, "undo"), ("70000", "ping")):
        body = "~TB %s %s {}" % (seq, kind)
        got = rig.raw(("%s *%04x\n" % (body, crc16(body.encode()))).encode())
        assert codes(got) == ["bad-frame"], got
    assert rig.ctl.session.game.history == []
    assert kinds(rig.send("ping")) == ["ok"]


def test_every_error_answer_fits_a_frame():
    from controller.link import Link

    rig = Rig("tortuga")
    link = Link(rig.hal)
    for msg in ("x" * 5000, "\u00e9" * 3000, "\U0001f422" * 2000):
        link.error("bad-payload", msg, 65535)
    got = rig.frames()
    assert codes(got) == ["bad-payload"] * 3


def test_non_ascii_action_text_is_refused_before_the_engine_reads_it():
    # Each new character indexed out of a string stays interned on MicroPython:
    # unicode in `enter` texts used to fill the heap a frame at a time.
    rig = Rig("tortuga")
    rig.new()
    game = rig.ctl.session.game
    seen = []
    parse = game.parse_action

    def spy(text):
        seen.append(text)
        return parse(text)

    game.parse_action = spy
    for i in range(40):
        got = rig.send("enter", {"text": "d%d\u4e00%s" % (i % 7, chr(0x4e01 + i))}, run=5)
        assert codes(got) == ["bad-notation"]
    got = rig.send("enter", {"text": "d" * 200}, run=5)
    assert codes(got) == ["bad-notation"]
    assert seen == []
    assert game.history == []
    assert kinds(rig.send("ping")) == ["ok"]


def test_hand_written_frames_are_the_bytes_the_json_writer_makes():
    # `action`, `status` and `undone` are written without the general JSON writer (it
    # cost milliseconds of the committing cycle on a Pico): the same bytes.
    from controller.link import Link

    class Port:
        def __init__(self):
            self.data = b""

        def serial_write(self, data):
            self.data += data

    for text in ("d2-d3", "d2xd4", "+c1,e1", 'a"b\\c', "caf\u00e9\n"):
        for by in ("sensors", "buttons", "host", "dice", "computer"):
            hand, general = Port(), Port()
            Link(hand).send_action(12, text, "0123abcd", by)
            Link(general).send("action", {"n": 12, "text": text, "hash": "0123abcd", "by": by})
            assert hand.data == general.data
    for cells in (["a1", "b2", "c1", "d4"], ["a1", 'b"2', "c1", "d\\4", "\u00e9"]):
        for text, expect in (("player 2 to move", {}), ('say "hi"\\', {}),
                             ("put the turtle on a lit cell", {"dest": cells[:2]}),
                             ("that is no legal move", {"off": cells[2:3], "on": [], "flip": cells[3:]}),
                             ("which move?", {"choice": 'd2-d3 "or"'})):
            hand, general = Port(), Port()
            link = Link(hand)
            link.set_cells(cells)
            assert link.plain_cells == (cells[1] == "b2")
            link.send_status(text, expect)
            Link(general).send("status", {"text": text, "expect": expect})
            assert hand.data == general.data, (hand.data, general.data)
    hand, general = Port(), Port()
    Link(hand).send_undone(3, "89abcdef")
    Link(general).send("undone", {"n": 3, "hash": "89abcdef"})
    assert hand.data == general.data


def test_the_race_dealt_by_the_board_deals_colours_and_hands_itself():
    rig = Rig("race")
    rig.send("new", {"game": "race", "players": 3, "options": {"mode": "dealt"}, "seed": 5})
    rig.show()  # the start stack on the board as the game has it
    rig.run(300)
    game = rig.ctl.session.game
    assert game.dealt and game.to_move() >= 0, game.history  # every chance drawn by the board
    assert all(sum(game.hands[p]) == 5 for p in range(3))
    assert all(c >= 0 for c in game.colour_of)
    # a card entered by the host is played; the board then lights the move to make
    card = game.legal_texts()[0]
    got = rig.send("enter", {"text": card})
    assert [f for f in only(got, "action") if f["text"] == card]
