# Tortuga, Tattoo Turtles and Hatching Day: every rule, bad input, the
# random battery, hop-by-hop play against whole-chain play, perft counts.
# Runs under pytest and under MicroPython (tests/engine/mprun.py).
from turtles import DOWN, EMPTY, TERMINAL, UP, BadSetup, IllegalAction, new_game
from turtles.bots import random_action
from turtles.jsontext import dumps
from turtles.record import read_record, write_record
from turtles.rng import Rng
from turtles.tortuga import (
    ENEMY,
    JUMP,
    NEUTRAL,
    NEXT_KIND,
    PLACE,
    STEP,
    Tortuga,
    placement_list,
)

from battery import check_bad_notation, check_rejects, run_battery
from check import play, raises

# Seeded random games compared byte for byte between the two interpreters.
TRANSCRIPTS = [
    ("tortuga", 2, "", 70),
    ("tortuga", 2, "tattoo=4", 60),
    ("tortuga", 2, "hatching=1", 50),
    ("tortuga", 2, "hops=1", 10),
    ("tortuga", 2, "hops=1,tattoo=4", 10),
    ("tortuga", 2, "hatching=1,hops=1", 10),
]

NAMES = Tortuga(2).cells()


def pos(marks, side="S", extra=""):
    # A position from "s:d2,d3 n:d4 x:d5 nL:c6" (team s/n/x, tattoo letter).
    cells = ["."] * len(NAMES)
    for group in marks.split():
        mark, where = group.split(":")
        for c in where.split(","):
            cells[NAMES.index(c)] = mark
    out = ""
    for i in range(len(NAMES)):
        if i and NAMES[i][0] != NAMES[i - 1][0]:
            out += "/"
        out += cells[i]
    return (out + " " + side + " " + extra).strip()


def game_at(marks, side="S", extra="", **options):
    return Tortuga.from_position(pos(marks, side, extra), options)


def legal(game):
    return sorted(game.legal_texts())


def at(game, cell):
    # The turtle on a cell as the snapshot shows it ("" when empty).
    return game.snapshot()["turtles"].get(cell, "")


def perft(game, depth):
    if depth == 0:
        return 1
    actions = game.legal_actions()
    if depth == 1:
        return len(actions)
    n = 0
    for a in list(actions):
        game.push(a)
        n += perft(game, depth - 1)
        game.undo()
    return n


# ---- the board -------------------------------------------------------------


def test_board_cells_and_camps():
    g = new_game("tortuga", 2)
    assert len(g.cells()) == 37 and g.cells()[:5] == ["a1", "a2", "a3", "a4", "b1"]
    assert g.cells()[15:22] == ["d1", "d2", "d3", "d4", "d5", "d6", "d7"]
    geo = Tortuga.default_geometry()
    assert geo["players"][0]["camp"] == "d1" and geo["players"][1]["camp"] == "d7"
    assert sorted(geo["players"][0]["start"]) == ["a1", "b1", "c1", "d1", "d2", "e1", "f1", "g1"]
    assert dumps(geo).startswith('{"board":"tortuga-37"')
    snap = g.snapshot()["turtles"]
    assert sorted(c for c in snap if snap[c] == "N") == ["a4", "b5", "c6", "d6", "d7", "e6", "f5", "g4"]
    assert g.image().count(UP) == 16 and g.image().count(EMPTY) == 21


def test_start_moves():
    g = new_game("tortuga", 2)
    assert g.legal_texts() == [
        "a1-a2", "a1-b2", "b1-b2", "b1-c2", "c1-c2", "c1xe2", "d1xd3", "d2-c2",
        "d2-d3", "d2-e2", "e1xc2", "e1-e2", "f1-e2", "f1-f2", "g1-f2", "g1-g2",
    ]
    assert g.to_move() == 0
    g.apply_text("d2-d3")
    assert g.to_move() == 1 and "d6-d5" in g.legal_texts()


def test_games_on_one_board_file_share_its_tables():
    # The device starts every game with its board file's geometry (the same
    # dict): its tables are built once. Another dict gets its own.
    geo = Tortuga.default_geometry()
    a = new_game("tortuga", 2, {}, geo)
    b = new_game("tortuga", 2, {"hops": 1}, geo)
    assert a.geo is b.geo
    c = new_game("tortuga", 2, {}, Tortuga.default_geometry())
    assert c.geo is not a.geo and c.image() == a.image()
    a.push(a.legal_actions()[0])
    assert b.image() == c.image() != a.image()  # the games are apart


