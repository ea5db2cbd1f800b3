"""`turtleboard demo`, the README's main job, without a terminal (plain output)."""

from __future__ import annotations

import subprocess
import sys

import pytest

pytestmark = pytest.mark.e2e


def test_demo_plays_a_whole_game_and_saves_a_record_replay_accepts(tmp_path):
    record = tmp_path / "demo.txt"
    r = subprocess.run(
        [sys.executable, "-m", "turtleboard", "demo", "--game", "tortuga", "--seed", "3",
         "--fast", "--record", str(record)],
        capture_output=True, text=True, timeout=240, cwd=tmp_path,
    )
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
    out = r.stdout
    assert "virtual board on /dev/pts/" in out
    assert "1. " in out and "by sensors" in out  # moves recognised from the board
    assert "game over after" in out and "record saved to %s" % record in out
    assert "\x1b[" not in out  # plain text without a terminal
    r = subprocess.run([sys.executable, "-m", "turtleboard", "replay", str(record), "--json"],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert '"over": true' in r.stdout


def test_demo_refuses_an_unknown_game_clearly(tmp_path):
    r = subprocess.run([sys.executable, "-m", "turtleboard", "demo", "--game", "chess"],
                       capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert r.returncode == 2
    assert "there is no game 'chess'" in r.stderr and "Traceback" not in r.stderr


def test_demo_with_seats_the_board_and_the_host_play_people_make_their_moves(tmp_path):
    record = tmp_path / "seats.txt"
    r = subprocess.run(
        [sys.executable, "-m", "turtleboard", "demo", "--game", "tortuga", "--seed", "3",
         "--fast", "--seats", "host:best,good", "--record", str(record)],
        capture_output=True, text=True, timeout=240, cwd=tmp_path,
    )
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
    out = r.stdout
    assert "seats host:best,good" in out
    assert "by computer" in out and "by host" in out and "by sensors" not in out
    assert "game over after" in out


def test_demo_seats_refused_clearly(tmp_path):
    for args, msg in (
        (["--seats", "person"], "--seats names 1 seats for 2 players"),
        (["--seats", "person,host:genius"], "'genius' is no level"),
        (["--seats", "person,best"], "a seat is person, host or a level the board plays"),
        (["--game", "race", "--seats", "person,good,person"], "every seat is a person"),
    ):
        r = subprocess.run([sys.executable, "-m", "turtleboard", "demo", "--fast", "--game",
                            "tortuga"] + args, capture_output=True, text=True, timeout=120,
                           cwd=tmp_path)
        assert r.returncode == 2, (args, r.stdout[-1000:], r.stderr[-1000:])
        assert msg in r.stderr and "Traceback" not in r.stderr, (args, r.stderr)
