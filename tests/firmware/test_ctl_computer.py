# The computer's seats and hints on the board: the computer thinks a slice
# a control cycle, its move is lit and a person makes it on the board, the
# sensors confirm it; NEXT with no question open (or the host's `hint`)
# lights the `good` level's move for a person to move.
from ctl_rig import Rig, only

from controller.scenes import PREVIEW
from turtles import TERMINAL


def _new(rig, seats, players=2, options=None, dice="electronic", seed=5):
    payload = {"game": rig.board.games[0], "players": players, "options": options or {},
               "dice": dice, "seats": seats, "seed": seed}
    return rig.send("new", payload)


def _follow(rig, limit=400):
    # Make every move the board lights (the person's hands), answer nothing.
    ctl = rig.ctl
    cycles = 0
    while not ctl.session.game.is_over() and cycles < limit:
        cycles += 1
        if list(ctl.board_image()) != list(ctl.session.game.image()):
            rig.show()
        rig.run(40)
    return cycles


def test_the_computer_plays_both_seats_and_people_make_its_moves():
    rig = Rig("tortuga")
    got = _new(rig, ["good", "easy"])
    assert only(got, "state")[0]["seats"] == ["good", "easy"]
    _follow(rig)
    g = rig.ctl.session.game
    assert g.to_move() == TERMINAL
    bys = [p["by"] for p in only(rig.got, "action")]
    assert set(bys) == {"computer"} and len(bys) == len(g.history)
    assert only(rig.got, "error") == []
    assert rig.log.load()[1] == [g.action_text(a) for a in g.history]


def test_a_computer_move_is_lit_until_the_person_makes_it():
    rig = Rig("tortuga")
    _new(rig, ["person", "good"])
    ctl = rig.ctl
    g = ctl.session.game
    before = g.image()
    g.apply_text("d2-d3")
    after = g.image()
    g.undo()
    rig.show(after)
    rig.run(100)
    assert [p["text"] for p in only(rig.got, "action")] == ["d2-d3"]
    # the computer thinks over several cycles: the board is read meanwhile
    cycles = 0
    while len(only(rig.got, "action")) < 2:
        rig.run(5)
        cycles += 1
        assert cycles < 400
    assert cycles > 2
    last = only(rig.got, "action")[-1]
    assert last["by"] == "computer"
    rig.run(50)
    status = only(rig.got, "status")[-1]
    assert status["text"] == "the computer plays %s: make its move as lit" % last["text"]
    assert status["expect"]["on"] and status["expect"]["off"]
    rig.show()  # the person makes it
    rig.run(100)
    assert only(rig.got, "status")[-1]["text"] == "player 1 to move (the computer played %s)" % (
        last["text"])
    assert before != g.image()


def test_hints_from_the_host_and_from_next():
    rig = Rig("tortuga")
    _new(rig, ["person", "person"])
    got = rig.send("hint", {}, run=10)  # thought through once the board is set out
    assert only(got, "ok")
    rig.run(100)
    assert only(rig.got, "hint") == []
    rig.show()
    assert only(got, "ok")
    rig.run(300)
    hint = only(rig.got, "hint")[-1]
    g = rig.ctl.session.game
    assert hint["by"] == "host" and hint["level"] == "good" and hint["player"] == 0
    assert g.parse_action(hint["text"]) in g.legal_actions()
    status = only(rig.got, "status")[-1]
    assert status["text"] == "hint for player 1: %s" % hint["text"]
    assert PREVIEW in rig.hal.leds
    rig.show()
    rig.press("next")
    rig.run(300)
    assert only(rig.got, "hint")[-1]["by"] == "buttons"
    # the person moves otherwise: the hint goes out
    g.apply_text("a1-a2")
    after = g.image()
    g.undo()
    rig.show(after)
    rig.run(100)
    assert only(rig.got, "status")[-1]["text"] == "player 2 to move"
    assert only(rig.got, "error") == []


