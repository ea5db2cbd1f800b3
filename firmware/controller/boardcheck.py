# The checks of a board file's fields: check_board(obj) lists every mistake
# as (json_path, message), each saying what is wrong and what to do; it runs
# the game's engine on the geometry (engine_cells) and compares the cells.
# The board file's keys and limits are here (boards/schema.json says the
# same for editors). Runs on the device (load_board) and on the host
# (`turtleboard board check`).

GAME_NAMES = ("mahe", "race", "tortuga")

# GPIOs on the Pico's header (23, 24, 25 and 29 are used on the board itself).
PICO_PINS = tuple(range(23)) + (26, 27, 28)
ADC_PINS = (26, 27, 28)
CHANNELS_PER_MUX = 16  # a 74HC4067 has 16 inputs
# Names, in characters as JSON counts them (_length: an emoji is two):
NAME_MAX = 32  # the board's (`hello` carries it: it must fit a frame)
CELL_NAME_MAX = 12  # a cell's (frames list many; an action's text holds two)

ROOT_KEYS = ("$schema", "buttons", "cells", "description", "games", "geometry",
             "leds", "mux", "name", "sensing", "version")
ROOT_REQUIRED = ("buttons", "cells", "games", "geometry", "leds", "mux", "name",
                 "sensing", "version")
MUX_KEYS = ("adc", "select")
LED_KEYS = ("brightness", "count", "groups", "pin")
LED_REQUIRED = ("count", "groups", "pin")
CELL_KEYS = ("led", "sensor")
REQUIRED_BUTTONS = ("next", "ok")
REQUIRED_GROUPS = ("status", "turn")

# (key, lowest, highest, what it is): all counts are read_u16 units (0..65535).
SENSING = (
    ("threshold", 500, 30000, "distance from the empty reading that means a turtle"),
    ("hysteresis", 0, 20000, "how far back a reading must fall before a turtle counts as gone"),
    ("stable_ms", 0, 2000, "how long a reading must hold before it counts"),
    ("zero_band", 0, 20000, "largest offset of an empty sensor from mid-scale at calibration"),
    ("rail", 0, 8000, "readings this close to 0 or 65535 mean a dead sensor"),
    ("stuck_ms", 0, 600000, "a reading that never changes this long means a stuck sensor (0: off)"),
)


MISSING = object()  # a key that is not there (reported by _keys)


def engine_cells(game, geometry):
    # The cell names of `game` on this geometry, in the engine's order.
    from turtles import game_class

    cls = game_class(game)
    return list(cls(cls.min_players, None, geometry).cells())


def check_board(obj):
    out = []  # type: list
    if not isinstance(obj, dict):
        return [("$", "a board file is a JSON object {...}, not %s" % _kind(obj))]
    _keys(obj, "$", ROOT_KEYS, ROOT_REQUIRED, out)
    if isinstance(obj.get("name"), str):
        if not obj["name"]:
            out.append(("$.name", "the name is empty; give the board a name"))
        elif _length(obj["name"]) > NAME_MAX:
            out.append(("$.name", "the name is %d characters; give the board a name of at most %d "
                        "(an emoji counts two)" % (_length(obj["name"]), NAME_MAX)))
    elif "name" in obj:
        out.append(("$.name", "must be text, not %s" % _kind(obj["name"])))
    _int(obj, "version", "$.version", 1, 1000000, out)
    pins = []  # type: list  # (pin, path) for every GPIO used
    adc = _check_mux(obj.get("mux", MISSING), pins, out)
    led_count = _check_leds(obj.get("leds", MISSING), pins, out)
    _check_buttons(obj.get("buttons", MISSING), pins, out)
    _check_sensing(obj.get("sensing", MISSING), out)
    cells = _check_games(obj, out)
    _check_cells(obj.get("cells", MISSING), cells, adc, led_count, obj.get("leds"), out)
    return out


def _check_games(obj, out):
    # -> the engine's cell names (None when the games or geometry are wrong).
    games = obj.get("games")
    if "games" not in obj:
        return None
    if not isinstance(games, list) or not games:
        out.append(("$.games", "must be a non-empty list of games (%s)" % ", ".join(GAME_NAMES)))
        return None
    if "geometry" in obj and not isinstance(obj["geometry"], dict):
        out.append(("$.geometry", "must be an object {...} (the engine's board geometry), not %s"
                    % _kind(obj["geometry"])))
        return None
    cells = None
    seen = []
    for i, game in enumerate(games):
        path = "$.games.%d" % i
        if not isinstance(game, str) or game not in GAME_NAMES:
            out.append((path, "%r is not a game%s; the games are: %s"
                        % (game, _suggest(game, GAME_NAMES), ", ".join(GAME_NAMES))))
            continue
        if game in seen:
            out.append((path, "%s is listed twice" % game))
            continue
        seen.append(game)
        if "geometry" not in obj:
            continue
        try:
            these = engine_cells(game, obj["geometry"])
        except ImportError as e:
            out.append((path, "this firmware has no rules for %s (%s)" % (game, e)))
            continue
        except Exception as e:  # the engine's own words on a bad geometry
            out.append(("$.geometry", "the %s rules reject this geometry: %s" % (game, e)))
            continue
        bad = [c for c in these if not isinstance(c, str) or not c or " " in c or _length(c) > CELL_NAME_MAX]
        if bad:
            out.append(("$.geometry", "cell names must be text of 1 to %d characters without spaces, not %r"
                        % (CELL_NAME_MAX, bad[0])))
            return None
        if cells is None:
            cells = these
        elif sorted(these) != sorted(cells):
            out.append((path, "%s has other cells than %s on this geometry" % (game, seen[0])))
    return cells


