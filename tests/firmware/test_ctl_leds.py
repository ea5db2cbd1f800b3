# LED scenes: rendered only on change; the same input gives the same frame;
# nothing flickers while nothing changes.
import sys

from ctl_rig import Rig, only

from controller import scenes


def test_frames_are_written_only_when_something_changes():
    rig = Rig("tortuga")
    rig.new()
    rig.show()
    rig.run(200)
    writes = rig.hal.writes
    frame = list(rig.hal.leds)
    got = rig.run(5000)  # five seconds, a thousand cycles, nothing touched
    assert rig.hal.writes == writes
    assert rig.hal.leds == frame
    assert only(got, "leds") == [] and only(got, "status") == []


def test_a_waiting_board_does_not_flicker_either():
    rig = Rig("tortuga")
    rig.new()
    rig.run(200)  # the set-up is lit: nothing on the board yet
    writes = rig.hal.writes
    rig.run(3000)
    assert rig.hal.writes == writes
    rig.put("a1")
    rig.run(3000)
    assert rig.hal.writes == writes + 1  # one change, one frame


def test_same_scene_same_frame():
    board = Rig("tortuga").board
    a = scenes.Scene()
    a.leds = [(3, scenes.PUT), (5, scenes.TAKE)]
    a.seats = [(1, scenes.player_colour(1))]
    a.players = 2
    a.dice = 4
    a.status = "wait"
    b = scenes.Scene()
    b.leds = [(3, scenes.PUT), (5, scenes.TAKE)]
    b.seats = [(1, scenes.player_colour(1))]
    b.players = 2
    b.dice = 4
    b.status = "wait"
    assert a.key() == b.key()
    assert scenes.render(board, a, 255) == scenes.render(board, b, 255)
    frame = scenes.render(board, a, 255)
    assert len(frame) == board.led_count
    assert frame[3] == scenes.PUT and frame[5] == scenes.TAKE
    assert [frame[i] for i in board.groups["dice"]].count(scenes.DICE) == 4


def test_whose_turn_is_shown_in_the_players_colour():
    rig = Rig("tortuga")
    rig.new()
    rig.show()
    rig.run(200)
    turn = rig.board.groups["turn"]  # one LED per seat
    assert rig.hal.leds[turn[0]] == scenes.player_colour(0)
    assert rig.hal.leds[turn[1]] == (0, 0, 0)
    rig.take("c1")
    rig.put("c2")
    rig.run(200)
    assert rig.hal.leds[turn[0]] == (0, 0, 0)
    assert rig.hal.leds[turn[1]] == scenes.player_colour(1)


def test_game_over_scene():
    rig = Rig("tortuga")
    rig.new()
    game = rig.ctl.session.game
    from turtles.bots import random_action
    from turtles.rng import Rng

    rng = Rng(11)
    while not game.is_over():
        rig.send("enter", {"text": game.action_text(random_action(game, rng))}, run=5)
    rig.show()
    got = rig.run(200)
    assert only(got, "status")[-1]["text"] == "the game is over"
    winner = game.result()["winners"][0]
    assert rig.hal.leds[rig.board.groups["turn"][winner]] == scenes.player_colour(winner)
    assert rig.hal.leds[rig.board.groups["status"][0]] == scenes.STATUS["over"]
    got = rig.send("enter", {"text": "c1-c2"})
    assert only(got, "error")[0]["code"] == "over"


def test_led_spans_sent_to_the_host_add_up_to_the_frame():
    rig = Rig("tortuga")
    mirror = []

    def apply(frames):
        for p in only(frames, "leds"):
            start = p["from"]
            while len(mirror) < start + len(p["c"]):
                mirror.append("000000")
            mirror[start:start + len(p["c"])] = p["c"]

    def same():
        return mirror == scenes.hex_frame(rig.hal.leds)

    apply(rig.new())
    apply(rig.run(100))
    assert same()
    rig.show()
    apply(rig.run(100))
    assert same()
    rig.take("c1")
    got = rig.run(100)
    spans = only(got, "leds")
    assert spans and len(spans[0]["c"]) < rig.board.led_count  # only what changed
    apply(got)
    assert same()
    rig.put("c2")
    apply(rig.run(100))
    assert same()
    apply(rig.send("bright", {"level": 9}))
    assert same()


def test_a_dead_sensor_is_reported_once_and_shown_on_the_status_leds():
    rig = Rig("tortuga")
    rig.new()
    rig.show()
    rig.run(100)
    ch = rig.board.sensor_of[rig.board.cells.index("d4")]
    rig.hal.adc[ch] = 65535  # the sensor's output shorted to the supply
    got = rig.run(500)
    errors = only(got, "error")
    assert len(errors) == 1 and errors[0]["code"] == "sensor" and "d4" in errors[0]["msg"]
    assert rig.hal.leds[rig.board.groups["status"][0]] == scenes.STATUS["error"]
    assert only(rig.run(1000), "error") == []
    rig.hal.adc[ch] = 32790  # sane again (a live sensor's reading moves)
    rig.run(500)
    assert rig.hal.leds[rig.board.groups["status"][0]] == scenes.STATUS["idle"]


def test_a_quiet_cycle_allocates_nothing():
    # Nothing changed on the board, the serial port or the buttons: no
    # work, no garbage (on the Pico a collection costs ~0.5 ms + 0.13 ms
    # per KB of live objects).
    rig = Rig("tortuga")
    rig.new()
    rig.show()
    rig.run(300)  # set up, candidates built, status and LEDs sent
    assert rig.ctl.pos.done() and not rig.ctl.dirty
    if sys.implementation.name != "micropython":
        return  # CPython allocates for every int; the claim is about the device
    import gc

    ctl = rig.ctl
    hal = rig.hal
    clock = hal.clock
    gc.collect()
    gc.disable()
    try:
        before = gc.mem_alloc()
        for _ in range(50):
            ctl.step(clock)
            clock += 5
        after = gc.mem_alloc()
    finally:
        gc.enable()
    assert after == before, "a quiet cycle allocated %d bytes" % ((after - before) // 50)
    assert rig.frames() == []


def test_no_frame_draws_more_than_the_supply_gives():
    # The LEDs' power budget (docs/hardware.md, "Power"): at full brightness
    # every LED white would draw 40 x 60 mA = 2.4 A on the Tortuga board;
    # the controller dims such a frame as a whole, to LED_LIMIT_MA.
    def draws(frame):
        return sum(r + g + b for r, g, b in frame)

    assert scenes.MAX_SUM == scenes.LED_LIMIT_MA * 255 // scenes.MA_PER_CHANNEL
    full = [(255, 255, 255)] * 40
    assert draws(full) > scenes.MAX_SUM
    dimmed = scenes.capped(full)
    assert scenes.MAX_SUM - 120 <= draws(dimmed) <= scenes.MAX_SUM
    assert len(set(dimmed)) == 1  # dimmed alike: the colours stay
    small = [(255, 0, 0)] * 40
    assert scenes.capped(small) is small  # within the budget: as it is
    rig = Rig("tortuga")
    rig.new()
    rig.show()
    rig.send("bright", {"level": 255})
    seen = [list(rig.hal.leds)]
    rig.send("ledtest", run=10)
    for _ in range(40):  # red, green, blue, white at full brightness, then the scene
        seen.append(list(rig.hal.leds))
        rig.run(100)
    assert (255, 0, 0) in seen[1]  # red on every LED fits in the budget
    assert max(draws(f) for f in seen) <= scenes.MAX_SUM
    assert [f for f in seen if f and f[0][0] == f[0][1] == f[0][2] > 0]  # the white step, dimmed