def test_a_hint_asked_by_a_player_whose_turn_passes_says_so():
    # (found by the simulated table, seed 3: in the Race dealt by the board
    # a hint asked from player 3's phone was thought through after player 3
    # had moved, for player 4, and went to player 4's phone only: player 3's
    # page got no answer at all)
    rig = Rig("tortuga")
    _new(rig, ["person", "person"])
    rig.show()
    rig.run(100)
    got = rig.send("hint", {}, run=0)
    seq = rig.seq
    got = rig.send("enter", {"text": "a1-a2"}, run=300)
    assert only(got, "hint") == []
    err = [e for e in only(got, "error") if e.get("re") == seq]
    assert err and err[0]["code"] == "refused" and "the turn passed to player 2" in err[0]["msg"]


def test_mahe_decisions_of_the_computer_need_no_prompt():
    rig = Rig("mahe")
    _new(rig, ["good", "person", "person", "person"], players=4)
    rig.show()
    for _ in range(30):
        if len(only(rig.got, "action")) > 6:
            break
        rig.run(40)
        if list(rig.ctl.board_image()) != list(rig.ctl.session.game.image()):
            rig.show()
    done = only(rig.got, "action")
    assert [p["by"] for p in done if p["text"] in ("roll", "stop")][:1] == ["computer"]
    assert only(rig.got, "prompt") == [] or rig.ctl.session.game.to_move() != 0


def test_bad_seats_are_refused_with_what_to_do():
    rig = Rig("tortuga")
    got = _new(rig, ["person"])
    err = only(got, "error")[0]
    assert err["code"] == "bad-setup" and "2 entries" in err["msg"]
    got = _new(rig, ["person", "best"])
    err = only(got, "error")[0]
    assert "host" in err["msg"] and "random, easy, good" in err["msg"]
    race = Rig("race")
    err = only(_new(race, ["person", "good"]), "error")[0]
    assert "every seat is a person" in err["msg"]
    got = rig.send("hint", {})
    assert only(got, "error")[0]["code"] == "no-game"
    _new(race, ["person", "person"])
    err = only(race.send("hint", {}), "error")[0]
    assert err["code"] == "refused" and "real cards" in err["msg"]
    race.show()
    # no hint there: NEXT says why, as `hint` does (found by the simulated
    # table, seed 102: NEXT had no effect and no reason), and nothing breaks
    got = race.press("next")
    race.run(200)
    assert only(race.got, "hint") == []
    err = only(got, "error")
    assert [e["code"] for e in err] == ["refused"] and "real cards" in err[0]["msg"]
    assert [e for e in only(race.got, "error") if e["code"] == "internal"] == []


def test_seats_come_back_after_a_power_cut():
    rig = Rig("tortuga")
    _new(rig, ["person", "easy"])
    again = Rig("tortuga", folder=rig.folder)
    assert again.ctl.restore()
    assert again.ctl.computer.seats == ["person", "easy"]


def test_a_host_seat_waits_for_the_host():
    rig = Rig("tortuga")
    _new(rig, ["host", "person"])
    rig.show()
    rig.run(300)
    assert only(rig.got, "action") == []
    assert only(rig.got, "status")[-1]["text"] == "player 1: the computer on the host is thinking"
    rig.send("enter", {"text": "d2-d3"})
    assert only(rig.got, "action")[-1]["by"] == "host"


def test_tattoo_set_up_by_the_computer_is_said_in_words():
    rig = Rig("tortuga")
    _new(rig, ["person", "easy"], options={"tattoo": 1})
    g = rig.ctl.session.game
    rig.show()
    rig.run(50)
    g0 = [a for a in g.legal_actions()][0]
    rig.send("enter", {"text": g.action_text(g0)})  # the person's tattoo, from the host
    for _ in range(20):
        rig.run(20)
        if len(only(rig.got, "action")) >= 2:
            break
    last = only(rig.got, "action")[-1]
    assert last["by"] == "computer" and "@" in last["text"]
    rig.run(50)
    assert "(the computer played %s)" % last["text"] in only(rig.got, "status")[-1]["text"]