def test_geometry_from_data():
    # A smaller hexagon (3 cells a side) described as data plays the same rules.
    cells = []
    for q in range(-2, 3):
        top = min(2, 2 - q)
        for r in range(top, max(-2, -2 - q) - 1, -1):
            cells.append(["abcde"[q + 2] + str(top - r + 1), q, r, -q - r])
    geo = {
        "cells": cells,
        "directions": Tortuga.default_geometry()["directions"],
        "players": [
            {"name": "south", "letter": "S", "forward": ["NW", "N", "NE"],
             "start": ["a1", "b1", "c1", "d1", "e1", "c2"], "camp": "c1"},
            {"name": "north", "letter": "N", "forward": ["SW", "S", "SE"],
             "start": ["a3", "b4", "c5", "d4", "e3", "c4"], "camp": "c5"},
        ],
    }
    g = new_game("tortuga", 2, {}, geo)
    assert len(g.cells()) == 19 and g.image().count(UP) == 12
    assert "c2-c3" in g.legal_texts()
    from turtles.bots import play_random
    from turtles.rng import Rng

    play_random(g, Rng(3))
    assert read_record(write_record(g), geo).state_key() == g.state_key()
    bad = dict(geo)
    bad["players"] = [geo["players"][0], dict(geo["players"][1], camp="z9")]
    assert "z9" in str(raises(BadSetup, new_game, "tortuga", 2, {}, bad))
    back = dict(geo)
    back["players"] = [dict(geo["players"][0], forward=["N", "S"]), geo["players"][1]]
    assert "forward" in str(raises(BadSetup, new_game, "tortuga", 2, {}, back))


# ---- Tortuga ---------------------------------------------------------------


def test_steps_only_forward():
    g = game_at("s:d4 n:a4")
    assert legal(g) == ["d4-c4", "d4-d5", "d4-e4"]
    check_rejects(g, "d4-d3")
    check_rejects(g, "a4-a3")  # not south's turtle


def test_enemy_jump_is_compulsory_and_flips():
    g = game_at("s:d2,a1 n:d3,a4")
    assert legal(g) == ["d2xd4"]
    msg = check_rejects(g, "a1-a2")
    assert "compulsory" in msg, msg
    g.apply_text("d2xd4")
    assert at(g, "d3") == "X" and g.image()[NAMES.index("d3")] == DOWN
    assert g.to_move() == 1


def test_friend_and_neutral_jumps_are_optional():
    g = game_at("s:d2,d3 n:a4")
    assert "d2xd4" in legal(g) and "d2-c2" in legal(g) and "d3-d4" in legal(g)
    g = game_at("s:d2 x:d3 n:a4")
    assert legal(g) == ["d2-c2", "d2-e2", "d2xd4=N", "d2xd4=S"]
    g.apply_text("d2xd4=N")
    assert at(g, "d3") == "N" and at(g, "d4") == "S"
    # a friend jumped stays as it was
    g = game_at("s:d2,d3 n:a4")
    g.apply_text("d2xd4")
    assert at(g, "d3") == "S"


def test_enemy_first_beats_neutral_first():
    # A chain starting over a neutral is optional even if it later meets an
    # enemy; one starting over an enemy is compulsory.
    g = game_at("s:d2,b2 x:d3 n:d5,c3")
    assert legal(g) == ["b2xd4xd6"]


def test_chain_must_go_on():
    g = game_at("s:d2 n:d3,d5")
    assert legal(g) == ["d2xd4xd6"]
    msg = check_rejects(g, "d2xd4")
    assert "must go on" in msg and "d2xd4xd6" in msg, msg
    g.apply_text("d2xd4xd6")
    assert at(g, "d3") == "X" and at(g, "d5") == "X" and at(g, "d6") == "S"


def test_free_choice_among_continuations():
    # Not "longest capture": the short branch is as legal as the long one.
    g = game_at("s:d2 n:d3,c4,e4,c5")
    assert legal(g) == ["d2xd4xb4xd6", "d2xd4xf4"]


