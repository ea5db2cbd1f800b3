# Prompts: moves the sensors cannot tell apart, decisions the board cannot
# show, dice and cards; NEXT cycles, OK confirms, the host may answer.
from ctl_rig import Rig, actions, kinds, only

from controller import scenes

STACK = ["red", "yellow", "green", "blue", "purple"]
SETTLED = 700  # ms: the Race reads a board after it has been still 500 ms


def race_ready(players=3):
    rig = Rig("race")
    rig.new(players=players)
    rig.show()
    rig.run(100)
    for colour in STACK:  # the start stack, bottom first: a fact of the table
        got = rig.send("enter", {"text": "stack " + colour})
        assert actions(got) == ["stack " + colour]
    return rig


def test_race_stack_order_is_asked_never_drawn_by_the_device():
    rig = Rig("race")
    got = rig.new(players=3, dice="electronic")
    rig.show()
    got = rig.run(SETTLED)
    assert actions(got) == []
    prompt = only(got, "prompt")[0]
    assert prompt["kind"] == "chance"
    assert prompt["choices"][0] == "stack red"
    got = rig.press("ok")
    assert actions(got) == ["stack red"]
    assert only(got, "action")[0]["by"] == "buttons"


def test_ambiguous_move_waits_for_the_prompt_then_commits_the_choice():
    rig = race_ready()
    rig.put("1")  # purple (on top) to field 1: which card? the board cannot tell
    got = rig.run(SETTLED)
    assert actions(got) == []
    prompt = only(got, "prompt")[0]
    assert prompt["kind"] == "move"
    assert "purple+" in prompt["choices"] and "*+purple" in prompt["choices"]
    got = rig.run(3000)  # waiting changes nothing
    assert actions(got) == [] and rig.ctl.session.game.history[5:] == []
    want = prompt["choices"].index("*+purple")
    for _ in range(want):
        got = rig.press("next")
    assert only(got, "prompt")[-1]["current"] == want
    got = rig.press("ok")
    assert actions(got) == ["*+purple"]
    assert only(got, "closed")[0] == {"id": prompt["id"], "choice": want}


def test_the_host_answers_a_prompt():
    rig = race_ready()
    rig.put("1")
    prompt = only(rig.run(SETTLED), "prompt")[0]
    got = rig.send("answer", {"id": prompt["id"], "choice": 0})
    assert actions(got) == [prompt["choices"][0]]
    assert only(got, "action")[0]["by"] == "host"
    assert "ok" in kinds(got)
    got = rig.send("answer", {"id": prompt["id"], "choice": 0})
    assert only(got, "error")[0]["code"] == "no-prompt"


def test_a_prompt_closes_when_the_board_changes_back():
    rig = race_ready()
    rig.put("1")
    prompt = only(rig.run(SETTLED), "prompt")[0]
    rig.take("1")
    got = rig.run(SETTLED)
    assert only(got, "closed") == [{"id": prompt["id"], "choice": None}]
    assert actions(got) == []


def test_a_move_the_sensors_cannot_see_is_chosen_after_ok():
    rig = race_ready()
    got = rig.press("ok")  # discard, or a turtle from a stack onto a stack
    prompt = only(got, "prompt")[0]
    assert prompt["kind"] == "hidden"
    assert prompt["choices"][-1] == "cancel"
    for _ in range(len(prompt["choices"]) - 1):
        rig.press("next")
    got = rig.press("ok")
    assert actions(got) == []
    assert only(got, "closed")[0]["choice"] == len(prompt["choices"]) - 1


def mahe_ready(dice="electronic"):
    rig = Rig("mahe")
    rig.new(players=4, dice=dice)
    rig.show()
    return rig


def test_mahe_electronic_dice_and_the_roll_or_stop_prompt():
    rig = mahe_ready()
    got = rig.run(200)
    done = only(got, "action")
    assert [a["by"] for a in done] == ["dice", "dice"]  # the face-up egg card, die 1
    assert done[0]["text"][0] == "e" and done[1]["text"][0] == "d"
    value = int(done[1]["text"][1:])
    dice_leds = rig.board.groups["dice"]
    lit = [led for led in dice_leds if rig.hal.leds[led] != (0, 0, 0)]
    assert len(lit) == value
    prompt = only(got, "prompt")[-1]
    assert prompt["kind"] == "decide" and sorted(prompt["choices"]) == ["roll", "stop"]
    assert prompt["choices"][0] == "stop"
    # The preview of `stop` lights the target field.
    target = rig.board.cells.index(str(value))
    assert rig.hal.leds[rig.board.led_of[target]] != (0, 0, 0)
    got = rig.press("ok")
    assert actions(got) == ["stop"]
    assert only(got, "action")[0]["by"] == "buttons"
    # The engine moved the turtle: the board is guided, nothing else happens.
    status = only(got, "status")[-1]
    assert status["expect"]["on"] == [str(value)]
    got = rig.run(3000)
    assert actions(got) == []
    rig.put(str(value))
    got = rig.run(200)
    prompt = only(got, "prompt")[-1]
    assert prompt["kind"] == "decide"  # the next player's turn went on