def test_after_a_takeback_the_computer_waits_for_ok():
    rig = Rig("tortuga")
    _new(rig, ["easy", "person"])
    for _ in range(40):
        if list(rig.ctl.board_image()) != list(rig.ctl.session.game.image()):
            rig.show()
        rig.run(20)
        if only(rig.got, "action") and rig.ctl.must_match is None:
            break
    assert only(rig.got, "action")[-1]["by"] == "computer"
    g = rig.ctl.session.game
    last = g.undo()
    before = g.image()
    g.push(last)
    rig.show(before)  # the person puts the computer's turtle back
    rig.run(100)
    rig.send("undo", {})  # and the host takes its move back
    rig.run(300)
    assert len(only(rig.got, "action")) == 1  # no new move yet
    assert only(rig.got, "status")[-1]["text"] == (
        "player 1: the computer waits after the takeback; OK lets it play")
    rig.press("ok")
    rig.run(300)
    assert len(only(rig.got, "action")) == 2 and only(rig.got, "action")[-1]["by"] == "computer"


def test_a_cycle_thinks_one_slice_of_a_few_nodes():
    # The search never holds a cycle longer than one slice (SLICE_NODES
    # nodes, ~10 ms on a Pico: docs/bots.md): the board senses in between.
    from turtles.slices import SLICE_NODES

    rig = Rig("tortuga")
    _new(rig, ["good", "person"])
    rig.show()
    ctl = rig.ctl
    most = 0
    slices = 0
    cycles = 0
    while not only(rig.got, "action"):
        t = ctl.computer.think
        before = t.nodes if t is not None else 0
        rig.run(5)  # one cycle
        if t is not None and t.nodes > before:
            most = max(most, t.nodes - before)
            slices += 1
        cycles += 1
        assert cycles < 400
    assert only(rig.got, "action")[-1]["by"] == "computer"
    assert 0 < most <= SLICE_NODES
    assert slices >= 140 // SLICE_NODES  # the good level searches ~150 nodes


def test_the_board_senses_and_blinks_while_the_computer_thinks():
    # While the computer thinks, its seat's turn light blinks, and a turtle
    # lifted from the board is seen within a few cycles; the computer then
    # plays what it would have played on a board left alone.
    import turtles.slices as slices
    from controller.scenes import OFF, player_colour
    from turtles.bots import choose
    from turtles.rng import Rng

    kept = slices.SLICE_NODES
    slices.SLICE_NODES = 1  # a long think on the rig's clock: a node a cycle
    try:
        rig = Rig("tortuga")
        _new(rig, ["good", "person"])
        ctl = rig.ctl
        g = ctl.session.game
        alone = choose(g, "good", Rng(7 + 1))  # the computer's Rng: the rig's seed + 1
        rig.show()
        turn = ctl.board.groups["turn"][0]
        lights = []
        cycles = 0
        while len(lights) < 120:  # 600 ms of the rig's clock
            rig.run(5)
            if ctl.computer.think is not None:
                lights.append(rig.hal.leds[turn])
            cycles += 1
            assert cycles < 200
        assert only(rig.got, "action") == []
        thinking = "player 1: the computer (good) is thinking"
        assert only(rig.got, "status")[-1]["text"] == thinking
        assert player_colour(0) in lights and OFF in lights  # it blinks
        assert lights[0] == player_colour(0) and lights.index(OFF) >= 60  # every 400 ms
        cell = [i for i, s in enumerate(g.image()) if s][0]
        rig.take(g.cells()[cell])
        seen = None
        for k in range(20):
            rig.run(5)
            if only(rig.got, "status")[-1]["text"] != thinking:
                seen = k
                break
        assert seen is not None and seen <= 12, seen  # stable_ms is 30 ms: 6 cycles
        assert ctl.board_image()[cell] == 0
        assert ctl.computer.think is not None and only(rig.got, "action") == []  # still thinking
        rig.show()  # the turtle back
        cycles = 0
        while not only(rig.got, "action"):
            rig.run(5)
            cycles += 1
            assert cycles < 400
        assert only(rig.got, "action")[-1]["text"] == g.action_text(alone)
        rig.run(50)
        assert ctl.computer.lit  # the light is back on once it has played; the person's turn:
        assert rig.hal.leds[ctl.board.groups["turn"][1]] == player_colour(1)
    finally:
        slices.SLICE_NODES = kept


