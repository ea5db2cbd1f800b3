"""`turtleboard demo`, the README's main job, without a terminal (plain output)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

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
    import os

    temp = tmp_path / "tmp"
    temp.mkdir()
    for args, msg in (
        (["--seats", "person"], "--seats names 1 seats for 2 players"),
        (["--seats", "person,host:genius"], "'genius' is no level"),
        (["--seats", "person,best"], "a seat is person, host or a level the board plays"),
        (["--game", "race", "--seats", "person,good,person"], "every seat is a person"),
    ):
        r = subprocess.run([sys.executable, "-m", "turtleboard", "demo", "--fast", "--game",
                            "tortuga"] + args, capture_output=True, text=True, timeout=120,
                           cwd=tmp_path, env=dict(os.environ, TMPDIR=str(temp)))
        assert r.returncode == 2, (args, r.stdout[-1000:], r.stderr[-1000:])
        assert msg in r.stderr and "Traceback" not in r.stderr, (args, r.stderr)
        # a game the board refused leaves nothing to look at: no folder is kept
        assert list(temp.iterdir()) == [], args


def _start_demo(tmp_path, *more, record=None):
    """A demo started, in the middle of its game: (process, its folder)."""
    import os

    temp = tmp_path / "tmp"
    temp.mkdir(exist_ok=True)
    env = dict(os.environ, TMPDIR=str(temp))
    p = subprocess.Popen([sys.executable, "-m", "turtleboard", "demo", "--fast", "--plain",
                          "--no-web", "--record", str(record or tmp_path / "r.txt"), *more],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                         cwd=tmp_path)
    for line in p.stdout:
        if line.startswith("new game:"):
            break
    if "--dir" in more:
        return p, Path(more[more.index("--dir") + 1])
    folders = list(temp.glob("turtleboard-demo-*"))
    assert len(folders) == 1
    return p, folders[0]


@pytest.mark.parametrize("sig", ["SIGINT", "SIGHUP", "SIGTERM"])
def test_an_interrupted_demo_leaves_no_folder_behind(tmp_path, sig):
    import signal

    p, folder = _start_demo(tmp_path)
    p.send_signal(getattr(signal, sig))
    out, err = p.communicate(timeout=60)
    assert p.returncode == 130, err
    assert "interrupted" in err and "Traceback" not in err
    assert not folder.exists()


def test_a_failed_demo_removes_its_folder_and_says_how_to_keep_one(tmp_path):
    import os
    import signal

    p, folder = _start_demo(tmp_path)
    pid = int((folder / "pid").read_text())
    os.kill(pid, signal.SIGSTOP)  # the virtual board stops answering
    try:
        out, err = p.communicate(timeout=120)
    finally:
        try:
            os.kill(pid, signal.SIGCONT)
        except ProcessLookupError:
            pass  # the demo stopped it for good
    assert p.returncode == 2, err
    assert "the demo stopped: the board did not" in err
    assert "give it a folder to keep: --dir D" in err
    assert not folder.exists()  # nothing left in the temporary folder


def test_a_second_kill_does_not_cut_the_clean_up_short(tmp_path):
    # `make demo` stopped with kill: make passes its own SIGTERM on to the
    # demo, which already got one; the first starts the clean-up, the second
    # must not cut it short (it left the folder and a device behind).
    import signal
    import time

    p, folder = _start_demo(tmp_path)
    p.send_signal(signal.SIGTERM)
    time.sleep(0.01)
    p.send_signal(signal.SIGTERM)
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=60)
    # (a signal that comes after the clean-up may still end the process)
    assert p.returncode in (130, -signal.SIGINT), err
    assert "interrupted" in err and "Traceback" not in err
    assert not folder.exists()


def test_demo_in_a_folder_keeps_the_virtual_boards_wiring_faults(tmp_path):
    # A folder whose virtual board was soldered with a fault (`sim --dir D
    # --weak-magnet d4`): the demo there plays on that board, says so, and
    # leaves the fault in place, instead of quietly soldering it right.
    import json

    from turtleboard.paths import reference_board
    from turtleboard.sim.device import load_board_file
    from turtleboard.sim.world import WIRING_FILE, Wiring

    folder = tmp_path / "board"
    (folder / "world").mkdir(parents=True)
    wiring = Wiring(load_board_file(str(reference_board("tortuga"))))
    wiring.weaken("d4")
    wiring.save(str(folder / "world"))
    r = subprocess.run(
        [sys.executable, "-m", "turtleboard", "demo", "--game", "tortuga", "--seed", "3",
         "--fast", "--dir", str(folder), "--record", str(tmp_path / "demo.txt")],
        capture_output=True, text=True, timeout=240, cwd=tmp_path,
    )
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
    assert "wiring fault of this virtual board, kept: cell d4: a turtle gives" in r.stdout
    assert "game over after" in r.stdout  # a weak magnet still reads
    kept = json.loads((folder / "world" / WIRING_FILE).read_text())
    assert kept == wiring.to_json()


def test_a_second_demo_on_a_folder_in_use_is_refused_and_touches_nothing(tmp_path):
    # The first demo plays on; the second one says the folder is in use, at
    # once, before it rewrites anything of it (board file, pieces).
    folder = tmp_path / "board"
    first, _ = _start_demo(tmp_path, "--game", "tortuga", "--seed", "3", "--dir", str(folder))
    try:
        files = [folder / "flash" / "board.json", folder / "flash" / "main.py", folder / "lock"]
        before = [(f.stat().st_mtime_ns, f.read_bytes()) for f in files]
        second = subprocess.run(
            [sys.executable, "-m", "turtleboard", "demo", "--fast", "--plain", "--no-web",
             "--game", "mahe", "--dir", str(folder), "--record", str(tmp_path / "second.txt")],
            capture_output=True, text=True, timeout=120, cwd=tmp_path)
        assert second.returncode == 2, second.stderr
        assert second.stderr.strip().splitlines() == [
            "turtleboard demo: the folder %s is in use by another virtual board (process %s); "
            "stop that one first, or give this one another --dir"
            % (folder, (folder / "lock").read_text().strip())]
        assert [(f.stat().st_mtime_ns, f.read_bytes()) for f in files] == before
        out, err = first.communicate(timeout=240)
    finally:
        if first.poll() is None:
            first.kill()
            first.wait()
    assert first.returncode == 0, err[-2000:]
    assert "game over after" in out


def test_a_record_path_that_cannot_be_written_is_refused_before_the_game(tmp_path):
    import os

    temp = tmp_path / "tmp"
    temp.mkdir()
    for record, said in ((tmp_path / "no-such-folder" / "x.txt", "there is no folder"),
                         (tmp_path, "is a folder: name a file for the game record")):
        r = subprocess.run([sys.executable, "-m", "turtleboard", "demo", "--fast", "--plain",
                            "--no-web", "--record", str(record)], capture_output=True, text=True,
                           timeout=60, cwd=tmp_path, env=dict(os.environ, TMPDIR=str(temp)))
        assert r.returncode == 2 and r.stdout == "", r.stdout[-1000:]  # no game played
        assert said in r.stderr and "Traceback" not in r.stderr
        assert len(r.stderr.strip().splitlines()) == 1, r.stderr
        assert list(temp.iterdir()) == []  # no folder made


def test_a_record_folder_gone_during_the_game_saves_the_record_elsewhere(tmp_path):
    # Checked before the game, the record's folder can still go away during
    # it: the game played is saved in the temporary folder instead, and said.
    import shutil

    folder = tmp_path / "records"
    folder.mkdir()
    p, _ = _start_demo(tmp_path, "--game", "tortuga", "--seed", "3",
                       record=folder / "demo.txt")
    shutil.rmtree(folder)
    out, err = p.communicate(timeout=240)
    assert p.returncode == 0, err[-2000:]
    saved = list((tmp_path / "tmp").glob("demo-*.txt"))
    assert len(saved) == 1
    assert "could not write %s (No such file or directory): the record is in %s instead" % (
        folder / "demo.txt", saved[0]) in err
    assert "record saved to %s" % saved[0] in out
    assert saved[0].read_text().startswith("[Game ")
