"""Perft: the engine's legal-action counts from the positions in
tests/data/tortuga_positions.txt, to depth 3, against a deliberately naive
move generator written here from the rules alone.

The naive generator shares nothing with the engine but the board
description (Tortuga.default_geometry()): it walks direction sequences with
cube-coordinate arithmetic, copies the whole position for every hop, and
knows nothing of the engine's tables, tuples or phases. CPython only."""

from __future__ import annotations

import itertools
import sys
from pathlib import Path

import pytest

from turtles.tortuga import Tortuga

DATA = Path(__file__).parent / "data" / "tortuga_positions.txt"
GEO = Tortuga.default_geometry()
NAMES = [c[0] for c in GEO["cells"]]
AT = {(c[1], c[2]): c[0] for c in GEO["cells"]}
QR = {c[0]: (c[1], c[2]) for c in GEO["cells"]}
DIRS = {d[0]: (d[1], d[2]) for d in GEO["directions"]}
LETTERS = [p["letter"] for p in GEO["players"]]
POWERS = "LEIC"


def load_positions():
    # Blocks of "key: value" lines separated by blank lines; '#' comments.
    blocks, cur = [], {}
    for raw in DATA.read_text().splitlines():
        line = raw.strip()
        if line.startswith("#"):
            continue
        if not line:
            if cur:
                blocks.append(cur)
            cur = {}
            continue
        key, value = line.split(":", 1)
        cur[key.strip()] = value.strip()
    if cur:
        blocks.append(cur)
    for b in blocks:
        b["options"] = dict(
            (k, int(v)) for k, v in (o.split("=") for o in b.get("options", "").split(",") if o)
        )
        b["perft"] = [int(n) for n in b["perft"].split()]
    return blocks


POSITIONS = load_positions()


# ---- the naive generator ------------------------------------------------------
# A state: {"board": {cell: (team, power)}, "side", "phase", "pending",
#           "reserve", "turns", "winner"}; team is "S", "N" or "X" (neutral).


def naive_from_position(text):
    fields = text.split()
    marks = fields[0].replace("/", "")
    board = {}
    i = 0
    for name in NAMES:
        ch = marks[i]
        i += 1
        power = ""
        if i < len(marks) and marks[i] in POWERS:
            power = marks[i]
            i += 1
        if ch != ".":
            board[name] = ({"s": "S", "n": "N", "x": "X"}[ch], power)
    assert i == len(marks)
    state = {"board": board, "side": LETTERS.index(fields[1]), "phase": "play",
             "pending": [], "reserve": [0, 0], "turns": 1, "winner": None}
    for f in fields[2:]:
        k, v = f.split("=")
        if k == "r":
            state["reserve"] = [int(x) for x in v.split(",")]
        elif k == "n":
            state["turns"] = int(v)
        elif k == "q":
            state["pending"] = sorted(v.split(","), key=NAMES.index)
            state["phase"] = "powers"
    return state


def plus(cell, d, times=1):
    q, r = QR[cell]
    return AT.get((q + d[0] * times, r + d[1] * times))


def clone(state):
    s = dict(state)
    s["board"] = dict(state["board"])
    s["pending"] = list(state["pending"])
    s["reserve"] = list(state["reserve"])
    return s


def end_turn(s):
    s["side"] = 1 - s["side"]
    s["turns"] += 1
    s["phase"] = "powers" if s["pending"] else "play"