def test_an_undo_and_a_move_in_one_cycle_make_the_computer_think_afresh():
    # The same number of actions, another position: the search under way
    # is dropped (it tries actions of the position it was made for).
    from controller.frames import encode
    from turtles.bots import choose
    from turtles.rng import Rng

    rig = Rig("tortuga")
    _new(rig, ["person", "person"])
    ctl = rig.ctl
    g = ctl.session.game
    rig.show()
    rig.send("enter", {"text": "d2-d3"})
    rig.show()
    rig.run(100)
    rig.send("hint", {}, run=5)
    rig.run(15)
    stale = ctl.computer.think
    assert stale is not None and only(rig.got, "hint") == []
    for kind, payload in (("undo", {}), ("enter", {"text": "a1-a2"})):  # one batch
        rig.seq += 1
        rig.hal.rx.extend(encode(rig.seq, kind, payload).encode() + b"\n")
    rig.run(5)
    assert [a["text"] for a in only(rig.got, "action")] == ["d2-d3", "a1-a2"]
    rig.show()
    nodes = stale.nodes
    cycles = 0
    while not only(rig.got, "hint"):
        rig.run(5)
        assert stale.nodes == nodes  # never stepped again
        cycles += 1
        assert cycles < 400
    assert only(rig.got, "hint")[-1]["text"] == g.action_text(choose(g, "good", Rng(7 + 1)))


def test_the_levels_the_board_plays_are_the_bots_levels_up_to_its_own():
    # controller/computer.py names them without importing turtles.bots
    from controller.computer import DEVICE_LEVELS
    from turtles.bots import DEVICE_LEVEL, LEVELS

    assert DEVICE_LEVELS == LEVELS[:LEVELS.index(DEVICE_LEVEL) + 1]


def _at_a_mahe_decision():
    # A Mahé game of four people at its first decision (roll or stop), a
    # question open: (the rig, the question's `prompt` frame).
    rig = Rig("mahe")
    _new(rig, ["person"] * 4, players=4)
    rig.show()
    rig.run(200)
    p = only(rig.got, "prompt")[-1]
    assert p["kind"] == "decide" and rig.ctl.prompt is not None
    return rig, p

def test_a_mahe_hint_comes_while_the_question_is_open():
    # Every Mahé decision is a question (roll or stop): a hint asked then
    # comes, and the question shows the hint as its current choice.
    rig, p = _at_a_mahe_decision()
    got = rig.send("hint", {})
    assert only(got, "ok")
    for _ in range(60):
        if only(rig.got, "hint"):
            break
        rig.run(40)
    hint = only(rig.got, "hint")[-1]
    assert hint["by"] == "host" and hint["player"] == 0
    assert hint["text"] in p["choices"]
    again = only(rig.got, "prompt")[-1]  # the question again, the hint its current choice
    assert again["id"] == p["id"] and again["choices"][again["current"]] == hint["text"]
    rig.run(100)
    assert only(rig.got, "status")[-1]["expect"]["choice"] == hint["text"]
    rig.press("next")
    rig.run(50)
    rig.send("hint", {}, run=0)  # NEXT then a hint again: the same choice comes back
    for _ in range(60):
        if len(only(rig.got, "hint")) > 1:
            break
        rig.run(40)
    assert only(rig.got, "prompt")[-1]["choices"][only(rig.got, "prompt")[-1]["current"]] == hint["text"]
    rig.press("ok")  # OK takes the hint
    rig.run(100)
    taken = [a for a in only(rig.got, "action") if a["by"] == "buttons"]
    assert [a["text"] for a in taken] == [hint["text"]]
    assert only(rig.got, "error") == []