def test_mahe_physical_dice_are_entered_from_the_host_or_buttons():
    rig = mahe_ready("physical")
    got = rig.run(200)
    assert actions(got) == []
    prompt = only(got, "prompt")[0]
    assert prompt["kind"] == "chance" and prompt["choices"][0] == "e1"
    got = rig.send("enter", {"text": "e3"})
    assert actions(got) == ["e3"]
    prompt = only(got, "prompt")[-1]
    assert prompt["kind"] == "chance" and prompt["choices"][0] == "d1"
    rig.press("next")
    got = rig.press("ok")
    assert actions(got) == ["d2"]
    assert only(got, "action")[0]["by"] == "buttons"
    got = rig.send("enter", {"text": "d7"})
    assert only(got, "error")[0]["code"] == "bad-notation"
    got = rig.send("enter", {"text": "e3"})
    assert only(got, "error")[0]["code"] == "illegal"
    assert len(rig.ctl.session.game.history) == 2


def test_an_answer_to_a_question_of_the_last_boot_answers_no_question_of_this_one():
    # (noticed with the simulated table: prompt ids began at 1 at every boot,
    # so a page's answer to the last boot's first question answered the new
    # boot's first question, whatever that asked)
    rig = mahe_ready("physical")
    old = only(rig.run(200), "prompt")[0]
    again = Rig("mahe", folder=rig.folder, seed=8)  # the power cut: a new boot, its own seed
    again.ctl.restore()
    again.show()
    new = only(again.run(200), "prompt")[0]
    assert new["id"] != old["id"]
    got = again.send("answer", {"id": old["id"], "choice": 2})
    assert only(got, "error")[0]["code"] == "no-prompt" and actions(got) == []
    got = again.send("answer", {"id": new["id"], "choice": 2})
    assert actions(got) == [new["choices"][2]]
    # ids stay what a host takes (0..65535): they go round (the simulated
    # table's first sample broke on ids drawn up to 2**29)
    last = Rig("mahe", seed=0xFFFF)
    last.new(players=4, dice="physical")
    last.show()
    assert only(last.run(200), "prompt")[0]["id"] == 0


def prefix_to_team_choice():
    # Random play (seeded) until a hop reactivates a neutral turtle.
    from turtles import new_game
    from turtles.bots import random_action
    from turtles.rng import Rng

    for seed in range(1, 200):
        game = new_game("tortuga", 2, {"hops": 1})
        rng = Rng(seed)
        texts = []
        while not game.is_over() and len(texts) < 300:
            if any(t.startswith("=") for t in game.legal_texts()):
                return texts
            a = random_action(game, rng)
            texts.append(game.action_text(a))
            game.push(a)
    raise AssertionError("no seed reactivates a neutral turtle")


def test_tortuga_team_of_a_reactivated_turtle_is_a_prompt():
    rig = Rig("tortuga")
    rig.new()
    for text in prefix_to_team_choice():
        got = rig.send("enter", {"text": text}, run=5)
        assert actions(got) == [text]
    rig.show()
    got = rig.run(100)
    prompt = only(got, "prompt")[-1]
    assert prompt["kind"] == "decide"
    assert sorted(prompt["choices"]) == ["=N", "=S"]
    seat = rig.board.groups["turn"][rig.ctl.session.game.to_move()]
    seen = []
    for _ in range(2):
        seen.append(rig.hal.leds[seat])  # the preview: the team's colour on the jumper's seat
        rig.press("next")
    assert sorted(seen) == sorted([scenes.player_colour(0), scenes.player_colour(1)])
    got = rig.press("ok")
    assert actions(got) == [prompt["choices"][0]]


