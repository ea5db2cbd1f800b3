"""`turtleboard match`: seeded bot games, seats rotated, win shares with
95% intervals; the same seed gives the same table; bad input is refused."""

from __future__ import annotations

import json

import pytest

from turtleboard.cli import main
from turtleboard.matches import Match, seat_bots, wilson


def test_seats_rotate_and_the_last_bot_fills_up():
    assert seat_bots(["best", "random"], 4, 0) == [0, 1, 1, 1]
    assert seat_bots(["best", "random"], 4, 1) == [1, 1, 1, 0]
    assert seat_bots(["a", "b", "c"], 3, 2) == [2, 0, 1]
    seats = [seat_bots(["best", "random"], 5, n).index(0) for n in range(5)]
    assert sorted(seats) == [0, 1, 2, 3, 4]  # the bot sits in every seat


def test_wilson_interval():
    low, high = wilson(0.5, 400)
    assert 0.45 < low < 0.46 and 0.54 < high < 0.55
    assert wilson(1.0, 40)[1] == 1.0 and wilson(1.0, 40)[0] > 0.9
    assert wilson(0.0, 0) == (0.0, 1.0)


def test_match_is_seeded_and_counts_every_game(capsys):
    assert main(["match", "mahe", "--bots", "good,random", "--players", "4", "--games", "12",
                 "--seed", "3", "--json"]) == 0
    first = json.loads(capsys.readouterr().out)
    assert main(["match", "mahe", "--bots", "good,random", "--players", "4", "--games", "12",
                 "--seed", "3", "--json"]) == 0
    again = json.loads(capsys.readouterr().out)
    assert first["bots"] == again["bots"]
    rows = first["bots"]
    assert [r["bot"] for r in rows] == ["good", "random"]
    assert rows[0]["fair_share"] == 0.25 and rows[1]["fair_share"] == 0.75
    assert abs(rows[0]["wins"] + rows[1]["wins"] - 12) < 1e-9  # ties shared
    assert rows[0]["ci95"][0] <= rows[0]["share"] <= rows[0]["ci95"][1]


def test_match_plain_table_and_variants(capsys):
    assert main(["match", "hatching", "--bots", "easy,random", "--games", "4"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("hatching, 2 players, 4 games, seed 1 (seats rotated)")
    assert "95% interval" in out and "ms a move on average" in out
    m = Match("tattoo", ["good", "easy"], 2, 1)
    m.play_one()
    assert m.games == 1 and m.options == {"tattoo": 2}


@pytest.mark.parametrize("args,msg", [
    (["tortuga", "--bots", "best,genius"], "no bot level 'genius'"),
    (["tortuga", "--bots", "best,good,easy", "--players", "2"], "3 bots for 2 seats"),
    (["tortuga", "--bots", "best,good,easy"], "Tortuga is for 2 to 2 players, not 3"),
    (["race", "--bots", "best", "--players", "3", "--options", "mode=physical"], "mode=dealt"),
    (["mahe", "--bots", "best", "--players", "9"], "2 to 7 players"),
    (["tortuga", "--bots", "best", "--games", "0"], "--games must be 1 or more"),
])
def test_match_refuses_bad_input(capsys, args, msg):
    assert main(["match"] + args) == 2
    err = capsys.readouterr().err
    assert msg in err, err