def naive_moves(state, hatching):
    # [(text, next state)] for the side to move.
    if state["winner"] is not None:
        return []
    me = LETTERS[state["side"]]
    player = GEO["players"][state["side"]]
    goal = GEO["players"][1 - state["side"]]["camp"]
    if state["phase"] == "giving":
        out = []
        for cell in NAMES:
            if state["board"].get(cell, ("",))[0] == me:
                s = clone(state)
                s["board"][cell] = (LETTERS[1 - state["side"]], s["board"][cell][1])
                s["side"] = 1 - s["side"]
                s["phase"] = "powers" if s["pending"] else "play"
                out.append(("give:" + cell, s))
        return out
    if state["phase"] == "powers":
        return naive_powers(state, me)
    forced, free = [], []
    forward = [DIRS[d] for d in player["forward"]]

    def chain(s, cur, seen, text, first, triggered):
        more = False
        if cur != goal:
            for d in forward:
                over, land = plus(cur, d), plus(cur, d, 2)
                if over is None or land is None or over not in s["board"] or land in s["board"]:
                    continue
                team = s["board"][over][0]
                what = "X" if team == "X" else ("F" if team == me else "E")
                if {"F", "E"} <= seen | {what}:
                    continue
                more = True
                choices = [LETTERS[0], LETTERS[1]] if what == "X" else [None]
                for choice in choices:
                    t = clone(s)
                    t["board"][land] = t["board"].pop(cur)
                    power = t["board"][over][1]
                    trig = list(triggered)
                    if what == "X":
                        t["board"][over] = (choice, power)
                    elif what == "E":
                        t["board"][over] = ("X", power)
                        if power:
                            trig.append(over)
                    suffix = "x" + land + ("=" + choice if choice else "")
                    chain(t, land, seen | {what}, text + suffix, first or what, trig)
        if not more and text.count("x"):
            t = clone(s)
            if cur == goal:
                t["winner"] = state["side"]
            else:
                t["pending"] = sorted(triggered, key=NAMES.index)
                end_turn(t)
            (forced if first == "E" else free).append((text, t))

    for cell in NAMES:
        if state["board"].get(cell, ("",))[0] != me:
            continue
        for d in forward:
            to = plus(cell, d)
            if to is not None and to not in state["board"]:
                t = clone(state)
                t["board"][to] = t["board"].pop(cell)
                if to == goal:
                    t["winner"] = state["side"]
                else:
                    end_turn(t)
                free.append((cell + "-" + to, t))
        chain(state, cell, set(), cell, None, [])
    if forced:
        return forced
    if hatching:
        free.extend(naive_placements(state, player))
    return free


def naive_placements(state, player):
    p = state["side"]
    cells = sorted(
        (c for c in player["start"] if c != player["camp"] and c not in state["board"]),
        key=NAMES.index,
    )
    mine, theirs = state["reserve"][p], state["reserve"][1 - p]
    out = []
    for k in range(1, len(cells) + 1):
        if k > mine or abs((mine - k) - theirs) > 2 or (state["turns"] == 0 and k > 2):
            continue
        for combo in itertools.combinations(cells, k):
            t = clone(state)
            for c in combo:
                t["board"][c] = (LETTERS[p], "")
            t["reserve"][p] -= k
            end_turn(t)
            out.append(("+" + ",".join(combo), t))
    return out


def naive_powers(state, me):
    p = state["side"]
    enemy = LETTERS[1 - p]
    out = []
    for cell in state["pending"]:
        power = state["board"][cell][1]
        s = clone(state)
        s["pending"].remove(cell)
        s["phase"] = "powers" if s["pending"] else "play"
        if power == "L":
            spots = [c for c in GEO["players"][p]["start"] if c not in s["board"]]
            if s["reserve"][p] and spots:
                for c in spots:
                    t = clone(s)
                    t["board"][c] = (me, "")
                    t["reserve"][p] -= 1
                    out.append(("L%s+%s" % (cell, c), t))
            else:
                out.append(("L" + cell, s))
        elif power == "E":
            del s["board"][cell]
            if any(v[0] == enemy for v in s["board"].values()):
                s["side"] = 1 - p
                s["phase"] = "giving"
            out.append(("E" + cell, s))
        elif power == "I":
            if s["reserve"][p]:
                s["board"][cell] = (me, "")
                s["reserve"][p] -= 1
            else:
                s["board"][cell] = (me, "I")
            out.append(("I" + cell, s))
        else:
            for d in DIRS.values():
                n = plus(cell, d)
                if n in s["board"] and s["board"][n][0] == enemy:
                    del s["board"][n]
            del s["board"][cell]
            out.append(("C" + cell, s))
    return out


# ---- the comparison -------------------------------------------------------------


def engine_board(game):
    out = {}
    for cell, mark in game.snapshot()["turtles"].items():
        out[cell] = (mark[0], mark[1:])
    return out


