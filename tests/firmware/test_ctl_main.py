"""main.py under the real MicroPython unix port with the sim HAL: boots,
says hello, plays from the sim world's sensor readings, survives a bad board
file, and lets Ctrl-C through to the REPL."""

from __future__ import annotations

import json
import os
import select
import shutil
import signal
import subprocess
import time
from pathlib import Path

import pytest

from controller.frames import decode, encode
from turtleboard.paths import BOARDS
from turtleboard.sim.mpy import FIRMWARE, micropython_command

BOARD = BOARDS / "tortuga.json"
pytestmark = pytest.mark.micropython


class Device:
    def __init__(self, folder: Path, board_text: str | None):
        self.flash = folder / "flash"
        self.world = folder / "world"
        self.flash.mkdir()
        self.world.mkdir()
        for part in ("main.py", "turtles", "controller", "hal"):
            src = FIRMWARE / part
            if src.is_dir():
                shutil.copytree(src, self.flash / part, ignore=shutil.ignore_patterns("__pycache__"))
            else:
                shutil.copy(src, self.flash / part)
        if board_text is not None:
            (self.flash / "board.json").write_text(board_text)
        self.proc = None
        self.buf = b""
        self.seq = 0

    def start(self):
        env = dict(os.environ, MICROPYPATH=".:.frozen")
        self.proc = subprocess.Popen(micropython_command() + ["main.py"], cwd=self.flash, env=env,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT)

    def send(self, kind, payload=None):
        self.seq += 1
        self.proc.stdin.write((encode(self.seq, kind, payload) + "\n").encode())
        self.proc.stdin.flush()

    def lines(self, until, timeout=20.0):
        # Lines until one satisfies `until` (a predicate on the line).
        out = []
        end = time.monotonic() + timeout
        fd = self.proc.stdout.fileno()
        while time.monotonic() < end:
            while b"\n" in self.buf:
                line, self.buf = self.buf.split(b"\n", 1)
                text = line.decode(errors="replace")
                out.append(text)
                if until(text):
                    return out
            ready, _, _ = select.select([fd], [], [], 0.2)
            if ready:
                chunk = os.read(fd, 65536)
                if not chunk:
                    break
                self.buf += chunk
        raise AssertionError("timed out; got:\n" + "\n".join(out[-30:]))

    def frame(self, kind, timeout=20.0):
        lines = self.lines(lambda t: t.startswith("~TB ") and decode(t)[1] == kind, timeout)
        return decode(lines[-1])[2], lines

    def world_adc(self, board, image):
        adc = [32768] * 48
        for cell, state in image.items():
            ch = board["cells"][cell]["sensor"]
            adc[ch] = 32768 + (9000 if state == 1 else -9000 if state == 2 else 0)
        tmp = self.world / "adc.tmp"
        tmp.write_text(" ".join(str(v) for v in adc) + "\n")
        os.replace(tmp, self.world / "adc")

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


@pytest.fixture
def device(tmp_path):
    made = []

    def make(board_text):
        d = Device(tmp_path, board_text)
        made.append(d)
        return d

    yield make
    for d in made:
        d.stop()


def test_boots_plays_from_the_sensors_and_stops_on_ctrl_c(device):
    text = BOARD.read_text()
    board = json.loads(text)
    dev = device(text)
    dev.start()
    hello, _ = dev.frame("hello")
    assert hello["board"] == board["name"] and hello["game"] is None
    dev.send("new", {"game": "tortuga", "players": 2, "options": {}})
    status, _ = dev.frame("synced")
    from turtles import new_game

    game = new_game("tortuga", 2, {"hops": 1}, board["geometry"])
    image = dict(zip(game.cells(), game.image()))
    dev.world_adc(board, image)
    status, _ = dev.frame("status")
    while status["text"] != "player 1 to move":
        status, _ = dev.frame("status")
    image["c1"] = 0
    image["c2"] = 1
    dev.world_adc(board, image)
    action, _ = dev.frame("action")
    assert action["text"] == "c1-c2" and action["by"] == "sensors"
    game.apply_text("c1-c2")
    assert action["hash"] == "%08x" % game.state_hash()
    assert (dev.flash / "game.log").exists()
    dev.proc.send_signal(signal.SIGINT)  # what Ctrl-C becomes on the virtual device
    lines = dev.lines(lambda t: "KeyboardInterrupt" in t)
    assert "KeyboardInterrupt" in lines[-1]


def test_restores_the_game_after_a_restart(device):
    text = BOARD.read_text()
    dev = device(text)
    dev.start()
    dev.frame("hello")
    dev.send("new", {"game": "tortuga", "players": 2, "dice": "electronic"})
    dev.frame("synced")
    dev.send("enter", {"text": "c1-c2"})
    action, _ = dev.frame("action")
    dev.proc.kill()  # the power goes
    dev.proc.wait()
    dev.buf = b""
    dev.start()
    hello, _ = dev.frame("hello")  # the boot hello already names the restored game
    assert hello["game"] == "tortuga" and hello["n"] == 1 and hello["hash"] == action["hash"]
    dev.send("hello", {"host": "t", "proto": 1})
    hello, _ = dev.frame("hello")
    assert hello["game"] == "tortuga" and hello["n"] == 1 and hello["hash"] == action["hash"]