def test_no_mixing_friend_and_enemy():
    g = game_at("s:d2,d3 n:d5")
    assert "d2xd4" in legal(g) and "d2xd4xd6" not in legal(g)
    check_rejects(g, "d2xd4xd6")
    g = game_at("s:d2,d5 n:d3")
    assert legal(g) == ["d2xd4"]


def test_neutral_mixes_with_either():
    g = game_at("s:d2 x:d3 n:d5")
    assert legal(g) == ["d2-c2", "d2-e2", "d2xd4=Nxd6", "d2xd4=Sxd6"]
    g.apply_text("d2xd4=Nxd6")
    assert at(g, "d3") == "N" and at(g, "d5") == "X" and at(g, "d6") == "S"
    g = game_at("s:d2,d5 x:d3 n:a4")
    assert "d2xd4=Sxd6" in legal(g)
    msg = check_rejects(g, "d2xd4xd6")
    assert "neutral" in msg and "=S" in msg, msg


def test_reaching_the_enemy_camp_wins():
    g = game_at("s:d6 n:a4")
    g.apply_text("d6-d7")
    assert g.to_move() == TERMINAL and g.result()["winners"] == [0]
    assert g.legal_actions() == []
    g = game_at("s:d3 n:d4,d6")
    g.apply_text("d3xd5xd7")
    assert g.result() == {"scores": [1, 0], "ranking": [[0], [1]], "winners": [0]}
    g = game_at("n:d2 s:a4", "N")
    assert "d2-d1" in legal(g)
    g.apply_text("d2-d1")
    assert g.result()["winners"] == [1]


def test_no_legal_move_loses():
    g = game_at("s:a4 n:b5,c6")
    assert g.legal_actions() == [] and g.to_move() == TERMINAL
    assert g.result()["winners"] == [1]
    # neutral turtles cannot move: a side with only neutrals loses
    g = game_at("x:d3,d4 n:d7", "S")
    assert g.to_move() == TERMINAL and g.result()["winners"] == [1]


def test_turn_limit_draw():
    g = game_at("s:d2 n:d6", "S", "n=99", turn_limit=100)
    g.apply_text("d2-d3")
    assert g.result() == {"scores": [1, 1], "ranking": [[0, 1]], "winners": [0, 1]}


def test_bad_notation():
    g = new_game("tortuga", 2)
    for text in ["", "z9-a1", "d2", "hello", "d2-d3-d4", "+", "=Q", "give:", "Lz9"]:
        check_bad_notation(g, text)
    assert "not a cell" in check_bad_notation(g, "d2-h9")
    assert "+c1,e1" in check_bad_notation(g, "nonsense")


def test_wrong_actions_rejected_state_unchanged():
    g = new_game("tortuga", 2)
    assert "no team choice" in check_rejects(g, "=S")
    assert "power" in check_rejects(g, "Ld4+c1")
    assert "power" in check_rejects(g, "give:d6")
    check_rejects(g, "d6-d5")  # north's turtle, south to move
    check_rejects(g, "d2xd4")  # over nothing
    check_rejects(g, "done")
    check_rejects(g, "+c2")  # no placing outside Hatching Day
    raises(IllegalAction, g.apply_text, "L@c1")


def test_position_round_trip_and_copy():
    text = pos("s:d2,c3 nL:d3 x:e4 n:a4", "N", "r=1,2 n=7")
    g = Tortuga.from_position(text, {"tattoo": 4})
    assert g.position_text() == text
    assert g.copy().state_key() == g.state_key()
    raises(BadSetup, Tortuga.from_position, "s.. S")
    raises(BadSetup, Tortuga.from_position, pos("s:d2", "Q"))
    raises(BadSetup, Tortuga.from_position, pos("s:d2 nL:d3", "N", "q=d3"))  # d3 not neutral
    raises(BadSetup, Tortuga.from_position, pos("s:d2", "S", "r=99,0"))


# ---- hop by hop ------------------------------------------------------------


