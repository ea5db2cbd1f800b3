"""What people read around the game: choices in words, the virtual table's
LED colours and lights, one list of games."""

from __future__ import annotations

from apptools import app_wait
from rich.color import Color, ColorSystem

from controller import scenes
from turtleboard.games import GAMES, KEYS, played, players_text, rules_class
from turtleboard.pictures.describe import action_words, choice_words, race_card, status_words
from turtleboard.sim.worldview import LED_WORDS, colour_word, seen_colour, stack_text
from turtles import new_game


def _dimmed(colour, level=64):
    return "%02x%02x%02x" % scenes.scale(colour, level)


def test_amber_and_red_stay_apart_in_256_and_16_colour_terminals():
    # The firmware dims LEDs to the board's brightness (64): "turn this turtle
    # over" (amber) and "take this off" (red) were both a dark red.
    take = seen_colour(_dimmed(scenes.TAKE), 64)
    flip = seen_colour(_dimmed(scenes.FLIP), 64)
    for system in (ColorSystem.EIGHT_BIT, ColorSystem.STANDARD):
        a = Color.parse("#" + take).downgrade(system)
        b = Color.parse("#" + flip).downgrade(system)
        assert a.number != b.number, (system, a, b)
    # and each lit cell also says in a word what its light asks
    assert colour_word(take, LED_WORDS) == "take" and colour_word(flip, LED_WORDS) == "turn"
    put = seen_colour(_dimmed(scenes.PUT), 64)
    assert colour_word(put, LED_WORDS) == "put"
    assert colour_word("000000", LED_WORDS) == ""


def test_turtles_show_their_team_or_owner():
    assert stack_text([["S", True]]) == "S"
    assert stack_text([["N", True], ["turtle", False]]) == "Nv"
    assert stack_text([["1a", True], ["2b", True]]) == "1a/2b"
    assert stack_text([["turtle", True]]) == "^"
    # the Race's turtles by colour, the five of the start stack in a cell
    assert stack_text([[c, True] for c in ("red", "yellow", "green", "blue", "purple")]) == "rygbp"


def test_a_stack_too_long_for_its_cell_shows_who_is_on_top():
    # The top turtle decides (Mahé): a stack that does not fit in a cell's 7
    # columns shows it and how many it stands on, never its bottom turtle.
    stack = [[n, True] for n in ("1a", "2b", "1b", "3b")]
    assert stack_text(stack) == "3b on 3"
    assert stack_text(stack[:2]) == "1a/2b"
    assert stack_text([[str(n), True] for n in range(1, 8)]) == "1234567"  # (fits)
    assert stack_text([[str(n), True] for n in range(1, 9)]) == "8 on 7"
    # the raft: side by side, sorted, never a stack; the rest counted
    raft = [[n, True] for n in ("2b", "1a", "3a", "1b")]
    assert stack_text(raft, side_by_side=True) == "1a,1b+2"
    assert stack_text(raft[:2], side_by_side=True) == "1a,2b"
    assert stack_text([[str(n), True] for n in (4, 2, 1, 3)], side_by_side=True) == "1,2,3,4"


def test_prompt_choices_in_words():
    t = new_game("tortuga", 2)
    assert choice_words(t, "=S") == "the turtle joins south (player 1) [=S]"
    assert choice_words(t, "=N") == "the turtle joins north (player 2) [=N]"
    assert choice_words(t, "b2-b3") == "move b2 to b3 [b2-b3]"
    m = new_game("mahe", 3)
    assert choice_words(m, "roll") == "roll again [roll]"
    assert choice_words(m, "card3") == "play the 3 egg card as a die [card3]"
    assert choice_words(m, "first-2b") == "turtle 2b moves first [first-2b]"
    r = new_game("race", 3)
    # the notation counts players from 0 here: the words alone, counting from 1
    assert choice_words(r, "colour 0 red") == "player 1 is red"
    assert action_words(r, "colour 2 green") == "player 3 is green"
    # the log says every action in words too, after the notation of the record
    assert action_words(r, "red+") == "red+ — red 1 forward"
    assert action_words(r, "^^blue") == "^^blue — arrow card: blue (at the back) 2 forward"
    assert action_words(m, "d5") == "d5 — the die shows 5"
    assert action_words(t, "d1xd3") == "d1xd3 — jump from d1 to d3"
    # the cards the Race asks about, in words; a hand's cards name no turtle
    assert choice_words(r, "red++") == "red 2 forward [red++]"
    assert choice_words(r, "red-") == "red 1 back [red-]"
    assert choice_words(r, "*+red") == "rainbow card: red 1 forward [*+red]"
    assert choice_words(r, "^red") == "arrow card: red (at the back) 1 forward [^red]"
    assert choice_words(r, "^^blue") == "arrow card: blue (at the back) 2 forward [^^blue]"
    assert race_card("*-") == "rainbow card: any turtle 1 back"
    assert race_card("^^") == "arrow card: the last turtle 2 forward"
    assert choice_words(r, "draw ^") == "the card drawn is arrow card: the last turtle 1 forward [draw ^]"
    assert choice_words(m, "cancel") == "none of these: cancel [cancel]"
    assert choice_words(m, "xyz") == "xyz"


