# A scripted stand-in for the board hardware (the HAL interface of
# docs/firmware.md) and a rig that runs the real controller, the real
# sensing, board loader and game log on it. Plain Python: the controller
# tests run under CPython (pytest) and the MicroPython unix port (mprun).
import os

from hwtools import flash_area, scratch_root

from controller.board import load_board
from controller.control import Controller
from controller.flashlog import LogArea
from controller.frames import decode, encode
from controller.gamelog import GameLog
from controller.sensing import MID, Sensing
from turtles import DOWN, EMPTY, UP, game_class
from turtles.jsontext import dumps
from turtles.rng import Rng

FIELD = 8000  # what a turtle adds to (UP) or takes from (DOWN) a reading
STEP_MS = 5


def copy_flash(folder):
    # A copy of a rig's folder (its game log, calibration: the flash as a
    # power cut leaves it), in a fresh scratch folder. MicroPython: no shutil.
    to = scratch_dir()
    for name in os.listdir(folder):
        with open(folder + "/" + name, "rb") as f:
            data = f.read()
        with open(to + "/" + name, "wb") as f:
            f.write(data)
    return to


def board_json(game, players=2, options=None, extra_cells=()):
    # A board file for `game`: cell i on sensor channel i and LED i, then
    # the turn, dice and status groups.
    cls = game_class(game)
    cells = list(cls(cls.min_players, options, None).cells()) + list(extra_cells)
    n = len(cells)
    spec = {}
    for i in range(n):
        spec[cells[i]] = {"sensor": i, "led": i}
    muxes = (n + 15) // 16
    board = {
        "name": "test %s" % game,
        "version": 1,
        "games": [game],
        "geometry": cls.default_geometry(),
        "cells": spec,
        "leds": {"count": n + 9, "pin": 4, "groups": {
            "turn": [n, n + 1], "dice": list(range(n + 2, n + 8)), "status": [n + 8]}},
        "buttons": {"next": 5, "ok": 6, "undo": 7},
        "mux": {"select": [0, 1, 2, 3], "adc": [26, 27, 28][:muxes]},
        "sensing": {"threshold": 4000, "hysteresis": 1000, "stable_ms": 30,
                    "zero_band": 2000, "rail": 500, "stuck_ms": 0},
    }
    return dumps(board)


_count = [0]


def scratch_dir():
    # A fresh directory for the game log and calibration, under the tests'
    # scratch root (hwtools.scratch_root: removed after the test run).
    _count[0] += 1
    try:
        import tempfile

        return tempfile.mkdtemp(prefix="ctl-", dir=scratch_root())
    except ImportError:
        import time

        path = "%s/ctl-mp-%d-%d" % (scratch_root(), time.ticks_ms(), _count[0])
        os.mkdir(path)
        return path


class FakeHal:
    # The board hardware, scripted: ADC readings per channel, buttons held,
    # a clock, the serial port as two byte buffers, the LED frames written.
    def __init__(self, channels):
        self.adc = [MID] * channels
        self.held = []
        self.clock = 1000
        self.rx = bytearray()
        self.tx = bytearray()
        self.leds = None
        self.writes = 0
        self.files_awake = True  # the filesystem mounted, and it can rest (rest_files, wake_files)

    def refresh(self):
        pass

    def read_channel(self, ch):
        return self.adc[ch]

    def read_cells(self, plan, out):
        for sel, cells in plan:
            m = 0
            for i in cells:
                if i >= 0:
                    out[i] = self.adc[(m << 4) | sel]
                m += 1

    def write_leds(self, colors):
        self.leds = list(colors)
        self.writes += 1

    def button(self, name):
        return name in self.held

    def ticks_ms(self):
        return self.clock

    def ticks_diff(self, a, b):
        return a - b

    def sleep_ms(self, ms):
        self.clock += ms

    def rest_files(self):
        self.files_awake = False

    def wake_files(self):
        self.files_awake = True

    def serial_read(self):
        if not self.rx:
            return b""  # as the real HALs: nothing allocated on a quiet line
        data = bytes(self.rx[:512])  # what arrived since the last cycle
        self.rx = self.rx[512:]
        return data

    def serial_write(self, data):
        for b in data:
            if b == 3 or b == 4:
                raise AssertionError("the device sent byte %d" % b)
        self.tx.extend(data)