def test_hops_team_choice_and_continuation():
    g = game_at("s:d2 x:d3 n:d5", hops=1)
    assert legal(g) == ["d2-c2", "d2-e2", "d2xd4"]
    g.apply_text("d2xd4")
    assert g.to_move() == 0 and legal(g) == ["=N", "=S"]
    assert g.image()[NAMES.index("d3")] == UP  # flipped back on its feet
    check_rejects(g, "d4xd6")
    g.apply_text("=N")
    assert legal(g) == ["d4xd6"] and at(g, "d3") == "N"
    g.apply_text("d4xd6")
    assert g.to_move() == 1 and at(g, "d5") == "X"


def test_hops_cannot_stop_early():
    g = game_at("s:d2,a1 n:d3,d5", hops=1)
    g.apply_text("d2xd4")
    assert g.to_move() == 0 and legal(g) == ["d4xd6"]
    msg = check_rejects(g, "a1-a2")
    assert "must go on" in msg, msg
    check_rejects(g, "done")
    check_rejects(g, "=S")
    check_bad_notation(g, "d2xd4xd6")


def _turn_ends_whole(game):
    # State hashes after every whole action of the side to move.
    out = []
    for a in list(game.legal_actions()):
        game.push(a)
        out.append(game.state_hash())
        game.undo()
    return sorted(out)


def _turn_ends_hops(game, who, out, first=True):
    # State hashes where a whole action of `who` is complete, over every hop
    # sequence: the move passed on, or back in phase play (1) or powers (2).
    if not first and (game.to_move() != who or game.phase in (1, 2)):
        if game.state_hash() not in out:
            out.append(game.state_hash())
        return out
    for a in list(game.legal_actions()):
        game.push(a)
        _turn_ends_hops(game, who, out, False)
        game.undo()
    return out


def _compare_modes(marks, side="S", extra="", **options):
    whole = Tortuga.from_position(pos(marks, side, extra), options)
    opts = dict(options)
    opts["hops"] = 1
    hop = Tortuga.from_position(pos(marks, side, extra), opts)
    a = _turn_ends_whole(whole)
    b = sorted(_turn_ends_hops(hop, hop.to_move(), []))
    assert sorted(set(a)) == b, (marks, len(a), len(b))
    return len(b)


def test_hops_and_whole_chains_agree():
    assert _compare_modes("s:d2 x:d3 n:d5") == 4
    assert _compare_modes("s:d2 n:d3,c4,e4,c5") == 2
    assert _compare_modes("s:c1,d2,e1 x:d3,c3,e3 n:d5,c5,e5,b4,f4") > 10
    assert _compare_modes("s:d2 nL:d3 nC:d5 n:a4", "S", "r=2,2", tattoo=4) == 1
    assert _compare_modes("", "S", "r=8,8 n=0", hatching=1) == 28
    assert _compare_modes("s:c1,e1", "N", "r=6,8", hatching=1) == 98


def test_hops_and_whole_chains_agree_along_random_games():
    from turtles.bots import random_action
    from turtles.rng import Rng

    rng = Rng(11)
    for options in [{}, {}, {"tattoo": 4}, {"tattoo": 4}, {"hatching": 1}]:
        g = new_game("tortuga", 2, options)
        while g.to_move() != TERMINAL:
            if g.phase != 0:  # 0: tattoo set-up, which has no position text
                text = g.position_text()
                whole = Tortuga.from_position(text, options)
                opts = dict(options)
                opts["hops"] = 1
                hop = Tortuga.from_position(text, opts)
                assert sorted(set(_turn_ends_whole(whole))) == sorted(
                    _turn_ends_hops(hop, hop.to_move(), [])
                ), text
            g.push(random_action(g, rng))


# ---- Tattoo Turtles --------------------------------------------------------


def test_tattoo_setup():
    g = new_game("tortuga", 2, {"tattoo": 4})
    assert legal(g) == sorted("L@" + c for c in ["a1", "b1", "c1", "d1", "e1", "f1", "g1", "d2"])
    play(g, "L@c1 E@d2 I@e1 C@g1")
    assert g.to_move() == 1 and "L@d6" in legal(g)
    check_rejects(g, "L@c1")
    play(g, "L@a4 E@d6 I@d7 C@g4")
    assert g.snapshot()["reserve"] == [4, 4]
    assert at(g, "c1") == "SL" and at(g, "g4") == "NC"
    assert len(g.legal_actions()) == 16 and g.image().count(UP) == 16
    g = new_game("tortuga", 2, {"tattoo": 2})
    play(g, "L@c1 E@d2 L@a4")
    assert legal(g)[0].startswith("E@")
    raises(BadSetup, new_game, "tortuga", 2, {"tattoo": 1, "hatching": 1})