def test_a_turtle_held_in_the_air_is_never_taken_for_a_move():
    # Purple alone on field 1: lifting it shows the board that "purple back
    # to the start stack" would give. That is only ever confirmed, never read.
    rig = race_ready()
    rig.put("1")
    prompt = only(rig.run(SETTLED), "prompt")[0]
    rig.send("answer", {"id": prompt["id"], "choice": prompt["choices"].index("purple+")})
    rig.take("1")  # player 2 lifts purple
    got = rig.run(3000)
    assert actions(got) == [] and only(got, "undone") == []
    prompt = only(got, "prompt")[-1]
    assert prompt["kind"] == "move" and "purple-" in prompt["choices"]
    assert prompt["choices"][-1] == "takeback"  # it is also the board before purple+
    rig.put("1")  # only lifted: put back, nothing happened
    got = rig.run(SETTLED)
    assert actions(got) == [] and only(got, "closed")[-1]["choice"] is None
    rig.take("1")  # now really onto the start stack
    prompt = only(rig.run(SETTLED), "prompt")[-1]
    while rig.ctl.prompt.chosen() is None or rig.ctl.session.game.action_text(rig.ctl.prompt.chosen()) != "purple-":
        rig.press("next")
    got = rig.press("ok")
    assert actions(got) == ["purple-"]


def test_a_lift_that_looks_like_the_last_position_may_be_confirmed_as_a_takeback():
    rig = race_ready()
    rig.put("1")
    prompt = only(rig.run(SETTLED), "prompt")[0]
    rig.send("answer", {"id": prompt["id"], "choice": prompt["choices"].index("purple+")})
    rig.take("1")
    prompt = only(rig.run(SETTLED), "prompt")[-1]
    for _ in range(len(prompt["choices"]) - 1):
        rig.press("next")
    got = rig.press("ok")
    assert only(got, "undone")[0]["n"] == 5 and actions(got) == []


def test_a_race_turtle_counted_along_the_track_is_read_where_it_stops():
    rig = race_ready()
    rig.put("1")  # purple counted: "one" ...
    got = rig.run(120)
    rig.take("1")
    rig.put("2")  # ... "two"
    got += rig.run(SETTLED)
    assert actions(got) == []
    prompts = only(got, "prompt")
    assert len(prompts) == 1 and "purple+" not in prompts[0]["choices"]
    assert "purple++" in prompts[0]["choices"]


def test_a_bust_is_said_in_the_action_and_while_the_turtles_go_back():
    rig = Rig("mahe")
    rig.new(players=2, dice="physical")
    rig.show()
    texts = ("e3", "first-1a", "d3", "stop", "d1", "stop", "first-2a", "d1", "stop", "d1", "stop",
             "first-1a", "d4", "roll")
    for text in texts:
        got = rig.send("enter", {"text": text})
        assert only(got, "error") == [], (text, got)
        rig.show()
        rig.run(100)
    rig.send("enter", {"text": "d5"})  # 4 + 5 = 9: over 7
    rig.run(100)
    busts = [a["text"] for a in only(rig.got, "action") if a.get("bust")]
    assert busts == ["d5"] and "bust" not in only(rig.got, "action")[0]
    # 1a, on field 3, swims back to the raft: the status says why while it waits
    status = only(rig.got, "status")[-1]
    assert status["text"] == "a bust (the dice went over 7): put the pieces where the lights show"
    assert status["expect"]["off"] == ["3"]
    rig.show()
    rig.run(200)
    assert not only(rig.got, "status")[-1]["text"].startswith("a bust")


def test_the_undo_button_takes_back_the_last_action_or_says_why():
    # (found by the simulated table: UNDO, a button of every reference
    # board, did nothing at all)
    import json

    from ctl_rig import board_json

    board = json.loads(board_json("race"))
    board["buttons"]["undo"] = 7  # as on the reference boards
    rig = Rig("race", board_text=json.dumps(board))
    rig.new(players=3)
    rig.show()
    rig.run(100)
    got = rig.press("undo")
    assert only(got, "undone") == []
    assert "nothing to undo" in only(got, "error")[0]["msg"]
    rig.send("enter", {"text": "stack red"})
    got = rig.press("undo")
    assert [u["n"] for u in only(got, "undone")] == [0]


