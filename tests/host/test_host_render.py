"""`turtleboard render` and `record`-style inputs: SVG of any position."""

from __future__ import annotations

import random
import xml.etree.ElementTree as ET

from hosttools import turtleboard

from turtleboard.pictures.svg import svg_picture
from turtles import new_game
from turtles.record import write_record

NS = "{http://www.w3.org/2000/svg}"


def played(name, players, n, seed=1, options=None):
    g = new_game(name, players, options)
    r = random.Random(seed)
    for _ in range(n):
        if g.is_over():
            break
        g.push(r.choice(g.legal_actions()))
    return g


def shells(svg_text):
    """The turtles drawn: (fill, flipped) of every shell ellipse."""
    root = ET.fromstring(svg_text)
    out = []
    for el in root.iter(NS + "ellipse"):
        if el.get("rx") in ("15", "11") and el.get("stroke-width") == "1.5":
            out.append((el.get("fill"), el.get("stroke-dasharray") is not None))
    return out


def test_mahe_draws_every_turtle_in_its_owner_colour():
    g = played("mahe", 4, 60)
    svg = svg_picture(g)
    drawn = shells(svg)
    on_board = sum(len(s) for s in g.snapshot()["cells"].values())
    assert len(drawn) == on_board == 4
    assert {f for f, _ in drawn} == {"#d62728", "#1f77b4", "#e6c229", "#2ca02c"}
    assert ">raft<" in svg and " in the pile<" in svg


def _texts(svg_text):
    root = ET.fromstring(svg_text)
    return [(float(t.get("x")), float(t.get("y")), t.get("font-size"), "".join(t.itertext()))
            for t in root.iter(NS + "text")]


def test_mahe_nest_label_is_never_over_its_turtle():
    # A finished game: the nest's turtle sits on it; what is written beside
    # the nest keeps clear of the turtle (it read "eggs 0" over it).
    from turtleboard.pictures.svg import mahe_layout

    g = played("mahe", 2, 5000, seed=4)
    assert g.is_over() and g.snapshot()["nest"] is not None
    svg = svg_picture(g)
    nx, ny = mahe_layout(g)["nest"]
    names = {g.turtle_name(t) for t in range(g.turtles)}
    for x, y, _, text in _texts(svg):
        if text not in names:  # (a turtle's own name is on its shell)
            assert not (abs(x - nx) < 20 and abs(y - ny) < 20), (text, x, y)


def test_panel_lines_stay_inside_the_panel():
    # Long sums of egg cards wrap inside the panel (1000 px wide, panel from 680).
    from turtleboard.pictures.svg import PANEL_CHARS, wrap

    g = played("mahe", 3, 5000, seed=5)
    for x, _, size, text in _texts(svg_picture(g)):
        if x >= 680 and size == "12":
            assert len(text) <= PANEL_CHARS, text
    assert wrap("player 1: 1+1+1+2+3+3+3+4+4+5+5+5+6+6+6 = 55 eggs", 20)[1].startswith("  ")
    assert all(len(line) <= 20 for line in wrap("1+1+1+2+3+3+3+4+4+5+5+5+6+6+6+6", 20))


def test_tortuga_variants_have_their_own_title_and_a_key():
    for options, title in (({}, "Tortuga"), ({"tattoo": 4}, "Tattoo Turtles"),
                           ({"hatching": 1}, "Hatching Day")):
        svg = svg_picture(played("tortuga", 2, 30, seed=2, options=options))
        assert ">%s<" % title in svg
        assert ">Key<" in svg and "south (player 1): faces north" in svg
        assert "neutral: turned over" in svg
        assert ("L Life, E Exchange" in svg) == bool(options.get("tattoo"))


def test_tortuga_turtles_leave_the_cell_names_readable():
    from turtleboard.pictures.svg import hex_layout

    g = played("tortuga", 2, 10, seed=2)
    svg = svg_picture(g)
    pos = hex_layout(g)
    labels = {text: (x, y) for x, y, size, text in _texts(svg) if size == "9"}
    for cell in g.snapshot()["turtles"]:
        cx, cy = pos[cell]
        lx, ly = labels[cell]
        # the name sits above the turtle's shell (centre 7 below the cell's,
        # 15 long when it faces north or south)
        assert ly < cy + 7 - 15, (cell, ly, cy)