def test_life():
    g = game_at("s:d2 nL:d3 n:a4,d6", "S", "r=0,1", tattoo=4)
    g.apply_text("d2xd4")
    assert g.to_move() == 1 and g.snapshot()["pending"] == ["d3"]
    assert legal(g) == ["Ld3+b5", "Ld3+c6", "Ld3+d7", "Ld3+e6", "Ld3+f5", "Ld3+g4"]
    msg = check_rejects(g, "a4-a3")
    assert "power" in msg, msg
    g.apply_text("Ld3+d7")
    assert at(g, "d7") == "N" and at(g, "d3") == "XL" and g.snapshot()["reserve"] == [0, 0]
    assert g.snapshot()["phase"] == "play" and g.to_move() == 1
    # with an empty reserve, Life does nothing (but must still be resolved)
    g = game_at("s:d2 nL:d3 n:a4", "S", "r=0,0", tattoo=4)
    g.apply_text("d2xd4")
    assert legal(g) == ["Ld3"]


def test_exchange():
    g = game_at("s:d2,a1 nE:d3 n:a4", "S", "r=4,4", tattoo=4)
    g.apply_text("d2xd4")
    assert legal(g) == ["Ed3"]
    g.apply_text("Ed3")
    assert at(g, "d3") == "" and g.to_move() == 0 and legal(g) == ["give:a1", "give:d4"]
    check_rejects(g, "give:a4")
    assert "give" in check_rejects(g, "Ed3")  # the power is spent; south must give
    g.apply_text("give:a1")
    assert at(g, "a1") == "N" and g.to_move() == 1 and g.snapshot()["phase"] == "play"


def test_immortality():
    g = game_at("s:d2 nI:d3 n:a4", "S", "r=4,4", tattoo=4)
    play(g, "d2xd4 Id3")
    assert at(g, "d3") == "N" and g.snapshot()["reserve"] == [4, 3]
    g = game_at("s:d2 nI:d3 n:a4", "S", "r=4,0", tattoo=4)
    play(g, "d2xd4 Id3")
    assert at(g, "d3") == "NI" and g.snapshot()["reserve"] == [4, 0]


def test_contamination():
    g = game_at("s:d2,c3,e2,a1 x:e3 nC:d3 n:a4", "S", "r=4,4", tattoo=4)
    g.apply_text("d2xd4")
    assert legal(g) == ["Cd3"]
    g.apply_text("Cd3")
    for c in ["d3", "d4", "c3", "e2"]:
        assert at(g, c) == "", c
    assert at(g, "e3") == "X" and at(g, "a1") == "S"


def test_powers_in_the_owners_order():
    g = game_at("s:d2 nL:d3 nC:d5 n:a4", "S", "r=2,2", tattoo=4)
    assert "power" in check_rejects(g, "Cd5")  # nothing has triggered yet
    g.apply_text("d2xd4xd6")
    assert g.snapshot()["pending"] == ["d3", "d5"]
    assert "Cd5" in legal(g) and "Ld3+d7" in legal(g)
    g.apply_text("Cd5")  # removes the jumper on d6 first
    assert at(g, "d6") == "" and legal(g)[0].startswith("Ld3+")
    g.apply_text("Ld3+d6")
    assert g.snapshot()["pending"] == [] and g.to_move() == 1
    assert "d6-d5" in legal(g)


def test_only_an_opponents_jump_triggers():
    g = game_at("s:d2,a1 sL:d3 n:a4", "S", "r=4,4", tattoo=4)
    g.apply_text("d2xd4")
    assert at(g, "d3") == "SL" and g.snapshot()["pending"] == []
    # a neutral tattoo jumped and reactivated does not trigger either
    g = game_at("s:d2 xL:d3 n:a4", "S", "r=4,4", tattoo=4)
    g.apply_text("d2xd4=N")
    assert at(g, "d3") == "NL" and g.snapshot()["phase"] == "play"


# ---- Hatching Day ----------------------------------------------------------


