"""Board files for the end-to-end tests: small boards, so games are short."""

from __future__ import annotations

import json


def board_obj(game: str = "mahe", fields: int = 10, stable_ms: int = 60) -> dict:
    """A board for one track game (`mahe` or `race`) with `fields` track cells."""
    if game == "mahe":
        cells = ["raft"] + [str(i) for i in range(1, fields + 1)] + ["nest"]
        geometry = {"fields": fields, "beach": fields}
    elif game == "race":
        cells = ["start"] + [str(i) for i in range(1, fields + 1)] + ["lettuce"]
        geometry = {"fields": fields}
    else:
        raise ValueError(game)
    n = len(cells)
    extra = 8  # turn (4), dice (2), status (2)
    return {
        "name": "e2e %s %d" % (game, fields),
        "version": 1,
        "games": [game],
        "geometry": geometry,
        "cells": {c: {"sensor": i, "led": i} for i, c in enumerate(cells)},
        "leds": {
            "pin": 2,
            "count": n + extra,
            "brightness": 64,
            "groups": {
                "turn": [n, n + 1, n + 2, n + 3],
                "dice": [n + 4, n + 5],
                "status": [n + 6, n + 7],
            },
        },
        "buttons": {"next": 14, "ok": 15},
        "mux": {"select": [10, 11, 12, 13], "adc": [26, 27]},
        "sensing": {
            "threshold": 6000,
            "hysteresis": 2000,
            "stable_ms": stable_ms,
            "zero_band": 2000,
            "rail": 1000,
            "stuck_ms": 0,
        },
    }


def write_board(path, **kw) -> str:
    with open(path, "w") as f:
        json.dump(board_obj(**kw), f, indent=1, sort_keys=True)
    return str(path)