def _check_mux(mux, pins, out):
    # -> the number of multiplexers (0 when unknown).
    if not _obj(mux, "$.mux", out):
        return 0
    _keys(mux, "$.mux", MUX_KEYS, MUX_KEYS, out)
    select = mux.get("select")
    if "select" in mux:
        if not isinstance(select, list) or len(select) != 4:
            out.append(("$.mux.select", "must list the 4 GPIOs wired to S0..S3 of the 74HC4067s"))
        else:
            for i, pin in enumerate(select):
                _pin(pin, "$.mux.select.%d" % i, pins, out)
    adc = mux.get("adc")
    if "adc" not in mux:
        return 0
    if not isinstance(adc, list) or not 1 <= len(adc) <= len(ADC_PINS):
        out.append(("$.mux.adc", "must list 1 to 3 ADC GPIOs (26, 27, 28), one per multiplexer"))
        return 0
    for i, pin in enumerate(adc):
        path = "$.mux.adc.%d" % i
        if _is_int(pin) and pin not in ADC_PINS:
            out.append((path, "GPIO %d has no ADC; a multiplexer output goes to GPIO 26, 27 or 28"
                        % pin))
        else:
            _pin(pin, path, pins, out)
    return len(adc)


def _check_leds(leds, pins, out):
    # -> the LED count (0 when unknown).
    if not _obj(leds, "$.leds", out):
        return 0
    _keys(leds, "$.leds", LED_KEYS, LED_REQUIRED, out)
    if "pin" in leds:
        _pin(leds["pin"], "$.leds.pin", pins, out)
    _int(leds, "brightness", "$.leds.brightness", 1, 255, out)
    count = leds.get("count")
    if not _int(leds, "count", "$.leds.count", 1, 1000, out):
        count = 0
    groups = leds.get("groups")
    if "groups" in leds and _obj(groups, "$.leds.groups", out):
        for name in REQUIRED_GROUPS:
            if name not in groups:
                out.append(("$.leds.groups", "no %r group; every board needs the groups %s"
                            % (name, ", ".join(REQUIRED_GROUPS))))
        for name in sorted(groups):
            path = "$.leds.groups.%s" % name
            leds_in = groups[name]
            if not isinstance(leds_in, list) or not leds_in:
                out.append((path, "must be a non-empty list of LED indexes"))
                continue
            for i, led in enumerate(leds_in):
                _led(led, "%s.%d" % (path, i), count, out)
    return count


def _check_buttons(buttons, pins, out):
    if not _obj(buttons, "$.buttons", out):
        return
    for name in REQUIRED_BUTTONS:
        if name not in buttons:
            out.append(("$.buttons", "no %r button; every board needs %s"
                        % (name, " and ".join(REQUIRED_BUTTONS))))
    for name in sorted(buttons):
        _pin(buttons[name], "$.buttons.%s" % name, pins, out)


def _check_sensing(sensing, out):
    if not _obj(sensing, "$.sensing", out):
        return
    names = [key for key, _, _, _ in SENSING]
    _keys(sensing, "$.sensing", names, names, out)
    good = True
    for key, low, high, what in SENSING:
        if key in sensing and not _int(sensing, key, "$.sensing." + key, low, high, out, what):
            good = False
    if good and all(key in sensing for key in names):
        if sensing["hysteresis"] >= sensing["threshold"]:
            out.append(("$.sensing.hysteresis", "must be below the threshold (%d), or a turtle "
                        "would never count as gone" % sensing["threshold"]))
        elif sensing["zero_band"] >= sensing["threshold"] - sensing["hysteresis"]:
            out.append(("$.sensing.zero_band", "must be below threshold - hysteresis (%d), or an "
                        "empty cell could read as a turtle"
                        % (sensing["threshold"] - sensing["hysteresis"])))