class Rig:
    def __init__(self, game, board_text=None, folder=None, seed=7, adc=None, area=False):
        # adc: {channel: reading} at boot (the rest read empty). area: the
        # game log in a raw flash area (the Turtleboard build's),
        # <folder>/logarea.img, instead of the file <folder>/game.log
        self.folder = folder or scratch_dir()
        self.board = load_board(board_text or board_json(game))
        self.hal = FakeHal(48)
        for ch in adc or {}:
            self.hal.adc[ch] = adc[ch]
        self.sensing = Sensing(self.hal, self.board, self.folder + "/calibration.txt")
        self.sensing.calibrate(self.hal.clock)
        path = self.folder + "/game.log"
        self.log = GameLog(path, LogArea(flash_area(self.folder), path) if area else None)
        self.ctl = Controller(self.hal, self.board, self.sensing, self.log, seed)
        self.ctl.recalibrated(self.sensing.suspect)  # as boot does
        self.seq = 0
        self.got = []

    # ---- the pieces ----------------------------------------------------

    def put(self, cell, state=UP):
        ch = self.board.sensor_of[self.board.cells.index(cell)]
        self.hal.adc[ch] = MID + (FIELD if state == UP else -FIELD if state == DOWN else 0)

    def take(self, cell):
        self.put(cell, EMPTY)

    def show(self, image=None):
        # Set every cell of the game as `image` says (default: the game's).
        game = self.ctl.session.game
        image = game.image() if image is None else image
        cells = game.cells()
        for i in range(len(cells)):
            self.put(cells[i], image[i])

    def sensed(self):
        return list(self.ctl.board_image())

    # ---- time and buttons ------------------------------------------------

    def run(self, ms=100):
        end = self.hal.clock + ms
        while self.hal.clock < end:
            self.ctl.step(self.hal.clock)
            self.hal.clock += STEP_MS
        return self.frames()

    def press(self, name):
        self.hal.held.append(name)
        out = self.run(60)
        self.hal.held.remove(name)
        return out + self.run(60)

    # ---- the serial port -------------------------------------------------

    def send(self, kind, payload=None, run=50):
        self.seq += 1
        self.hal.rx.extend(encode(self.seq, kind, payload).encode() + b"\n")
        return self.run(run)

    def raw(self, data, run=50):
        self.hal.rx.extend(data)
        return self.run(run)

    def frames(self):
        # New frames from the device as [(kind, payload)]; all lines must be frames.
        text = bytes(self.hal.tx).decode()
        self.hal.tx = bytearray()
        out = []
        for line in text.split("\n"):
            if line:
                seq, kind, payload = decode(line)
                out.append((kind, payload))
        self.got.extend([f for f in out if f[0] != "leds"])  # all but LEDs, kept
        return out

    def new(self, players=2, options=None, dice="electronic", game=None, seed=None):
        payload = {"game": game or self.board.games[0], "players": players,
                   "options": options or {}, "dice": dice}
        if seed is not None:
            payload["seed"] = seed
        got = self.send("new", payload)
        k = [x for x in kinds(got) if x in ("state", "synced", "ok", "error")]
        assert k == ["state", "synced", "ok"], got
        return got


def play_seeded(rig, n, seed=3, after=None):
    # Up to n actions the host enters (fewer if the game ends), each drawn
    # from the legal ones by a seeded Rng; after(k) is called after the k-th
    # (counted from 0). -> their texts.
    game = rig.ctl.session.game
    rng = Rng(seed)
    texts = []
    for k in range(n):
        if game.is_over():
            break
        legal = game.legal_actions()
        action = legal[rng.below(len(legal))]
        assert rig.ctl.commit(action, "host")
        texts.append(game.action_text(action))
        if after is not None:
            after(k)
    return texts


def kinds(frames):
    return [k for k, _ in frames]


def only(frames, kind):
    return [p for k, p in frames if k == kind]


def actions(frames):
    return [p["text"] for k, p in frames if k == "action"]