def test_the_boards_sentences_say_the_move_they_name_in_words():
    t = new_game("tortuga", 2)
    m = new_game("mahe", 3)
    assert status_words(t, "player 2 to move (the computer played =N)") == \
        "player 2 to move (the computer played the turtle joins north (player 2))"
    assert status_words(t, "hint for player 1: d1xd3") == "hint for player 1: jump from d1 to d3"
    assert status_words(m, "hint for player 1: first-1b") == "hint for player 1: turtle 1b moves first"
    assert status_words(m, "the computer plays stop: make its move as lit") == \
        "the computer plays stop: the turtle moves: make its move as lit"
    assert status_words(m, "player 2: the computer (easy) is thinking") == \
        "player 2: the computer (easy) is thinking"


def test_one_list_of_games_with_player_counts_in_words():
    assert KEYS == ("mahe", "race", "tortuga", "tattoo", "hatching")
    assert {g.rules for g in GAMES} == {"mahe", "race", "tortuga"}
    assert players_text(rules_class("tortuga")) == "2 players"  # never "2 to 2"
    assert players_text(rules_class("mahe")) == "2 to 7 players"


def test_hands_lay_out_what_the_engine_moved_without_passing_other_cells(tmp_path):
    # After a bust the engine sends the turtle back to the raft; the hands
    # lift it and put it there. Pushed back along the track, it passed cells
    # that a busy board (reading the track seldom) took for the next move:
    # "stop by sensors" for a turtle nobody moved.
    from turtleboard.paths import reference_board
    from turtleboard.sim import device
    from turtleboard.sim.hands import FAST, Hands
    from turtleboard.sim.world import World

    board = device.load_board_file(str(reference_board("mahe")))
    world = World(board, str(tmp_path / "world"))

    class Quiet:  # a mirror with nothing to say: lay_out only moves pieces
        def poll(self, timeout):
            return []

    game = new_game("mahe", 2)
    # 1a to field 6; 1b busts on the raft; 2a and 2b to field 1
    for text in "e4 first-1a d6 stop d6 roll d6 first-2a d1 stop d1 stop".split():
        game.apply_text(text)
    hands = Hands(world, Quiet(), timing=FAST)
    hands.lay_out(game)
    assert [c for c in board.cells if world.stacks[c]] == ["raft", "1", "6"]
    seen = []
    changed = world._changed

    def watch():
        changed()
        seen.append(sorted(c for c in board.cells if world.stacks[c]))

    world._changed = watch
    for text in "first-1a d6 roll d6".split():  # 12 > 7: 1a busts from 6 to the raft
        game.apply_text(text)
    hands.lay_out(game)
    assert seen, "nothing was moved"
    for cells in seen:
        assert set(cells) <= {"raft", "1", "6"}, cells  # never a cell between
    world.close()


