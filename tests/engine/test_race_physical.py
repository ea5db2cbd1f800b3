# The Turtle Race with real cards (mode=physical): the engine sees only the
# cards played, checks them against the board and the played pile, counts
# the draws it cannot see, and learns the colours at the end.
from test_race import do

from turtles import CHANCE, TERMINAL, new_game

from battery import check_rejects, run_battery


def physical(players=2, **opts):
    o = {"mode": "physical"}
    o.update(opts)
    return new_game("race", players, o)


def test_play_starts_at_once_with_every_card_a_deck_could_give():
    g = physical(2, start="side_by_side")
    assert g.to_move() == 0
    texts = g.legal_texts()
    # five colour ++ and +, no '-' (all on the start), *+ on any, arrows on any
    assert texts[:10] == ["red++", "red+", "yellow++", "yellow+", "green++", "green+",
                          "blue++", "blue+", "purple++", "purple+"]
    assert "red-" not in texts and "*-red" not in texts
    assert "^^purple" in texts and "discard" in texts
    assert g.view(None)["draw_pile"] == 42 and "hand" not in g.view(0)


def test_no_deck_holds_a_third_double_arrow():
    g = physical(3, start="side_by_side")
    do(g, "^^red, ^^yellow")
    e = check_rejects(g, "^^green")
    assert "no deck holds a third ↑↑" in e
    assert "^^green" not in g.legal_texts()
    do(g, "red++")
    e = check_rejects(g, "red++")
    assert "no deck holds a second red++" in e
    # the rules still apply: red is not last any more, purple is on the start
    assert "red is not on the rearmost field" in check_rejects(g, "^red")
    assert "'-' cannot move a turtle on the start" in check_rejects(g, "purple-")


def test_reshuffle_brings_the_played_cards_back():
    g = new_game("race", 5, {"mode": "physical", "start": "side_by_side"}, {"fields": 40})
    do(g, "^^red, ^^yellow")
    assert g.draw_n == 25
    # 25 more plays empty the pile; the draw after the next play reshuffles
    plays = 2
    while g.draw_n > 0:
        legal = g.legal_texts()
        assert "^^green" not in legal and "^^blue" not in legal
        g.apply_text([t for t in legal if t.endswith("+") and not t.endswith("++")][0])
        plays += 1
    assert plays == 27 and g.played_n == 27
    before = g.state_key()
    last = g.legal_texts()[0]
    g.apply_text(last)
    # the pile was empty: the 28 played cards became the pile, one drawn
    assert g.played_n == 0 and g.draw_n == 27
    rear = min(g.pos)
    arrows = [t for t in g.legal_texts() if t.startswith("^^")]
    assert arrows and all(g.pos[("red", "yellow", "green", "blue", "purple")
                                .index(t[2:])] == rear for t in arrows)
    g.undo()
    assert g.state_key() == before


def test_dead_hand_is_shown_card_by_card():
    g = physical(2)
    do(g, "stack red, stack yellow, stack green, stack blue, stack purple")
    assert g.legal_texts()[-1] == "discard"
    do(g, "discard")
    assert g.to_move() == CHANCE
    outs = dict((g.action_text(a), w) for a, w in g.chance_outcomes())
    # only '-' cards can be dead on a full start: each colour's two and *-
    assert outs == {"show red-": 2, "show yellow-": 2, "show green-": 2, "show blue-": 2,
                    "show purple-": 2, "show *-": 2}
    e = check_rejects(g, "show red+")
    assert "'-' card whose turtle is on the start" in e
    do(g, "show red-, show red-")
    assert "show red-" not in g.legal_texts()
    check_rejects(g, "show red-")
    do(g, "show *-, show blue-, show blue-")
    # five shown, five new cards drawn unseen; the same player plays
    assert g.to_move() == 0 and g.played_n == 5 and g.draw_n == 42 - 5
    assert "red-" not in g.legal_texts() and "*-red" not in g.legal_texts()


def test_discard_needs_a_hand_that_could_be_dead():
    g = physical(2, start="side_by_side")
    do(g, "red+, yellow+, green+, blue+")
    # only purple is on the start: two purple- cannot make a dead hand of five
    assert "discard" not in g.legal_texts()
    e = check_rejects(g, "discard")
    assert "no hand of five could be without a playable card" in e


def test_colours_are_told_at_the_end():
    g = new_game("race", 2, {"mode": "physical", "start": "side_by_side"}, {"fields": 2})
    do(g, "red++, *+red")
    assert g.to_move() == CHANCE and g.result() is None
    assert g.legal_texts() == ["colour 0 red", "colour 0 yellow", "colour 0 green",
                               "colour 0 blue", "colour 0 purple"]
    do(g, "colour 0 blue")
    assert "not one taken" in check_rejects(g, "colour 1 blue")
    do(g, "colour 1 red")
    assert g.to_move() == TERMINAL
    res = g.result()
    # blue waits on the start with three others: all four share place 2
    assert res["winners"] == [1] and res["scores"] == [4, 5]
    assert g.view(None)["colours"] == ["blue", "red"]


def test_open_colours_are_chosen_first():
    g = new_game("race", 2, {"mode": "physical", "open_colours": 1})
    do(g, "stack red, stack yellow, stack green, stack blue, stack purple")
    assert g.to_move() == 0 and g.legal_texts()[0] == "colour 0 red"
    do(g, "colour 0 green, colour 1 purple")
    assert g.to_move() == 0 and g.view(None)["colours"] == ["green", "purple"]


def test_battery_physical():
    run_battery("race", 4, {"mode": "physical"}, 12)
    run_battery("race", 2, {"mode": "physical", "start": "side_by_side"}, 12)
    run_battery("race", 5, {"mode": "physical", "open_colours": 1}, 8)