def test_a_hint_that_comes_after_the_person_chose_with_next_leaves_their_choice():
    # A hint asked, then NEXT pressed on the question before it came: the
    # hint is said, but the choice the person made stays, and OK takes it
    # (moving it back would have OK confirm what the person did not choose;
    # seed 503 of the simulated table).
    rig, p = _at_a_mahe_decision()
    comp = rig.ctl.computer
    thinks = comp.tick
    comp.tick = lambda ctl: None  # the hint still being thought about
    assert only(rig.send("hint", {}), "ok")
    rig.press("next")
    rig.press("next")  # round to the first choice again (the hint, on this seed, is the other)
    chosen = only(rig.got, "prompt")[-1]
    assert chosen["id"] == p["id"] and chosen["current"] == (p["current"] + 2) % len(p["choices"])
    comp.tick = thinks
    assert _until(rig, lambda: only(rig.got, "hint"), 4000)
    hint = only(rig.got, "hint")[-1]
    mine = chosen["choices"][chosen["current"]]
    assert hint["text"] != mine  # (else this test could not fail)
    rig.run(100)
    assert only(rig.got, "prompt")[-1]["current"] == chosen["current"]
    assert only(rig.got, "status")[-1]["expect"]["choice"] == mine
    rig.press("ok")
    rig.run(100)
    taken = [a["text"] for a in only(rig.got, "action") if a["by"] == "buttons"]
    assert taken == [mine]
    assert only(rig.got, "error") == []


def _until(rig, done, ms=2000):
    # Run the board until done() or `ms` of its time have passed.
    end = rig.hal.clock + ms
    while not done() and rig.hal.clock < end:
        rig.run(20)
    return done()


def test_a_hint_comes_while_the_board_waits_for_the_turtles_to_be_moved():
    # Mahé with real dice: after `stop` the engine has moved the turtle and
    # the board waits for a person to move it; a hint for the next
    # decision (which turtle first) still comes, and is the question's
    # choice once the board matches.
    rig = Rig("mahe")
    _new(rig, None, players=2, dice="physical")
    rig.show()
    for text in ("e3", "first-1a", "d3", "stop", "d2", "stop"):
        got = rig.send("enter", {"text": text})
        assert only(got, "error") == [], (text, got)
    assert rig.ctl.must_match is not None  # the turtles are not moved yet
    got = rig.send("hint", {}, run=0)
    assert _until(rig, lambda: only(rig.got, "hint") or only(rig.got, "error"))
    assert only(rig.got, "error") == []
    hint = only(rig.got, "hint")[-1]
    assert hint["player"] == 1 and hint["n"] == 6 and hint["text"] in ("first-2a", "first-2b")
    assert "put the pieces where the lights show" in only(rig.got, "status")[-1]["text"]
    rig.show()  # the turtles moved: the question opens with the hint chosen
    assert _until(rig, lambda: rig.ctl.prompt is not None)
    p = only(rig.got, "prompt")[-1]
    assert p["choices"][p["current"]] == hint["text"]


def test_a_hint_comes_while_the_computers_move_waits_to_be_made():
    rig = Rig("tortuga")
    _new(rig, ["person", "good"])
    g = rig.ctl.session.game
    g.apply_text("d2-d3")
    after = g.image()
    g.undo()
    rig.show(after)
    assert _until(rig, lambda: len(g.history) == 2 and rig.ctl.must_match is not None)
    rig.send("hint", {})
    assert _until(rig, lambda: only(rig.got, "hint") or only(rig.got, "error"))
    assert only(rig.got, "error") == []
    hint = only(rig.got, "hint")[-1]
    assert hint["player"] == 0 and hint["n"] == 2
    rig.run(100)
    assert only(rig.got, "status")[-1]["text"].startswith("the computer plays")
    rig.show()  # the person makes the computer's move: the hint is lit
    assert _until(rig, lambda: only(rig.got, "status")[-1]["text"] == "hint for player 1: %s" % hint["text"])


def test_a_hint_the_game_moved_past_says_why():
    rig = Rig("mahe")
    _new(rig, None, players=2, dice="physical")
    rig.show()
    rig.send("enter", {"text": "e3"})
    rig.send("hint", {}, run=0)  # and before it is thought through, the turtle is chosen
    rig.send("enter", {"text": "first-1a"}, run=0)
    assert _until(rig, lambda: only(rig.got, "hint") or only(rig.got, "error"))
    err = only(rig.got, "error")[-1]
    assert err["code"] == "refused" and err["msg"].startswith("no hint: chance decides now")
    assert err["re"] == rig.seq - 1  # it answers the hint command
    assert only(rig.got, "hint") == []
