"""Sensing on the virtual device, end to end: the real sim world (host side,
with sensor noise) writes its files, the firmware's sim HAL and Sensing read
them under the MicroPython unix port. Every change of the pieces shows up as
exactly one change of the stable image, and nothing else does."""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

import pytest

from controller.board import load_board
from turtleboard.paths import BOARDS
from turtleboard.sim.mpy import FIRMWARE, micropython_command
from turtleboard.sim.world import World

DEVICE = """
import sys, time
from controller.board import load_board
from controller.sensing import Sensing
from hal.sim import Hal
b = load_board(open(sys.argv[1]).read())
hal = Hal(b)
s = Sensing(hal, b, "calibration.txt")
s.calibrate()
print("ready", "".join([str(x) for x in s.image]))
seen = s.version
end = time.ticks_add(time.ticks_ms(), int(sys.argv[2]))
while time.ticks_diff(end, time.ticks_ms()) > 0:
    s.scan(time.ticks_ms())
    if s.version != seen:
        seen = s.version
        print("v", seen, "".join([str(x) for x in s.image]))
    if s.faults:
        print("fault", s.faults)
    time.sleep_ms(2)
print("end", s.version)
"""

GAP = 0.4  # seconds between moves: the 60 ms window, the 5 ms re-read and the noise ticker fit


@pytest.mark.micropython
def test_moves_in_a_noisy_sim_world_give_exactly_the_right_images(tmp_path: Path):
    board_file = BOARDS / "tortuga.json"
    board = load_board(board_file.read_text(encoding="utf-8"))
    flash = tmp_path / "flash"
    flash.mkdir()
    world = World(board, str(tmp_path / "world"), noise=300, seed=3)
    moves = [
        lambda: (world.take("red"), world.place("d4")),
        lambda: (world.take("blue", up=False), world.place("a1")),  # DOWN
        lambda: world.flip("a1"),  # DOWN -> UP
        lambda: (world.take("green"), world.place("d4")),  # a stack: the image stays
        lambda: world.lift("d4", 1),  # the top one: the image stays
        lambda: world.place("g4"),
        lambda: world.lift("d4"),
        lambda: world.place("c3", up=False),
        lambda: world.lift("a1"),
        lambda: world.put_away(),
        lambda: world.flip("c3"),
    ]
    env = dict(os.environ, MICROPYPATH=f"{FIRMWARE}:.frozen")
    run_ms = int((len(moves) + 3) * GAP * 1000) + 500
    proc = subprocess.Popen(micropython_command() + ["-c", DEVICE, str(board_file), str(run_ms)],
                            cwd=flash, env=env, stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        ready = proc.stdout.readline().split()
        assert ready[:1] == ["ready"], proc.stderr.read()
        truth = ["".join(str(x) for x in world.image())]
        assert ready[1] == truth[0]
        for move in moves:
            time.sleep(GAP)
            move()
            now = "".join(str(x) for x in world.image())
            if now != truth[-1]:
                truth.append(now)
        out, err = proc.communicate(timeout=60)
    finally:
        world.close()
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0, err
    lines = out.splitlines()
    assert lines[-1] == "end %d" % (len(truth) - 1), out
    assert not [line for line in lines if line.startswith("fault")]
    seen = [line.split()[2] for line in lines if line.startswith("v ")]
    assert seen == truth[1:]
    assert len(truth) == 9  # a stack grown or lifted from, and put_away, change nothing
