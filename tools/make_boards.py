"""Writes the reference board files (mahe.json, race.json, tortuga.json) from
the rules engine: the geometry is each game's default_geometry() and the cells
are the engine's cells, in order. Run it after a change to an engine's
default geometry:

    python tools/make_boards.py          # rewrite the files
    python tools/make_boards.py --check  # exit 1 if a file is out of date

The wiring is the one in docs/hardware.md: cell number i (in the engine's
order) is on sensor channel i (multiplexer i // 16, input i % 16) and is LED i
of the chain; the LED groups follow the cells on the chain.
"""

from __future__ import annotations

import json
import sys

from turtleboard.maker.boardfile import board_text as dump
from turtleboard.paths import BOARDS
from turtles import game_class

HERE = BOARDS  # boards

SELECT_PINS = [2, 3, 4, 5]  # S0..S3 of every 74HC4067
ADC_PINS = [26, 27, 28]  # one per multiplexer: mux 0 -> GP26, 1 -> GP27, 2 -> GP28
LED_PIN = 22
BUTTONS = {"next": 6, "ok": 7, "undo": 8}
SENSING = {
    "threshold": 6000,  # ~300 mV, ~5 mT from the empty reading on a DRV5055A1 at 3.3 V
    "hysteresis": 2000,
    "stable_ms": 15,
    "zero_band": 3000,
    "rail": 1024,
    "stuck_ms": 60000,
}

BOARDS = [
    # file, game, name, description, extra LED groups after "turn"
    ("mahe.json", "mahe", "Mahé reference board",
     "The raft, fields 1..21 (21 is the beach) and the nest, wired in that order.",
     [("dice", 6)]),
    ("race.json", "race", "Turtle Race reference board",
     "The start, fields 1..8 and the lettuce, wired in that order.", []),
    ("tortuga.json", "tortuga", "Tortuga reference board",
     "The 37-cell hexagon for Tortuga, Tattoo Turtles and Hatching Day, wired "
     "column by column (a1..a4, b1..b5, ... g1..g4), each column from south to north.",
     []),
]


def board(game, name, description, extra_groups):
    cls = game_class(game)
    geometry = cls.default_geometry()
    cells = cls(cls.min_players, None, geometry).cells()
    muxes = (len(cells) + 15) // 16
    led = len(cells)
    groups = {"turn": list(range(led, led + cls.max_players))}
    led += cls.max_players
    for group, count in extra_groups:
        groups[group] = list(range(led, led + count))
        led += count
    groups["status"] = [led]
    led += 1
    return {
        "$schema": "schema.json",
        "name": name,
        "description": description,
        "version": 1,
        "games": [game],
        "geometry": json.loads(json.dumps(geometry)),
        "mux": {"select": SELECT_PINS, "adc": ADC_PINS[:muxes]},
        "leds": {"pin": LED_PIN, "count": led, "brightness": 64, "groups": groups},
        "buttons": BUTTONS,
        "sensing": SENSING,
        "cells": {cell: {"sensor": i, "led": i} for i, cell in enumerate(cells)},
    }


def main(argv: list[str]) -> int:
    check = "--check" in argv
    stale = []
    for filename, game, name, description, extra in BOARDS:
        text = dump(board(game, name, description, extra)) + "\n"
        path = HERE / filename
        if check:
            if not path.exists() or path.read_text(encoding="utf-8") != text:
                stale.append(filename)
        else:
            path.write_text(text, encoding="utf-8")
            print("wrote", path)
    if stale:
        print("out of date (run python tools/make_boards.py):", ", ".join(stale))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
