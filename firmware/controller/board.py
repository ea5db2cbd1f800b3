# Board definitions: which sensor and LED sits under each cell, the pins, the
# sensing thresholds. load_board(text) parses and checks a board file and
# returns a Board; the checks of its fields are in boardcheck.py
# (check_board(obj) lists every mistake as (json_path, message)).
# Runs on the device (MicroPython's json only) and on the host.
# boardcheck is imported when a board is read, never kept here: the device
# drops it after boot (controller/boot.py).

import json
from array import array


class BoardError(ValueError):
    def __init__(self, problems):
        self.problems = problems
        first = problems[0] if problems else ("$", "bad board")
        more = "" if len(problems) < 2 else " (and %d more)" % (len(problems) - 1)
        super().__init__("%s: %s%s" % (first[0], first[1], more))


class Board:
    def __init__(self, obj, cells):
        self.name = obj["name"]
        self.version = obj["version"]
        self.games = list(obj["games"])
        self.geometry = obj["geometry"]
        self.cells = cells
        spec = obj["cells"]
        # per cell, in bytes and 16-bit words (checked: a sensor channel is
        # below 48, an LED below the chain's count): a list takes 4 bytes an item
        self.sensor_of = bytes([spec[c]["sensor"] for c in cells])
        self.led_of = array("H", [spec[c]["led"] for c in cells])
        leds = obj["leds"]
        self.led_count = leds["count"]
        self.led_pin = leds["pin"]
        self.brightness = leds.get("brightness", 64)
        self.groups = {}
        for name in sorted(leds["groups"]):
            self.groups[name] = list(leds["groups"][name])
        self.buttons = [(name, obj["buttons"][name]) for name in sorted(obj["buttons"])]
        self.mux = {"select": list(obj["mux"]["select"]), "adc": list(obj["mux"]["adc"])}
        from .boardcheck import CHANNELS_PER_MUX, SENSING

        self.sensing = {}
        for key, _, _, _ in SENSING:
            self.sensing[key] = obj["sensing"][key]
        self._channels = CHANNELS_PER_MUX * len(self.mux["adc"])

    def channels(self):
        # Sensor channels the wiring provides (16 per multiplexer).
        return self._channels

    def keep_small(self):
        # On the device: the geometry as the engine keeps it for every game
        # on this board (Tortuga: the built board and its tables), not the
        # file's parsed dict.
        from turtles import game_class

        if len(self.games) == 1:
            self.geometry = game_class(self.games[0]).kept_geometry(self.geometry)


def check_board(obj):
    # -> every mistake of a board file's parsed JSON, as (json_path, message).
    from . import boardcheck

    return boardcheck.check_board(obj)


def engine_cells(game, geometry):
    # -> the cells the game's engine has on this geometry, in its order.
    from . import boardcheck

    return boardcheck.engine_cells(game, geometry)


def load_board(text):
    try:
        obj = json.loads(text)
    except ValueError as e:
        raise BoardError([("$", "not valid JSON (%s)" % e)])
    except Exception as e:  # RecursionError/RuntimeError: nested too deep for the device
        raise BoardError([("$", "not a board file: JSON nested too deep (%r)" % (e,))])
    problems = check_board(obj)
    if problems:
        raise BoardError(problems)
    return Board(obj, engine_cells(obj["games"][0], obj["geometry"]))