def test_a_bad_board_file_is_reported_and_the_port_stays_up(device):
    board = json.loads(BOARD.read_text())
    board["cells"]["a1"]["sensor"] = 99
    dev = device(json.dumps(board))
    dev.start()
    hello, _ = dev.frame("hello")
    assert hello["board"] is None
    error, _ = dev.frame("error")
    assert error["code"] == "board" and "cells.a1.sensor" in error["msg"]
    leds = (dev.world / "leds").read_text().split()
    assert leds[0] != "000000"  # the error pattern
    dev.send("hello", {"host": "t", "proto": 1})
    hello, _ = dev.frame("hello")
    assert hello["board"] is None
    dev.proc.send_signal(signal.SIGINT)
    assert "KeyboardInterrupt" in dev.lines(lambda t: "KeyboardInterrupt" in t)[-1]


def test_no_board_file_at_all(device):
    dev = device(None)
    dev.start()
    dev.frame("hello")
    error, _ = dev.frame("error")
    assert "no board.json" in error["msg"]


@pytest.mark.parametrize("content", [b"\xff\xfe{}", b"{\"name\": \"\xc3(\"}", b"\x00" * 300,
                                     b"[" * 30000 + b"]" * 30000,
                                     b"{\"" + b"k" * 2000 + b"\": 1}"])  # (a problem too long for a frame)
def test_a_board_file_of_any_bytes_boots_into_a_device_that_says_so(device, content):
    dev = device(None)
    (dev.flash / "board.json").write_bytes(content)
    dev.start()
    hello, _ = dev.frame("hello")
    assert hello["board"] is None
    error, _ = dev.frame("error")
    assert error["code"] == "board" and "board.json" in error["msg"], error


@pytest.mark.parametrize("content", [b"turtleboard calibration 1 \xff\xfe\n", b"\x80" * 5000])
def test_a_calibration_file_of_any_bytes_boots_and_is_reported(device, content):
    dev = device(BOARD.read_text())
    (dev.flash / "calibration.txt").write_bytes(content)
    dev.world_adc(json.loads(BOARD.read_text()), {})
    dev.start()
    hello, lines = dev.frame("hello")
    assert hello["board"]
    error, _ = dev.frame("error")
    assert error["code"] == "sensor" and "calibration.txt could not be read" in error["msg"], error
    dev.send("ping")
    dev.frame("ok")
    assert (dev.flash / "calibration.txt").read_bytes().startswith(b"turtleboard calibration 1 ")


def test_a_calibration_value_no_turtle_explains_is_reported_and_reads_no_turtle(device):
    board = json.loads(BOARD.read_text())
    dev = device(BOARD.read_text())
    dev.world_adc(board, {})
    dev.start()
    dev.frame("hello")
    dev.send("ping")
    dev.frame("ok")
    dev.stop()
    path = dev.flash / "calibration.txt"
    lines = path.read_text().split("\n")
    a1 = [i for i, line in enumerate(lines) if line.startswith("a1 ")][0]
    lines[a1] = "a1 100"
    path.write_text("\n".join(lines))
    dev.buf = b""
    dev.start()
    error, _ = dev.frame("error")
    assert error["code"] == "sensor" and "a1: saved empty level 100" in error["msg"], error
    assert "look at a1" in error["msg"]
    dev.send("diag", {"on": True})
    sense, _ = dev.frame("sense")
    assert sense["image"][list(board["cells"]).index("a1")] == 0  # no phantom turtle


def test_a_damaged_snapshot_is_told_to_a_host_that_connects_after_the_boot(device):
    dev = device(BOARD.read_text())
    dev.world_adc(json.loads(BOARD.read_text()), {})
    dev.start()
    dev.frame("hello")
    dev.send("new", {"game": "tortuga", "players": 2, "dice": "electronic"})
    dev.frame("synced")
    dev.send("enter", {"text": "c1-c2"})
    dev.frame("action")
    dev.stop()
    log = dev.flash / "game.log"
    # a snapshot with one byte flipped, then an action after it
    from controller.gamelog import seal
    lines = log.read_text().split("\n")[:-1]
    snapshot = seal("S 1 00000000 " + "x" * 200)
    snapshot = snapshot[:20] + "y" + snapshot[21:]
    log.write_text("\n".join(lines) + "\n" + snapshot + seal("A g4-g3"))
    dev.buf = b""
    dev.start()  # its boot hello and error go to no host
    dev.frame("hello")
    dev.buf = b""
    dev.send("hello", {"host": "t", "proto": 1})
    hello, _ = dev.frame("hello")
    assert hello["n"] == 2 and "line 3 (a snapshot, passed over)" in hello["log"], hello
    dev.send("ack", {"log": hello["log"]})
    dev.frame("ok")
    dev.send("hello", {"host": "t", "proto": 1})
    hello, _ = dev.frame("hello")
    assert hello["n"] == 2 and hello["log"] is None