def compare(game, state, depth, hatching, path):
    # Leaf count to `depth`, checking at every node that the two generators
    # list the same actions and reach the same positions.
    naive = naive_moves(state, hatching)
    texts = game.legal_texts()
    where = " after " + " ".join(path) if path else " at the start"
    assert sorted(texts) == sorted(t for t, _ in naive), where
    assert len(set(texts)) == len(texts), where
    if depth == 1:
        return len(texts)
    total = 0
    for text, after in naive:
        game.apply_text(text)
        assert engine_board(game) == after["board"], text + where
        assert game.snapshot()["reserve"] == after["reserve"], text + where
        total += compare(game, after, depth - 1, hatching, path + [text])
        game.undo()
    return total


def start_of(block):
    if block["position"] == "start":
        from turtles import new_game

        return new_game("tortuga", 2, block["options"])
    return Tortuga.from_position(block["position"], block["options"])


def naive_start(block, game):
    if block["position"] == "start":
        return naive_from_position(game.position_text())
    return naive_from_position(block["position"])


@pytest.mark.parametrize("block", POSITIONS, ids=[b["name"] for b in POSITIONS])
def test_perft_against_naive(block):
    game = start_of(block)
    state = naive_start(block, game)
    hatching = block["options"].get("hatching", 0)
    before = game.state_key()
    for depth, expected in enumerate(block["perft"], 1):
        assert compare(game, state, depth, hatching, []) == expected, (block["name"], depth)
    assert game.state_key() == before


def test_enough_positions_and_rules_covered():
    assert len(POSITIONS) >= 9
    assert all(len(b["perft"]) == 3 for b in POSITIONS)
    assert any(b["options"].get("tattoo") for b in POSITIONS)
    assert any(b["options"].get("hatching") for b in POSITIONS)


def test_micropython_perft_table_matches_data():
    # The small perft table run under MicroPython copies these figures.
    sys.path.insert(0, str(Path(__file__).parent / "engine"))
    try:
        import test_tortuga
    finally:
        sys.path.pop(0)
    by_name = {b["name"]: b for b in POSITIONS}
    for name, options, text, counts in test_tortuga.PERFT:
        block = by_name[name]
        assert block["options"] == options
        assert (text or "start") == block["position"]
        assert block["perft"][: len(counts)] == counts


def test_text_picture():
    # The host's picture (CPython only, so it lives here): cells, marks, status.
    from turtleboard.pictures import text_picture

    block = {b["name"]: b for b in POSITIONS}["tattoo-pending"]
    pic = text_picture(start_of(block))
    assert "Tattoo Turtles (4 tattoos)" in pic
    assert "d7:." in pic and "b4:xI" in pic and "d6:S" in pic and "a4:N" in pic
    assert "north resolves tattoo powers" in pic
    assert "powers waiting: Immortality on b4, Life on d3, Exchange on d5" in pic
    lines = pic.splitlines()
    assert lines[1].strip() == "d7:." and lines[13].strip() == "d1:."
    from turtles import new_game

    g = new_game("tortuga", 2, {"hatching": 1, "hops": 1})
    g.apply_text("+c1")
    pic = text_picture(g)
    assert "Hatching Day, hop by hop" in pic and "south places turtles" in pic
    assert "0 active on the board, 8 in reserve" in pic


PAGE = DATA.with_suffix(".md")


def positions_page() -> str:
    # tests/data/tortuga_positions.md: a picture of every perft position.
    from turtleboard.pictures import text_picture

    out = [
        "# Tortuga perft positions", "",
        "Pictures of the positions in `tortuga_positions.txt` (text pictures from",
        "`turtleboard.pictures.tortuga`; `S`/`N` active turtles, `x` neutral, a",
        "second letter a tattoo). The perft counts are the numbers of leaf nodes at",
        "depth 1, 2 and 3, checked against a naive generator by",
        "`tests/test_tortuga_perft.py`, which also checks this page is current",
        "(`python tests/test_tortuga_perft.py` rewrites it).", "",
    ]
    for b in POSITIONS:
        opts = ",".join("%s=%d" % kv for kv in sorted(b["options"].items())) or "none"
        out += [
            "## " + b["name"], "", b["about"], "",
            "options: `%s`, position: `%s`, perft: %s"
            % (opts, b["position"], " ".join(map(str, b["perft"]))),
            "", "```",
        ]
        out += text_picture(start_of(b)).splitlines()
        out += ["```", ""]
    return "\n".join(out)


def test_positions_page_is_current():
    assert PAGE.read_text() == positions_page(), "run: python tests/test_tortuga_perft.py"


if __name__ == "__main__":
    PAGE.write_text(positions_page())