def test_race_draws_each_stack_bottom_first():
    g = played("race", 5, 40, seed=3)
    svg = svg_picture(g)
    drawn = shells(svg)
    assert len(drawn) == 5
    colours = {"red": "#d62728", "blue": "#1f77b4", "yellow": "#e6c229", "green": "#2ca02c", "purple": "#9467bd"}
    want = [colours[c] for stack in g.snapshot()["track"] for c in stack]
    assert [f for f, _ in drawn] == want


def test_tortuga_marks_flipped_turtles_and_tattoos():
    g = played("tortuga", 2, 40, seed=2, options={"tattoo": 4})
    turtles = g.snapshot()["turtles"]
    svg = svg_picture(g)
    drawn = shells(svg)
    assert len(drawn) == len(turtles)
    flipped = sum(1 for m in turtles.values() if m.startswith("X"))
    assert sum(1 for _, f in drawn if f) == flipped
    letters = [m[1] for m in turtles.values() if len(m) > 1]
    root = ET.fromstring(svg)
    texts = [t.text for t in root.iter(NS + "text")]
    for letter in letters:
        assert letter in texts


def test_render_command_at_a_position_and_bad_input(tmp_path):
    g = played("mahe", 3, 50)
    rec = tmp_path / "g.rec"
    rec.write_text(write_record(g, False))
    out = tmp_path / "a.svg"
    r = turtleboard("render", rec, "--at", "10", "-o", out, "--player", "2")
    assert r.returncode == 0, r.stderr
    assert "after 10 of 50" in r.stdout
    root = ET.fromstring(out.read_text())
    assert any("after 10 actions" in (t.text or "") for t in root.iter(NS + "text"))
    # the picture never lists chance outcomes: they would show what a pile holds
    assert not any("d1, d2" in (t.text or "") for t in root.iter(NS + "text"))
    assert any("seen by player 2" in (t.text or "") for t in root.iter(NS + "text"))
    r = turtleboard("render", rec, "--at", "99")
    assert r.returncode == 2 and "outside the record: it has actions 0..50" in r.stderr
    r = turtleboard("render", rec, "--player", "9")
    assert r.returncode == 2 and "--player must be 1..3" in r.stderr
    r = turtleboard("render", tmp_path / "none.rec")
    assert r.returncode == 2 and "no such record" in r.stderr
    bad = tmp_path / "bad.rec"
    bad.write_text('[Game "mahe"]\n[Players "3"]\nfly\n')
    r = turtleboard("render", bad)
    assert r.returncode == 2 and "bad.rec:3: 'fly'" in r.stderr and "Traceback" not in r.stderr


def test_a_picture_never_shows_what_chance_may_give(tmp_path):
    # At a draw in a dealt race the legal outcomes are the cards left in the
    # pile; an onlooker's picture must not list them.
    from turtles import CHANCE

    g = played("race", 4, 60)
    while g.to_move() != CHANCE or not g.legal_texts()[0].startswith("draw"):
        g.undo()
    secret = g.legal_texts()
    texts = " | ".join(t.text or "" for t in ET.fromstring(svg_picture(g)).iter(NS + "text"))
    assert "a card is drawn" in texts
    assert not [s for s in secret if s in texts]


def test_the_picture_says_whose_view_it_is_as_render_help_does():
    g = played("mahe", 4, 200, seed=3)
    everything = svg_picture(g)
    assert "everything shown, hidden cards too" in everything and "onlooker" not in everything
    assert "face down" not in everything  # every player's egg cards by value
    mine = svg_picture(g, 0)
    assert "seen by player 1" in mine
    r = turtleboard("render", "--help")
    assert "default: everything" in r.stdout


def test_mahe_says_how_far_the_turtle_moves():
    # Two dice move the sum x 2, three the sum x 3: the panel and the text
    # picture say the distance, not only the sum.
    from turtleboard.pictures.describe import panel_lines
    from turtleboard.pictures.mahe import text_picture

    g = new_game("mahe", 2)
    for t in ("e3", "first-1a", "d3"):
        g.apply_text(t)
    assert "turtle 1a: die 3, moves 3 fields" in panel_lines(g, None)
    for t in ("roll", "d1"):
        g.apply_text(t)
    lines = panel_lines(g, None)
    assert "turtle 1a: dice 3 + 1, moves 8 fields (4 x 2)" in lines, lines
    assert "dice: 3 + 1, moves 8 fields (4 x 2)" in text_picture(g)
    g.apply_text("stop")
    assert g.view(None)["cells"]["8"] == ["1a"]  # as said