def test_new_game_dialog_at_80x24_keeps_every_choice_in_sight():
    # Tab never lands on a control out of sight; no list opens over Start;
    # a seat a player; options in words; Tortuga has no dice to choose; Esc
    # cancels.
    import asyncio

    from textual.app import App

    from turtleboard.mirror.newgame import NewGameScreen

    got = []

    class Host(App):
        def on_mount(self):
            self.push_screen(NewGameScreen(["mahe", "race", "tortuga"]), got.append)

    async def run():
        app = Host()
        async with app.run_test(size=(80, 24)) as pilot:
            assert await app_wait(pilot, lambda: isinstance(app.screen, NewGameScreen)
                                  and app.screen.focused is not None)
            dialog = app.screen
            assert not dialog.query("Select")
            assert dialog.focused.id == "game" and dialog.selects["players"].value == 2
            assert sorted(k for k in dialog.selects if k.startswith("seat:")) == ["seat:1", "seat:2"]
            assert str(dialog.selects["option:egg_dice"].render()) == "< no >"  # words, not 0/1
            await pilot.press("tab", *["right"] * 5)  # 7 players: the most seats
            assert await app_wait(pilot, lambda: "seat:7" in dialog.selects
                                  and dialog.focused is dialog.selects["players"])
            assert dialog.selects["players"].value == 7
            assert [k for k in dialog.selects if k.startswith("seat:")] == ["seat:%d" % n for n in range(1, 8)]
            assert dialog.focused is dialog.selects["players"]
            screen = dialog.region
            fields = dialog.query_one("#fields")
            seen = set()
            for _ in range(16):  # round the dialog and back to the start
                await pilot.press("tab")
                await pilot.pause()
                w = dialog.focused
                seen.add(w.id or next(k for k, s in dialog.selects.items() if s is w))
                assert screen.contains_region(w.region), w
                if w in fields.query("*"):
                    assert fields.scrollable_content_region.contains_region(w.region), w
            assert {"start", "cancel", "dice", "seat:7", "option:egg_dice"} <= seen
            await pilot.press(*["left"] * 5)  # players back down: fewer seats
            dialog.selects["players"].value = 3
            assert await app_wait(pilot, lambda: [k for k in dialog.selects if k.startswith(
                "seat:")] == ["seat:1", "seat:2", "seat:3"])
            dialog.query_one("#game").value = "tortuga"
            assert await app_wait(pilot, lambda: "option:turn_limit" in dialog.selects)
            assert "dice" not in dialog.selects  # nothing rolls in Tortuga
            assert str(dialog.selects["option:turn_limit"].render()) == "< no limit >"
            dialog.query_one("#game").value = "race"
            assert await app_wait(pilot, lambda: "option:open_colours" in dialog.selects)
            assert "dice" not in dialog.selects and "seat:1" not in dialog.selects
            assert str(dialog.selects["option:open_colours"].render()) == "< no: dealt secretly >"
            await pilot.press("escape")
            assert await app_wait(pilot, lambda: not isinstance(app.screen, NewGameScreen))
            assert got == [None]

    asyncio.run(run())


def test_new_game_dialog_on_a_one_game_board_has_the_focus_and_labels_stand_apart():
    # A Mahé board: the game is not a choice, so the players have the focus
    # (the keys work at once); every label stands apart from its choice.
    import asyncio

    from textual.app import App
    from textual.widgets import Label

    from turtleboard.mirror.newgame import NewGameScreen

    async def run(rule_sets, first):
        class Host(App):
            def on_mount(self):
                self.push_screen(NewGameScreen(rule_sets))

        app = Host()
        async with app.run_test(size=(80, 24)) as pilot:
            assert await app_wait(pilot, lambda: isinstance(app.screen, NewGameScreen)
                                  and app.screen.focused is not None), rule_sets
            dialog = app.screen
            assert dialog.focused is dialog.selects[first], dialog.focused
            assert await app_wait(pilot, lambda: all(
                row.region.height for row in dialog.query(".row")))
            for row in dialog.query(".row"):
                label = row.query_one(Label)
                text = str(label.render())
                choice = row.children[1]
                # the label's words, then at least a column before the choice
                assert label.region.x + len(text) < choice.region.x, (text, label.region)
            players = dialog.selects["players"].value
            await pilot.press("right")  # the keys work at once: a player more
            assert await app_wait(pilot, lambda: dialog.selects["players"].value == players + 1)

    asyncio.run(run(["mahe"], "players"))
    asyncio.run(run(["race"], "players"))


def test_compact_mahe_board_shows_every_field_number_apart():
    # At 80x24 (and smaller) an occupied field shows its number before its
    # turtles (turtles are numbered too), and no two numbers run together.
    from turtleboard.mirror.board_text import board_text

    g = new_game("mahe", 4)
    for t in "e3 d3 roll d4 stop d6 stop d5 stop".split():  # turtles on 14, 6 and 5
        g.apply_text(t)
    for width, height in ((46, 14), (30, 12), (26, 10)):
        fields = []
        for token in board_text(g, width=width, height=height).plain.split():
            if token.startswith(("nest", "raft")):
                continue
            field, _, turtles = token.partition(":")
            assert field.isdigit(), (width, token)
            fields.append(int(field))
            if field in ("14", "6", "5"):
                assert turtles, (width, token)  # the field's number and its turtle
        assert sorted(fields) == list(range(1, 22)), (width, height, sorted(fields))


def test_one_action_is_said_in_the_singular():
    from turtleboard.pictures.describe import panel_lines

    g = new_game("mahe", 2)
    assert panel_lines(g, None)[0] == "2 players, after 0 actions"
    g.apply_text("e3")
    assert panel_lines(g, None)[0] == "2 players, after 1 action"


def test_a_game_on_the_board_is_named_as_one_of_the_five():
    # (the simulated table counts its time by it: a Tortuga game with
    # tattoos is Tattoo Turtles)
    for g in GAMES:
        assert played(g.rules, dict(g.options, turn_limit=100)) == g.key
    assert played("tortuga", {"tattoo": 0, "hatching": 0, "hops": 1}) == "tortuga"
    assert played("tortuga", None) == "tortuga"