def _check_cells(cells, names, muxes, led_count, leds, out):
    if not _obj(cells, "$.cells", out):
        return
    channels = CHANNELS_PER_MUX * muxes
    group_leds = {}
    if isinstance(leds, dict) and isinstance(leds.get("groups"), dict):
        for group in sorted(leds["groups"]):
            these = leds["groups"][group]
            if isinstance(these, list):
                for i, led in enumerate(these):
                    if _is_int(led) and led not in group_leds:
                        group_leds[led] = "$.leds.groups.%s.%d" % (group, i)
    sensor_at = {}  # type: dict
    led_at = {}  # type: dict
    for name in sorted(cells):
        path = "$.cells.%s" % name
        if names is not None and name not in names:
            out.append((path, "%r is not a cell of this game%s; its cells are: %s"
                        % (name, _suggest(name, names), _cell_list(names))))
            continue
        cell = cells[name]
        if not _obj(cell, path, out):
            continue
        _keys(cell, path, CELL_KEYS, CELL_KEYS, out)
        sensor = cell.get("sensor")
        if "sensor" in cell and _int(cell, "sensor", path + ".sensor", 0, 1000, out):
            if muxes and sensor >= channels:
                out.append((path + ".sensor", "channel %d does not exist: %d multiplexer(s) give "
                            "channels 0..%d (channel = mux * 16 + input)"
                            % (sensor, muxes, channels - 1)))
            elif sensor in sensor_at:
                out.append((path + ".sensor", "channel %d is also the sensor of %s; every cell "
                            "needs its own sensor" % (sensor, sensor_at[sensor])))
            else:
                sensor_at[sensor] = path
        led = cell.get("led")
        if "led" in cell and _led(led, path + ".led", led_count, out):
            if led in led_at:
                out.append((path + ".led", "LED %d is also the LED of %s" % (led, led_at[led])))
            elif led in group_leds:
                out.append((path + ".led", "LED %d is also in %s" % (led, group_leds[led])))
            else:
                led_at[led] = path
    if names is not None:
        missing = [name for name in names if name not in cells]
        if missing:
            out.append(("$.cells", "missing cell(s): %s; every cell of the game needs a sensor "
                        "and an LED" % ", ".join(missing)))


# ---- small checks: each appends its problem and returns True when good ----


def _obj(value, path, out):
    if value is MISSING:
        return False  # reported as a missing key
    if not isinstance(value, dict):
        out.append((path, "must be an object {...}, not %s" % _kind(value)))
        return False
    return True


def _keys(obj, path, allowed, required, out):
    for key in sorted(obj):
        if key not in allowed:
            out.append(("%s.%s" % (path, key), "unknown key%s; the keys here are: %s"
                        % (_suggest(key, allowed), ", ".join(allowed))))
    for key in required:
        if key not in obj:
            out.append((path, "missing key %r" % key))


def _int(obj, key, path, low, high, out, what=None):
    if key not in obj:
        return False
    value = obj[key]
    if not _is_int(value):
        out.append((path, "must be a whole number, not %s" % _kind(value)))
        return False
    if value < low or value > high:
        out.append((path, "%d is out of range %d..%d%s"
                    % (value, low, high, " (%s)" % what if what else "")))
        return False
    return True


def _pin(pin, path, pins, out):
    if not _is_int(pin):
        out.append((path, "must be a GPIO number, not %s" % _kind(pin)))
        return
    if pin not in PICO_PINS:
        out.append((path, "GPIO %d is not on the Pico's header (use 0..22 or 26..28)" % pin))
        return
    for used, where in pins:
        if used == pin:
            out.append((path, "GPIO %d is already used by %s" % (pin, where)))
            return
    pins.append((pin, path))


def _led(led, path, count, out):
    if not _is_int(led):
        out.append((path, "must be an LED index (a whole number), not %s" % _kind(led)))
        return False
    if led < 0 or (count and led >= count):
        out.append((path, "LED index %d is out of range: the chain has %d LEDs (0..%d)"
                    % (led, count, count - 1)))
        return False
    return True


def _length(text):
    # Characters as JSON counts them, the same on CPython and MicroPython:
    # one beyond U+FFFF (an emoji) is two (MicroPython reads "\ud83d\udc22"
    # in a file as two).
    return len(text) + len([c for c in text if ord(c) > 0xFFFF])


def _is_int(value):
    return isinstance(value, int) and not isinstance(value, bool)


def _kind(value):
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true/false"
    if isinstance(value, str):
        return "text %r" % value
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return repr(value)


def _cell_list(names):
    if len(names) > 12:
        return "%s, ... %s (%d cells)" % (", ".join(names[:6]), ", ".join(names[-3:]), len(names))
    return ", ".join(names)


def _suggest(word, choices):
    # " (did you mean 'x'?)" for the closest choice within a small edit distance.
    if not isinstance(word, str):
        return ""
    best = None
    best_d = 3 if len(word) > 4 else 2
    for choice in choices:
        d = _distance(word.lower(), choice.lower())
        if d < best_d:
            best, best_d = choice, d
    return " (did you mean %r?)" % best if best is not None else ""


def _distance(a, b):
    # Levenshtein distance, one row at a time.
    row = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        prev = row[0]
        row[0] = i
        for j in range(1, len(b) + 1):
            here = row[j]
            cost = 0 if a[i - 1] == b[j - 1] else 1
            row[j] = min(row[j] + 1, row[j - 1] + 1, prev + cost)
            prev = here
    return row[len(b)]
