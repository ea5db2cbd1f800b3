# The host's picture of a race and the selfplay/replay commands on a race.
# Host code is CPython only: under MicroPython these tests have nothing to run.
import sys

HOST = sys.implementation.name == "cpython"


def _midgame(players=3, seed=3, actions=40):
    from turtles import new_game
    from turtles.bots import random_action
    from turtles.rng import Rng

    g = new_game("race", players)
    rng = Rng(seed)
    for _ in range(actions):
        g.push(random_action(g, rng))
    return g


def test_picture_shows_only_what_the_viewer_may_know():
    if not HOST:
        return
    from turtleboard.pictures import text_picture
    from turtleboard.pictures.race import text_picture as race_picture

    g = _midgame()
    onlooker = text_picture(g)
    assert "start" in onlooker and "lettuce" in onlooker
    # players count from 1 on every line a person reads
    assert "colours: player 1 ?, player 2 ?, player 3 ?" in onlooker and "hand of" not in onlooker
    mine = race_picture(g, player=1)
    colour = ("red", "yellow", "green", "blue", "purple")[g.colour_of[1]]
    assert "seen by player 2" in mine
    assert "colours: player 1 ?, player 2 %s, player 3 ?" % colour in mine
    from turtleboard.pictures.describe import race_card

    # the hand in words ("red 1 forward"), never the notation
    assert "hand of player 2: " + ", ".join(race_card(c) for c in g.view(1)["hand"]) in mine
    turn = g.copy()
    while turn.to_move() < 0:  # chance: draw on to a player's turn
        turn.push(turn.legal_actions()[0])
    assert "to move: player %d plays" % (turn.to_move() + 1) in text_picture(turn)
    # stacks are drawn bottom (lower line) to top (upper line)
    lines = onlooker.splitlines()
    base = [i for i, line in enumerate(lines) if line.startswith("-------")][0]
    for f, stack in enumerate(g.view(None)["track"]):
        for h, name in enumerate(stack):
            assert lines[base - 1 - h][f * 8:f * 8 + 8].strip() == name


def test_selfplay_and_replay_a_race():
    if not HOST:
        return
    import contextlib
    import io
    import os
    import tempfile

    from turtleboard.cli import main

    path = os.path.join(tempfile.mkdtemp(), "race.txt")
    assert main(["selfplay", "race", "--players", "5", "--seed", "1", "-o", path]) == 0
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["replay", path]) == 0
    text = out.getvalue()
    assert "The Turtle Race: 5 players" in text and "winners: player" in text
    from turtles.record import read_record

    res = read_record(open(path).read()).result()
    winners = ", ".join("player %d" % (w + 1) for w in res["winners"])
    assert "winners: %s\n" % winners in text  # the same numbers as the Result tag
    assert "result: winners=%s " % ",".join(str(w + 1) for w in res["winners"]) in text
    # a record with an illegal play is refused, naming its line and why
    with open(path) as f:
        lines = [line for line in f.read().splitlines() if not line.startswith("[Result")]
    first = [i for i, line in enumerate(lines)
             if not line.startswith(("[", "#", "stack", "colour", "draw"))][0]
    lines[first] = "discard"
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        assert main(["replay", path]) == 1
    assert ":%d: 'discard'" % (first + 1) in err.getvalue()
    assert "you can play a card" in err.getvalue()
