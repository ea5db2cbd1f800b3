# The Turtle Race rules (RULES.md section 2), dealt mode: set-up, cards,
# moves, stacking, the end, the dead-hand ruling, notation and bad input.
from turtles import CHANCE, EMPTY, TERMINAL, UP, BadNotation, BadSetup, IllegalAction, new_game
from turtles.race import COLOURS, DECK, Race

from battery import check_bad_notation, check_rejects, run_battery
from check import play, raises

TRANSCRIPTS = [
    ("race", 2, "", 50),
    ("race", 5, "", 50),
    ("race", 3, "start=side_by_side", 50),
    ("race", 4, "mode=physical", 50),
    ("race", 3, "mode=physical,open_colours=1,start=side_by_side", 10),
]

RED, YELLOW, GREEN, BLUE, PURPLE = 0, 1, 2, 3, 4


def do(game, text):
    # Applies actions written "a, b, c" (our actions contain spaces).
    for part in text.split(","):
        game.apply_text(part)
    return game


def dealt_game(hands, stack="red yellow green blue purple", colours=None, options=None,
               geometry=None):
    # A dealt game after its set-up: the start stack bottom first, player p
    # owning colours[p] (default: COLOURS[p]) and holding hands[p].
    opts = dict(options or {})
    g = new_game("race", len(hands), opts, geometry)
    if g.options["start"] == "stacked":
        play(g, ["stack " + c for c in stack.split()])
    for p in range(len(hands)):
        g.apply_text("colour %d %s" % (p, (colours or COLOURS)[p]))
    for i in range(5):
        for p in range(len(hands)):
            g.apply_text("draw " + hands[p].split()[i])
    return g


PLAIN = ["red+ red+ yellow++ *+ ^", "green+ blue+ *- ^^ purple-"]


def test_board_and_geometry():
    g = new_game("race", 2)
    assert Race.DEFAULT_GEOMETRY == {"fields": 8}
    assert g.cells() == ["start", "1", "2", "3", "4", "5", "6", "7", "8", "lettuce"]
    assert g.image() == [UP] + [EMPTY] * 9
    short = new_game("race", 2, None, {"fields": 4})
    assert short.cells() == ["start", "1", "2", "3", "4", "lettuce"]
    e = raises(BadSetup, new_game, "race", 2, None, {"fields": "x"})
    assert "fields" in str(e)
    raises(BadSetup, new_game, "race", 2, None, {"fields": 1})
    raises(BadSetup, new_game, "race", 1)
    raises(BadSetup, new_game, "race", 6)
    e = raises(BadSetup, new_game, "race", 2, {"start": "pile"})
    assert "side_by_side" in str(e)
    raises(BadSetup, new_game, "race", 2, {"mode": "online"})
    raises(BadSetup, new_game, "race", 2, {"open_colours": 2})