def test_hatching_first_turns():
    g = new_game("tortuga", 2, {"hatching": 1})
    assert g.image().count(EMPTY) == 37 and g.snapshot()["reserve"] == [8, 8]
    ls = g.legal_texts()
    assert len(ls) == 28 and "+d1" not in ls and "+c1,e1" in ls and "+c1,e1,f1" not in ls
    g.apply_text("+e1,c1")  # any order parses
    assert g.to_move() == 1 and len(g.legal_actions()) == 98
    check_rejects(g, "+a4,b5,c6,d6,e6")  # 5 would leave the reserves 6 and 3
    g.apply_text("+a4,b5,c6,d6")
    assert g.snapshot()["reserve"] == [6, 4]
    # south may place 1..4 (reserve 6 vs 4) or move
    assert "+a1,b1,d2,f1" in g.legal_texts() and "+a1,b1,d2,f1,g1" not in g.legal_texts()
    assert "c1-c2" in g.legal_texts()


def test_hatching_compulsory_jump_before_placing():
    g = game_at("s:d3 n:d4", "S", "r=4,4", hatching=1)
    assert legal(g) == ["d3xd5"]
    assert "compulsory" in check_rejects(g, "+c1")


def test_hatching_reserve_gap():
    g = game_at("s:d3 n:a4", "S", "r=5,7", hatching=1)
    assert "+a1" not in legal(g)  # 4 vs 7 would differ by 3
    g = game_at("n:a4", "S", "r=5,7", hatching=1)
    assert g.to_move() == TERMINAL and g.result()["winners"] == [1]


def test_hatching_hop_by_hop_placement():
    g = new_game("tortuga", 2, {"hatching": 1, "hops": 1})
    assert "+c1" in legal(g) and "done" not in legal(g)
    g.apply_text("+c1")
    assert g.to_move() == 0 and "done" in legal(g) and "+c1" not in legal(g)
    check_rejects(g, "c1-c2")
    check_bad_notation(g, "+e1,f1")
    g.apply_text("+e1")  # the second and last turtle allowed: the turn ends
    assert g.to_move() == 1
    play(g, "+a4 done")
    assert g.to_move() == 0 and g.snapshot()["reserve"] == [6, 7]


def all_placements(cells, k):
    # The generic builder the engine had (the reference): every non-empty
    # subset of at most k of `cells` (in order), a subset before those it
    # begins. From the last cell back: `made` holds the actions on
    # cells[m + 1:]; those on cells[m:] are (PLACE, cells[m]), then
    # cells[m] put before each of them that has room, then them.
    made = []
    m = len(cells) - 1
    while m >= 0:
        first = (PLACE, cells[m])
        made = [first] + [first + t[1:] for t in made if len(t) <= k] + made
        m -= 1
    return made


def test_placement_lists_as_the_generic_builder_makes_them():
    # placement_list() builds them depth first: the same actions in the
    # same order as the generic builder, for every set of free cells.
    hatch = [0, 4, 9, 15, 22, 28, 33]
    for mask in range(1, 128):
        cells = [hatch[j] for j in range(7) if mask >> j & 1]
        for k in range(1, len(cells) + 2):
            assert placement_list(cells, k) == all_placements(cells, k), (cells, k)
    assert all_placements([1, 2, 3], 2) == [
        (PLACE, 1), (PLACE, 1, 2), (PLACE, 1, 3), (PLACE, 2), (PLACE, 2, 3), (PLACE, 3)]
    assert placement_list([1, 2, 3], 3)[:4] == [(PLACE, 1), (PLACE, 1, 2), (PLACE, 1, 2, 3), (PLACE, 1, 3)]


def _turn_moves_walked(g):
    # Steps and jumps as the engine lists them, every chain walked by
    # _chain() from its first hop (the engine adds one-hop chains itself).
    p = g.side
    b = g.board
    me = p + 1
    jt = g.geo.jumps[p]
    nk = NEXT_KIND[p]
    out = []
    forced = []
    for i in range(len(b)):
        if b[i] != me:
            continue
        for v in jt[i]:
            over = v & 255
            land = v >> 8
            if not b[over]:
                out.append((STEP, i, over))
            elif not b[land]:
                kind = nk[b[over]]
                target = forced if kind == ENEMY else out
                for team in ((0, 1) if b[over] == NEUTRAL else (-1,)):
                    g._chain(b, jt, g.geo.goal[p], nk, land, kind, (JUMP, i, land, team), target)
    return forced or out


