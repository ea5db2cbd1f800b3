"""`turtleboard render` and `record`-style inputs: SVG of any position."""

from __future__ import annotations

import random
import xml.etree.ElementTree as ET

from hosttools import turtleboard

from turtleboard.svg import svg_picture
from turtles import new_game

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
    assert ">raft<" in svg and "eggs " in svg


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
    rec.write_text(g.record(False))
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
