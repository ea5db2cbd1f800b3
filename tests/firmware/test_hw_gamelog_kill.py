"""The game log survives kill -9 at any moment: a MicroPython process appends
(or starts new games) as fast as it can and is killed at random times; every
restart must find the game intact, with every action it reported as
committed and nothing else. In a file, and in the Turtleboard build's raw log
area (the virtual Pico's flash region: a file with a flash's rules)."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import time

import pytest

from turtleboard.sim.mpy import FIRMWARE, micropython_command

KILLS = int(os.environ.get("TB_KILLS", "8"))  # per test; bench/fuzz.py runs more

WRITER = """
import sys
from controller.gamelog import GameLog
area = None
if sys.argv[3] == "area":
    from controller.flashlog import LogArea
    from pico_flash import load
    area = LogArea(load(sys.argv[1] + ".area", "the log area"), sys.argv[1])
log = GameLog(sys.argv[1], area)
mode = sys.argv[2]
got = log.load()
if mode == "append":
    if got is None:
        log.begin("mahe", 2, {}, {})
        got = (None, [])
    n = len(got[1])
    print("loaded", n, log.dropped)
    while True:
        n += 1
        log.append("a%d" % n)
        print("committed", n)
        if n % 7 == 0:  # a snapshot line now and then (a stand-in state: n)
            log.snapshot(n, "[%d]" % n)
else:
    print("loaded", "none" if got is None else got[0]["players"])
    players = 2
    while True:
        players = 2 + players % 5
        log.begin("race", players, {}, {})
        print("begun", players)
"""


PICO = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "host", "sim", "pico")


def _log(path, where):
    # The log as a boot reads it: the file, or the log area beside it.
    from controller.gamelog import GameLog

    if where == "file":
        return GameLog(str(path))
    from controller.flashlog import LogArea
    from turtleboard.sim.pico.pico_flash import load

    return GameLog(str(path), LogArea(load(str(path) + ".area", "the log area"), str(path)))


def _area(path, where):
    if where == "area":
        with open(str(path) + ".area", "wb") as f:
            f.write(b"\xff" * 64 * 1024)


def _run_and_kill(path, mode, rng, where):
    env = dict(os.environ, MICROPYPATH=f"{FIRMWARE}:{PICO}:.frozen")
    # unbuffered: communicate() below reads the pipe itself, and what a
    # buffered readline() had already taken from it would be lost
    proc = subprocess.Popen(micropython_command() + ["-c", WRITER, str(path), mode, where],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, bufsize=0)
    seen = [proc.stdout.readline()]  # "loaded ..."
    for _ in range(rng.randint(0, 25)):  # let it get going, then kill it mid-stride
        seen.append(proc.stdout.readline())
    time.sleep(rng.uniform(0, 0.01))
    proc.send_signal(signal.SIGKILL)
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == -signal.SIGKILL, err
    text = (b"".join(seen) + out).decode()
    lines = text.splitlines()
    if lines and not text.endswith("\n"):
        lines.pop()  # a line the kill cut short (print writes it in pieces): not said
    return lines


@pytest.mark.micropython
@pytest.mark.parametrize("where", ["file", "area"])
def test_kill_during_appends_loses_no_committed_action(tmp_path, where):
    rng = random.Random(11)
    path = tmp_path / "game.log"
    _area(path, where)
    total = 0
    last_snapshot = 0
    for _ in range(KILLS):
        lines = _run_and_kill(path, "append", rng, where)
        assert lines[0].startswith("loaded %d " % total), lines[:1]
        committed = [int(line.split()[1]) for line in lines[1:] if line.startswith("committed")]
        last = committed[-1] if committed else total
        log = _log(path, where)
        header, actions = log.load()
        # everything reported as committed is there, at most one more action
        # (written but killed before it could say so), nothing torn or extra;
        # a write torn by the kill is a power cut, not damage to report
        assert header["game"] == "mahe" and log.damage is None, log.damage
        assert actions == ["a%d" % i for i in range(1, len(actions) + 1)]
        assert last <= len(actions) <= last + 1
        # the last snapshot is a whole one (one torn by the kill is dropped),
        # of an action that is there, and never older than the one before (a
        # snapshot the kill came before is never written: the writer goes on
        # from the next action)
        snap = log.last_snapshot()
        if snap is not None:
            k = snap[0]
            assert k % 7 == 0 and 0 < k <= len(actions) and snap == (k, k, "[%d]" % k), snap
            assert k >= last_snapshot, (k, last_snapshot)
            last_snapshot = k
        else:
            assert last_snapshot == 0, "the snapshot of action %d is gone" % last_snapshot
        total = len(actions)
    assert total > 30 and last_snapshot > 0  # the kills really hit a busy writer


@pytest.mark.micropython
@pytest.mark.parametrize("where", ["file", "area"])
def test_kill_during_new_games_never_leaves_no_game(tmp_path, where):
    rng = random.Random(5)
    path = tmp_path / "game.log"
    _area(path, where)
    _log(path, where).begin("race", 2, {}, {})
    begun = 0
    for _ in range(KILLS):
        lines = _run_and_kill(path, "begin", rng, where)
        assert lines[0] != "loaded none"
        done = [int(line.split()[1]) for line in lines if line.startswith("begun")]
        begun += len(done)
        log = _log(path, where)
        header, actions = log.load()
        assert header["game"] == "race" and actions == [] and log.damage is None, log.damage
        if done:
            # the last game it announced, or the one after it
            assert header["players"] in (done[-1], 2 + done[-1] % 5)
    assert begun > 30