def test_the_deck_is_the_52_cards_of_the_rules():
    assert sum(DECK) == 52
    g = dealt_game(PLAIN)
    # per colour 1x ++, 5x +, 2x -; rainbow 5x +, 2x -, 3x ↑, 2x ↑↑
    for c in COLOURS:
        assert [DECK[Race.parse_action(g, c + s) // 5] for s in ("++", "+", "-")] == [1, 5, 2]
    assert [DECK[15], DECK[16], DECK[17], DECK[18]] == [5, 2, 3, 2]
    fresh = new_game("race", 2, {"start": "side_by_side"})
    do(fresh, "colour 0 red, colour 1 blue")
    outs = dict((fresh.action_text(a), w) for a, w in fresh.chance_outcomes())
    assert outs["draw red++"] == 1 and outs["draw red+"] == 5 and outs["draw red-"] == 2
    assert outs["draw *+"] == 5 and outs["draw *-"] == 2 and outs["draw ^"] == 3
    assert outs["draw ^^"] == 2 and sum(outs.values()) == 52 and len(outs) == 19


def test_stacked_start_is_a_shuffle_of_chance():
    g = new_game("race", 3)
    assert g.to_move() == CHANCE
    assert sorted(w for _, w in g.chance_outcomes()) == [1] * 5
    do(g, "stack blue, stack red")
    assert [g.action_text(a) for a in g.legal_actions()] == ["stack yellow", "stack green",
                                                             "stack purple"]
    check_rejects(g, "stack red")
    do(g, "stack purple, stack green, stack yellow")
    assert g.view(None)["track"][0] == ["blue", "red", "purple", "green", "yellow"]
    # colours next, dealt secretly: a chance, uniform over the colours left
    assert g.to_move() == CHANCE and g.legal_texts()[0] == "colour 0 red"


def test_side_by_side_start_has_no_stack_chance():
    g = new_game("race", 2, {"start": "side_by_side"})
    assert g.to_move() == CHANCE and g.legal_texts()[0] == "colour 0 red"
    assert len(g.legal_actions()) == 5


def test_dealing_colours_and_five_cards_each():
    g = dealt_game(PLAIN, colours=["blue", "red"])
    assert g.to_move() == 0
    assert g.view(0)["colours"] == ["blue", None] and g.view(1)["colours"] == [None, "red"]
    assert g.view(0)["hand"] == ["red+", "red+", "yellow++", "*+", "↑"]
    assert g.view(1)["hand"] == ["green+", "blue+", "purple-", "*-", "↑↑"]
    assert g.view(None)["draw_pile"] == 42 and g.view(None)["hand_sizes"] == [5, 5]
    # each draw is weighted by what the pile still holds: 2 red+ dealt of 5
    g.apply_text("red+")
    outs = dict((g.action_text(a), w) for a, w in g.chance_outcomes())
    assert outs["draw red+"] == 3 and outs["draw ^"] == 2 and outs["draw ^^"] == 1
    assert sum(outs.values()) == 42
    e = check_rejects(g, "draw yellow++")  # the only yellow++ is in player 0's hand
    assert "the draw pile still holds" in e
    g.apply_text("draw ^")
    assert g.view(0)["hand"] == ["red+", "yellow++", "*+", "↑", "↑"]
    assert g.to_move() == 1  # the turn passed after the draw


def test_legal_plays_are_the_uses_of_the_hand():
    g = dealt_game(PLAIN, options={"start": "side_by_side"})
    # all turtles on the start: *+ any turtle, ↑ any (all are rearmost)
    assert g.legal_texts() == [
        "red+", "yellow++", "*+red", "*+yellow", "*+green", "*+blue", "*+purple",
        "^red", "^yellow", "^green", "^blue", "^purple"]
    e = check_rejects(g, "red++")
    assert "you have no red++ in hand" in e
    e = check_rejects(g, "^^red")
    assert "no ↑↑ in hand" in e
    do(g, "red+, draw red-")
    # player 1 may not move purple back: it is on the start
    e = check_rejects(g, "purple-")
    assert "'-' cannot move a turtle on the start" in e


def test_colour_cards_move_their_colour_not_yours():
    g = dealt_game(PLAIN)  # player 0 is red
    do(g, "yellow++")
    assert g.pos[YELLOW] == 2 and g.pos[RED] == 0
    # yellow carries the three turtles above it; red stays
    assert g.view(None)["track"][2] == ["yellow", "green", "blue", "purple"]
    assert g.view(None)["track"][0] == ["red"]


def test_stacking_and_carrying():
    hands = ["green+ yellow++ *+ red- ^", "purple+ blue+ *- ^^ green-"]
    g = dealt_game(hands)  # start: red (bottom) yellow green blue purple (top)
    do(g, "green+, draw red+")
    # green carries blue and purple; red and yellow stay
    assert g.view(None)["track"][:2] == [["red", "yellow"], ["green", "blue", "purple"]]
    do(g, "blue+, draw red+")
    assert g.view(None)["track"][1:3] == [["green"], ["blue", "purple"]]
    do(g, "yellow++, draw red+")
    # yellow lands on field 2 and climbs on top
    assert g.view(None)["track"][2] == ["blue", "purple", "yellow"]
    do(g, "*-blue, draw red+")
    # back one: blue carries purple and yellow onto green
    assert g.view(None)["track"][1] == ["green", "blue", "purple", "yellow"]
    assert g.image() == [UP, UP] + [EMPTY] * 8


def test_minus_from_field_one_reaches_the_start_and_climbs():
    hands = ["green+ red+ red+ red+ red+", "green- blue+ blue+ ^ ^^"]
    g = dealt_game(hands)
    do(g, "green+, draw red+, green-, draw blue+")
    # stacked start: green, blue and purple climb back on red and yellow
    assert g.view(None)["track"][0] == ["red", "yellow", "green", "blue", "purple"]
    side = dealt_game(hands, options={"start": "side_by_side"})
    do(side, "green+, draw red+")
    # side by side: green leaves the start alone
    assert side.view(None)["track"][:2] == [["red", "yellow", "blue", "purple"], ["green"]]
    do(side, "green-, draw blue+")
    assert side.pos == [0, 0, 0, 0, 0] and side.view(None)["track"][1] == []


def test_arrows_move_a_turtle_of_the_rearmost_field():
    hands = ["red++ yellow++ green++ blue++ ^", "purple+ ^^ ^^ *+ *+"]
    g = dealt_game(hands, options={"start": "side_by_side"})
    do(g, "red++, draw red+")
    assert g.legal_texts()[-4:] == ["^^yellow", "^^green", "^^blue", "^^purple"]
    e = check_rejects(g, "^^red")
    assert "red is not on the rearmost field (field 0)" in e
    do(g, "purple+, draw red+, yellow++, draw red+, ^^green, draw red+")
    do(g, "blue++, draw red+")
    # purple alone is last now (field 1)
    assert g.legal_texts()[-1] == "^^purple" and "^^blue" not in g.legal_texts()
    e = check_rejects(g, "^^blue")
    assert "blue is not on the rearmost field (field 1)" in e
    do(g, "^^purple")
    assert g.pos[PURPLE] == 3


def test_end_clamps_at_the_lettuce_and_ranks_lower_first():
    hands = ["yellow++ red++ ^ ^ ^", "green+ blue+ blue+ blue+ blue+"]
    g = dealt_game(hands, geometry={"fields": 2})  # lettuce is field 3
    do(g, "red++, draw red+")
    # red carries the whole stack to field 2
    assert g.view(None)["track"][2] == ["red", "yellow", "green", "blue", "purple"]
    do(g, "green+")
    assert g.view(None)["track"][3] == ["green", "blue", "purple"]
    assert g.to_move() == TERMINAL and g.legal_actions() == []
    # no draw after the race ends; green (bottom of the arrivals) first
    assert g.order() == [GREEN, BLUE, PURPLE, RED, YELLOW]
    res = g.result()
    assert res["winners"] == [0] and res["scores"] == [2, 1]
    assert res["ranking"] == [[0], [1]]
    assert g.view(0)["colours"] == ["red", "yellow"]  # all colours revealed
    check_rejects(g, "red+")
    assert "the race is over" in check_rejects(g, "red++")


def test_clamp_beyond_the_lettuce():
    hands = ["red++ red+ ^ ^ ^", "green+ blue+ blue+ blue+ blue+"]
    g = dealt_game(hands, geometry={"fields": 2})
    do(g, "red+, draw red+, green+, draw red+, red++")
    # red from field 2 by two: stops on the lettuce (3), it does not pass it
    assert g.pos[RED] == 3 and g.is_over()


def test_winner_among_owned_colours_only():
    g = dealt_game(["purple++ *+ red+ yellow+ yellow+", "green+ blue+ blue+ blue+ blue+"],
                   colours=["red", "blue"], geometry={"fields": 2})
    do(g, "purple++, draw green+, blue+, draw green+, *+purple")
    # purple (owned by nobody) wins the race; blue ranks before red
    assert g.order()[0] == PURPLE and g.is_over()
    res = g.result()
    assert res["winners"] == [1] and res["scores"] == [3, 4]


def test_ties_on_a_side_by_side_start():
    g = dealt_game(["purple++ red+ red+ red+ red+", "*+ blue+ blue+ blue+ blue+"],
                   options={"start": "side_by_side"}, geometry={"fields": 2})
    do(g, "purple++, draw red+, *+purple")
    # red and yellow are both still on the start, side by side: a tie
    res = g.result()
    assert res["scores"] == [4, 4] and res["ranking"] == [[0, 1]] and res["winners"] == [0, 1]


def test_dead_hand_is_shown_discarded_and_replaced():
    g = dealt_game(["red- red- yellow- *- green-", "blue+ blue+ blue+ blue+ blue+"])
    assert g.legal_texts() == ["discard"]
    before = g.state_key()
    e = check_rejects(g, "red-")
    assert "'-' cannot move a turtle on the start" in e
    do(g, "discard")
    assert g.view(None)["played_pile"] == 5 and g.view(0)["hand"] == []
    assert g.to_move() == CHANCE
    do(g, "draw red+, draw red+, draw ^, draw *+, draw green++")
    assert g.to_move() == 0  # the same player now plays from the new hand
    assert "red+" in g.legal_texts() and "discard" not in g.legal_texts()
    e = check_rejects(g, "discard")
    assert "you can play a card" in e
    for _ in range(6):
        g.undo()
    assert g.state_key() == before


def test_reshuffle_draws_from_the_played_cards():
    # A long track (40 fields) so the draw pile runs out more than once.
    from turtles.bots import random_action
    from turtles.rng import Rng

    g = new_game("race", 2, None, {"fields": 40})
    rng = Rng(11)
    reshuffles = 0
    while not g.is_over():
        if g.to_move() == CHANCE and g.draw_n == 0 and not g.deal_left:
            played = g.played[:]
            outs = g.chance_outcomes()
            assert [w for _, w in outs] == [n for n in played if n]
            assert sum(w for _, w in outs) == g.played_n == 52 - 9
            a = random_action(g, rng)
            g.apply(a)
            # the played cards became the pile; one of them was drawn
            assert g.played_n == 0 and g.draw_n == 42
            assert sum(g.draw) == 42 and g.draw[a - 100] == played[a - 100] - 1
            reshuffles += 1
            g.undo()
            assert g.played == played and g.draw_n == 0
            g.apply(a)
        else:
            g.apply(random_action(g, rng))
    assert reshuffles >= 2, reshuffles
    total = [0] * 19
    for h in g.hands:
        for k in range(19):
            total[k] += h[k]
    for k in range(19):
        assert total[k] + g.draw[k] + g.played[k] == DECK[k]


def test_open_colours_are_chosen_by_the_players():
    g = new_game("race", 3, {"open_colours": 1, "start": "side_by_side"})
    assert g.to_move() == 0 and len(g.legal_actions()) == 5
    do(g, "colour 0 green")
    assert g.to_move() == 1
    e = check_rejects(g, "colour 1 green")
    assert "not one taken" in e
    check_rejects(g, "colour 0 red")
    do(g, "colour 1 red, colour 2 blue")
    assert g.to_move() == CHANCE  # now the cards are dealt
    for p in (None, 0, 1, 2):
        assert g.view(p)["colours"] == ["green", "red", "blue"]


def test_notation_round_trip_and_aliases():
    g = dealt_game(PLAIN)
    for text in ("red+", "red++", "red-", "*+blue", "*-blue", "^green", "^^green",
                 "draw red+", "draw ^^", "show purple-", "colour 1 purple", "stack red",
                 "discard"):
        assert g.action_text(g.parse_action(text)) == text, text
    assert g.parse_action("↑↑green") == g.parse_action("^^green")
    assert g.parse_action("  RED+ ") == g.parse_action("red+")
    assert g.parse_action("color 1 red") == g.parse_action("colour 1 red")


def test_bad_notation_says_what_was_expected():
    g = dealt_game(PLAIN)
    assert "expected a card like" in check_bad_notation(g, "hello")
    assert "no turtle colour" in check_bad_notation(g, "pink+")
    assert "say which turtle" in check_bad_notation(g, "^")
    assert "no card" in check_bad_notation(g, "draw red*")
    assert "player" in check_bad_notation(g, "colour 7 red")
    check_bad_notation(g, "")
    check_bad_notation(g, "red+ blue")
    raises(BadNotation, g.parse_action, "*+")


def test_wrong_step_is_refused_with_a_reason():
    g = dealt_game(PLAIN)
    assert "player 0's turn" in check_rejects(g, "draw red+")
    do(g, "red+")
    assert "a card is drawn" in check_rejects(g, "red+")
    assert "the draw pile still holds" in check_rejects(g, "draw yellow++")
    assert "the race" not in check_rejects(g, "show red-")


def test_battery_dealt():
    run_battery("race", 2, {}, 12)
    run_battery("race", 5, {}, 12)
    run_battery("race", 3, {"start": "side_by_side", "open_colours": 1}, 10)
    run_battery("race", 4, {}, 6, seed=5)


def test_codes_that_are_no_action_are_refused_cleanly():
    g = dealt_game(PLAIN)
    before = g.state_key()
    for a in (97, 119, 139, 225, 305, 401, -1, "red+", (1, 2), True):
        e = raises(IllegalAction, g.apply, a)
        assert "no Turtle Race action" in str(e) or "is illegal" in str(e)
        raises(BadNotation, g.action_text, a)
    assert g.state_key() == before


def test_a_record_says_whose_colour_each_colour_line_is():
    # `colour 0 red` counts players from 0, as the API does; the record
    # says after it, for a person, that player 1 owns red (a comment line).
    from turtles.record import read_record, write_record

    g = dealt_game(["red+ red+ red+ red+ red+", "blue+ blue+ blue+ blue+ blue+"], colours=["green", "red"])
    text = write_record(g)
    lines = text.split("\n")
    at = lines.index("colour 0 green")
    assert lines[at + 1] == "# player 1 owns green"
    assert lines[lines.index("colour 1 red") + 1] == "# player 2 owns red"
    assert read_record(text).state_key() == g.state_key()


def test_chance_for_names_whose_draw_it_is():
    g = new_game("race", 2)
    assert g.to_move() == CHANCE and g.chance_for() == -1  # the start stack: the table's
    g = dealt_game(PLAIN)
    assert g.chance_for() == -1  # player 1 to play: no chance
    play(g, ["red+"])
    assert g.to_move() == CHANCE and g.chance_for() == 0  # the card player 1 draws
    play(g, ["draw red+"])
    assert g.chance_for() == -1
    g = new_game("race", 2, {"mode": "dealt"})
    play(g, ["stack " + c for c in "red yellow green blue purple".split()])
    assert g.chance_for() == -1  # the colours, then the deal: the table's