def test_one_hop_chains_as_the_chain_walk_lists_them():
    # Over the play positions of seeded games: the same lists, in order.
    for options, seed in (({}, 1), ({"tattoo": 4}, 2), ({"hatching": 1}, 3)):
        rng = Rng(seed)
        seen = 0
        for _ in range(4):
            g = new_game("tortuga", 2, options)
            while not g.is_over():
                if g.phase == 1:
                    g._kept_placements = [None, None]
                    moves = [a for a in g._generate() if a[0] != PLACE]
                    assert moves == _turn_moves_walked(g), g.position_text()
                    seen += 1
                g.push(random_action(g, rng))
        assert seen > 50


# ---- whole games -----------------------------------------------------------


def test_battery_plain():
    run_battery("tortuga", 2, {}, 40, seed=1)


def test_battery_tattoo():
    run_battery("tortuga", 2, {"tattoo": 4}, 25, seed=2)
    run_battery("tortuga", 2, {"tattoo": 2}, 10, seed=3)


def test_battery_hatching():
    run_battery("tortuga", 2, {"hatching": 1}, 30, seed=4)


def test_battery_hops():
    run_battery("tortuga", 2, {"hops": 1}, 15, seed=5)
    run_battery("tortuga", 2, {"hops": 1, "tattoo": 4}, 10, seed=6)
    run_battery("tortuga", 2, {"hops": 1, "hatching": 1}, 10, seed=7)


def test_record_replays():
    g = new_game("tortuga", 2, {"tattoo": 4})
    from turtles.bots import play_random
    from turtles.rng import Rng

    play_random(g, Rng(9))
    again = read_record(write_record(g))
    assert again.state_hash() == g.state_hash() and again.result() == g.result()


# Perft counts (from tests/data/tortuga_positions.txt, checked there against
# a naive generator under CPython): (name, options, position, [depth 1, 2]).
PERFT = [
    ("start", {}, None, [16, 256, 4510]),
    ("hatching-start", {"hatching": 1}, None, [28, 2499]),
    ("neutrals", {}, "...n/..xn./.s.x.n/.sx.n../...x../...n./s... S n=10", [12, 128, 1049]),
    ("no-move", {}, "ss../sns../.ss.../.s...../..s.../..s../s.n. S n=12", [20, 26, 193]),
    ("tattoo-pending", {"tattoo": 4},
     "s..n/...xI./..s.../..xLsxEs./..sxC../....n/...n N r=3,1 n=11 q=b4,d3,d5,e4", [7, 26, 88]),
]


def test_perft_small():
    for name, options, text, counts in PERFT:
        g = Tortuga.from_position(text, options) if text else new_game("tortuga", 2, options)
        for depth in range(1, len(counts) + 1):
            assert perft(g, depth) == counts[depth - 1], (name, depth)


def test_view_is_plain_data():
    g = game_at("s:d2 nL:d3 x:e4 n:a4", "S", "r=1,2", tattoo=4)
    assert dumps(g.view(0)) == dumps(g.view(None)) == (
        '{"game":"tortuga","jumper":null,"pending":[],"phase":"play","reserve":[1,2],'
        '"to_move":0,"turns":1,"turtles":{"a4":"N","d2":"S","d3":"NL","e4":"X"},"winners":null}'
    )


def test_the_state_hash_is_fnv_of_the_state_key_in_every_variant():
    # Tortuga hashes its cells from their values without writing their text:
    # the same number as FNV-1a of state_key(), on both interpreters.
    from turtles.bots import random_action
    from turtles.game import fnv1a32
    from turtles.rng import Rng

    for options, seed in (({}, 1), ({"hops": 1}, 2), ({"tattoo": 4}, 3), ({"hops": 1, "tattoo": 2}, 4),
                          ({"hatching": 1}, 5), ({"hops": 1, "hatching": 1}, 6)):
        game = new_game("tortuga", 2, options)
        rng = Rng(seed)
        while True:
            assert game.state_hash() == fnv1a32(game.state_key()), (options, len(game.history))
            if game.is_over() or len(game.history) >= 80:
                break
            game.push(random_action(game, rng))