def test_ok_pressed_while_a_turtle_wobbles_is_taken_once_the_board_is_still():
    # (found by the simulated table, seed 1430: a turtle put down wobbles a
    # little; OK pressed meanwhile to end the turn did nothing, said nothing)
    rig = race_ready()
    rig.run(SETTLED)
    rig.hal.adc[rig.board.sensor_of[rig.board.cells.index("3")]] += 3500  # half a field: not clear
    got = rig.press("ok")
    assert only(got, "prompt") == [] and only(got, "error") == []
    assert rig.ctl.ok_held is not None
    rig.take("3")  # it reads clearly empty again: the board is still
    got = rig.run(100)
    prompt = only(got, "prompt")[0]
    assert prompt["kind"] == "hidden"
    assert rig.ctl.ok_held is None


def test_ok_pressed_on_a_board_that_stays_unsettled_says_to_press_again():
    rig = race_ready()
    rig.run(SETTLED)
    rig.hal.adc[rig.board.sensor_of[rig.board.cells.index("3")]] += 3500
    got = rig.press("ok") + rig.run(1200)
    assert only(got, "prompt") == []
    errors = only(got, "error")
    assert len(errors) == 1 and "press OK again once it is" in errors[0]["msg"]
    assert rig.ctl.ok_held is None


def test_ok_held_while_a_move_is_made_is_answered_by_the_move():
    rig = race_ready()
    rig.run(SETTLED)
    rig.hal.adc[rig.board.sensor_of[rig.board.cells.index("1")]] += 3500  # purple arrives on field 1
    rig.press("ok")
    rig.put("1")
    got = rig.run(SETTLED)
    assert only(got, "prompt")[0]["kind"] == "move"  # the move's question, not "which hidden move?"
    assert only(got, "error") == []


def test_ok_with_nothing_to_confirm_says_why():
    rig = race_ready()
    rig.run(SETTLED)
    rig.take("start")  # the start stack lifted: the board differs from the game
    rig.run(SETTLED)
    got = rig.press("ok")
    assert "differs from the game" in only(got, "error")[0]["msg"]
    fresh = Rig("race")
    got = fresh.press("ok")
    assert only(got, "error")[0]["code"] == "no-game"


def hatching_placed():
    # A Hatching Day game with its first turtle placed on the board (read
    # from the sensors): (rig, the cell it stands on).
    from turtles import EMPTY

    rig = Rig("tortuga")
    rig.new(game="tortuga", options={"hatching": 1})
    rig.show()
    rig.run(SETTLED)
    game = rig.ctl.session.game
    before = game.image()
    for action in game.legal_actions():
        after = game.copy()
        after.apply(action)
        changed = [i for i in range(len(before)) if after.image()[i] != before[i]]
        if len(changed) == 1 and before[changed[0]] == EMPTY:
            break
    cell = game.cells()[changed[0]]
    rig.put(cell)
    assert len(actions(rig.run(SETTLED))) == 1  # the placement, read from the sensors
    return rig, cell


def test_the_turtle_just_put_down_lifted_again_is_asked_about_as_a_take_back():
    # (found by the simulated table, seed 2286: a Tattoo Turtles player
    # lifting the turtle just placed, to jump with it, read "moved onto a
    # stack? OK confirms" and pressed OK, which took the placement back)
    rig, cell = hatching_placed()
    rig.take(cell)
    prompt = only(rig.run(SETTLED), "prompt")[-1]
    assert prompt["choices"] == ["takeback"]
    assert prompt["text"] == "take back the last move? OK takes it back; else put the turtle down"
    rig.put(cell)  # put down again: nothing taken back
    got = rig.run(SETTLED)
    assert only(got, "undone") == [] and only(got, "closed")[-1]["choice"] is None


def test_ok_held_through_a_wobble_read_as_the_turtle_lifted_again():
    # (found by the simulated table, seed 2465: the wobble of a turtle just
    # put down was read as the turtle lifted again, which asks "take back
    # the last move?" for a moment; the OK pressed to end the turn was
    # dropped with it)
    rig, cell = hatching_placed()
    rig.take(cell)  # the magnet bounces off...
    rig.run(5)
    rig.hal.held.append("ok")  # ...as OK is pressed
    got = rig.run(5)
    assert rig.ctl.ok_held is not None and only(got, "prompt") == [] and only(got, "error") == []
    got = rig.run(100)  # long enough to count: the turtle looks lifted again
    rig.hal.held.remove("ok")
    assert only(got, "prompt")[-1]["choices"] == ["takeback"]
    rig.put(cell)  # it lands for good
    got = rig.run(200)
    assert only(got, "undone") == []
    prompt = only(got, "prompt")[-1]
    assert prompt["kind"] == "hidden" and "done" in prompt["choices"], prompt
    assert only(got, "error") == []
