# The Mahé picture and the CLI round trip (selfplay -> replay). Host side:
# CPython only; under MicroPython (mprun.py) there is no turtleboard package
# and these tests have nothing to check.
from turtles import new_game

from check import play

try:
    from turtleboard.cli import main as cli
    from turtleboard.pictures import text_picture
except ImportError:
    cli = text_picture = None


def test_picture_shows_the_ring_stacks_turn_and_cards():
    if text_picture is None:
        return
    g = new_game("mahe", 3, {"egg_dice": 1})
    play(g, "e5 first-1a d1 roll d2 roll d3 d4 stop first-2a d1 roll d2 roll d3 d3 roll d4 stop")
    play(g, "first-3b d2 roll d3")
    text = text_picture(g)
    lines = text.splitlines()
    assert lines[0] == "On the raft: 3a, 3b"
    assert "[18] 1a,2a" in text and "[4] 1b" in text and "[14] 2b" in text
    assert "[21*]" in text and "nest: 7 eggs" in text
    assert "Turn: player 3, turtle 3b; dice: 2 + 3, moves 10 fields (5 x 2)" in text
    assert "player 3 decides: stop, roll" in text
    assert "face-up egg card: 5; 19 face down in the pile" in text
    assert "player 1 (turtle 1a, 1b): no cards = 0 eggs, 0 cards" in text
    # the fields run counter-clockwise: 1 under the raft, 11 in the far corner
    assert lines[2].startswith("[1]") and lines[6].rstrip().endswith("[11]")


def test_picture_of_a_finished_game_and_a_small_board():
    if text_picture is None:
        return
    from test_mahe import take_cards

    wishes = [[1, 3, 3, 4, 5, 6], [1, 2, 4, 4, 6], [2, 3, 4, 6], [3, 3, 4, 5, 5]]
    text = text_picture(take_cards(new_game("mahe", 4), wishes, 2))
    assert "nest: 3 (player 3, +7 eggs)" in text
    assert "player 1 (turtle 1): 1+3+3+4+5+6 = 22 eggs, 6 cards" in text
    assert "player 3 (turtle 3): 2+3+4+6 + nest 7 = 22 eggs, 4 cards" in text
    assert "Game over: player 1 wins" in text
    small = text_picture(play(new_game("mahe", 4, None, {"fields": 10, "beach": 10}), "e2 d3 stop"))
    assert "[3] 1" in small and "[10*]" in small


def test_selfplay_then_replay_and_a_typo_names_its_line():
    if cli is None:
        return
    import io
    import tempfile
    from contextlib import redirect_stderr, redirect_stdout
    from pathlib import Path

    folder = Path(tempfile.mkdtemp())
    record = folder / "game.txt"
    assert cli(["selfplay", "mahe", "--players", "4", "--seed", "1", "-o", str(record)]) == 0
    out = io.StringIO()
    with redirect_stdout(out):
        assert cli(["replay", str(record)]) == 0
    assert "Game over" in out.getvalue() and "result: winners=" in out.getvalue()
    lines = record.read_text().splitlines()
    n = next(i for i, line in enumerate(lines) if line == "roll")
    lines[n] = "rol"
    bad = folder / "typo.txt"
    bad.write_text("\n".join(lines) + "\n")
    err = io.StringIO()
    with redirect_stderr(err), redirect_stdout(io.StringIO()):
        assert cli(["replay", str(bad)]) == 1
    assert "typo.txt:%d: 'rol'" % (n + 1) in err.getvalue()
    assert "roll, stop" in err.getvalue()
