"""The sim world: the physical pieces on the virtual board (docs/sim-world.md).

It knows where every turtle is (stacks on cells, bottom first, each on its
feet or flipped; the turtles in the player's hand; the box of spare turtles),
which buttons are held, and turns that into what the hall sensors read. It
writes `<dir>/world/adc` and `<dir>/world/buttons` atomically after every
change and reads the LEDs the firmware shows from `<dir>/world/leds`. The
pieces are saved in `<dir>/world/pieces.json`, so they stay where they are when
the device or the program driving them restarts, as on a real table.

Only what a person can do is allowed: a turtle is put down only if it is in
the hand, lifted only from a cell that holds one.
"""

from __future__ import annotations

import json
import os
import random
import threading
import time

from turtles.game import DOWN, EMPTY, UP

# The sensor model (docs/sim-world.md), in read_u16 units.
MID = 32768           # no field
OFFSET_SPAN = 800     # each sensor's own offset lies within +/- this
FIELD = 14000         # one turtle's magnet: + on its feet, - flipped
STACK_STEP = 1200     # each turtle above the bottom one adds this (up to STACK_MAX)
STACK_MAX = 3
BOUNCE_MS = 150       # a turtle being put down wobbles this long


class WorldError(ValueError):
    """A world action a person could not do (nothing in hand, empty cell...)."""


def sensor_offset(channel: int) -> int:
    """A fixed per-sensor offset, as real sensors and magnets differ."""
    return (channel * 7919 + 17) % (2 * OFFSET_SPAN + 1) - OFFSET_SPAN


def reading(channel: int, stack: list, field: int = FIELD, polarity: int = 1) -> int:
    """What the sensor under `stack` (bottom first) reads, without noise:
    `field` is what one turtle adds at this cell, `polarity` -1 for a sensor
    mounted the wrong way round."""
    value = MID + sensor_offset(channel)
    if stack:
        strength = field + STACK_STEP * min(len(stack) - 1, STACK_MAX)
        value += polarity * (strength if stack[0][1] else -strength)
    return max(0, min(65535, value))


WIRING_FILE = "wiring.json"
WEAK_FIELD = 7000  # a weak magnet (or a sensor too deep under its cell), by default


class Wiring:
    """The board as it is soldered, which may differ from the board file the
    firmware runs: per cell its sensor's channel and its LED's place on the
    chain, and how its sensor answers (polarity, the field a turtle gives
    there, dead). Kept in <world>/wiring.json (docs/sim-world.md)."""

    def __init__(self, board, spec: dict | None = None):
        self.board = board
        self.cells = list(board.cells)
        self.sensor = {c: board.sensor_of[i] for i, c in enumerate(self.cells)}
        self.led = {c: board.led_of[i] for i, c in enumerate(self.cells)}
        self.polarity = {c: 1 for c in self.cells}
        self.field = {c: FIELD for c in self.cells}
        self.dead: set[str] = set()
        self.chain = int((spec or {}).get("chain", board.led_count))  # LEDs soldered on the chain
        # the places LEDs too many were soldered in at, in that order (extra_led)
        self.extra = [int(p) for p in (spec or {}).get("extra", [])]
        self.buttons = dict(board.buttons)  # each button's GPIO as soldered
        for name, pin in sorted((spec or {}).get("buttons", {}).items()):
            if name not in self.buttons:
                raise WorldError("the wiring names button %r, which the board has not; its "
                                 "buttons are %s" % (name, " ".join(self.buttons)))
            self.buttons[name] = int(pin)
        for cell, item in sorted((spec or {}).get("cells", {}).items()):
            if cell not in self.led:
                raise WorldError("the wiring names cell %r, which the board has not" % cell)
            self.sensor[cell] = int(item.get("sensor", self.sensor[cell]))
            self.led[cell] = int(item.get("led", self.led[cell]))
            self.polarity[cell] = -1 if item.get("reversed") else 1
            self.field[cell] = int(item.get("field", FIELD))
            if item.get("dead"):
                self.dead.add(cell)
        self.check()

    @classmethod
    def from_board_file(cls, board, other) -> Wiring:
        """The wiring another board file describes (its cells' sensor and led)."""
        spec = {c: {"sensor": other.sensor_of[i], "led": other.led_of[i]}
                for i, c in enumerate(other.cells) if c in board.cells}
        buttons = {name: pin for name, pin in other.buttons if name in dict(board.buttons)}
        return cls(board, {"cells": spec, "chain": other.led_count, "buttons": buttons})

    def check(self) -> None:
        channels = self.board.channels()
        seen: dict[int, str] = {}
        for cell in self.cells:
            ch = self.sensor[cell]
            if not 0 <= ch < channels:
                raise WorldError("cell %s: channel %d is not on the multiplexers (0..%d)"
                                 % (cell, ch, channels - 1))
            if ch in seen:
                raise WorldError("cells %s and %s are both wired to channel %d"
                                 % (seen[ch], cell, ch))
            seen[ch] = cell
            if not 0 <= self.led[cell] < self.chain:
                raise WorldError("cell %s: LED %d is not on the chain of %d"
                                 % (cell, self.led[cell], self.chain))

    def _known(self, cell: str) -> str:
        if cell not in self.sensor:
            raise WorldError("there is no cell %r on this board; the cells are %s"
                             % (cell, " ".join(self.cells)))
        return cell

    # -- the faults a maker can solder ------------------------------------------

    def swap_sensors(self, a: str, b: str) -> None:
        a, b = self._known(a), self._known(b)
        self.sensor[a], self.sensor[b] = self.sensor[b], self.sensor[a]

    def swap_leds(self, a: str, b: str) -> None:
        a, b = self._known(a), self._known(b)
        self.led[a], self.led[b] = self.led[b], self.led[a]

    def swap_buttons(self, a: str, b: str) -> None:
        for name in (a, b):
            if name not in self.buttons:
                raise WorldError("there is no button %r on this board; the buttons are %s"
                                 % (name, " ".join(self.buttons)))
        self.buttons[a], self.buttons[b] = self.buttons[b], self.buttons[a]

    def read_as(self, held: list[str]) -> list[str]:
        """The buttons the board reads held when the buttons `held` are
        pressed: the board file's names of the pins they are soldered to."""
        at_pin = {pin: name for name, pin in self.board.buttons}
        return [at_pin[self.buttons[n]] for n in held if self.buttons.get(n) in at_pin]

    def extra_led(self, place: int) -> None:
        """An LED too many soldered in at `place` on the chain: every LED
        from there on one place further."""
        if not 0 <= place <= self.chain:
            raise WorldError("an extra LED goes at a place 0..%d of the chain, not %d"
                             % (self.chain, place))
        for cell in self.cells:
            if self.led[cell] >= place:
                self.led[cell] += 1
        self.chain += 1
        self.extra.append(place)

    def light_at(self, led: int) -> int:
        """Where the board file's LED `led` (a group's light, one beside no
        cell) is soldered: one place further for each LED too many before it."""
        for place in self.extra:
            if led >= place:
                led += 1
        return led

    def reverse(self, cell: str) -> None:
        self.polarity[self._known(cell)] *= -1

    def kill(self, cell: str) -> None:
        self.dead.add(self._known(cell))

    def weaken(self, cell: str, field: int = WEAK_FIELD) -> None:
        self.field[self._known(cell)] = field

    def faults(self) -> list[str]:
        """What differs from the board file, in words."""
        out = []
        board = self.board
        if self.chain != board.led_count:
            out.append("%d LEDs on the chain (the board file says %d)" % (self.chain, board.led_count))
        for name, pin in board.buttons:
            if self.buttons[name] != pin:
                out.append("button %s on GP%d (the board file says GP%d)"
                           % (name.upper(), self.buttons[name], pin))
        for i, cell in enumerate(self.cells):
            if self.sensor[cell] != board.sensor_of[i]:
                out.append("cell %s: sensor on channel %d (the board file says %d)"
                           % (cell, self.sensor[cell], board.sensor_of[i]))
            if self.led[cell] != board.led_of[i]:
                out.append("cell %s: LED %d (the board file says %d)"
                           % (cell, self.led[cell], board.led_of[i]))
            if self.polarity[cell] < 0:
                out.append("cell %s: sensor mounted the wrong way round" % cell)
            if cell in self.dead:
                out.append("cell %s: dead sensor" % cell)
            if self.field[cell] != FIELD:
                out.append("cell %s: a turtle gives %d counts there, not %d"
                           % (cell, self.field[cell], FIELD))
        return out

    def to_json(self) -> dict:
        cells = {}
        for cell in self.cells:
            item = {"sensor": self.sensor[cell], "led": self.led[cell]}
            if self.polarity[cell] < 0:
                item["reversed"] = True
            if self.field[cell] != FIELD:
                item["field"] = self.field[cell]
            if cell in self.dead:
                item["dead"] = True
            cells[cell] = item
        out = {"cells": cells}
        if self.chain != self.board.led_count:
            out["chain"] = self.chain
        if self.extra:
            out["extra"] = list(self.extra)
        moved = {n: p for n, p in self.board.buttons if self.buttons[n] != p}
        if moved:
            out["buttons"] = {n: self.buttons[n] for n in moved}
        return out

    def save(self, world_dir: str) -> None:
        _atomic_write(os.path.join(world_dir, WIRING_FILE),
                      json.dumps(self.to_json(), sort_keys=True, indent=1) + "\n")


def load_wiring(board, world_dir: str) -> Wiring:
    """The wiring in <world>/wiring.json, or the board file's when there is none."""
    path = os.path.join(world_dir, WIRING_FILE)
    try:
        with open(path) as f:
            spec = json.load(f)
    except FileNotFoundError:
        return Wiring(board)
    except (OSError, ValueError) as e:
        raise WorldError("%s cannot be read (%s); delete it for the board file's wiring"
                         % (path, e))
    return Wiring(board, spec)


def _atomic_write(path: str, text: str) -> None:
    # A temporary name of this process and thread: the virtual board's own
    # world (adding noise) and the program moving the pieces both write adc.
    tmp = "%s.%d-%d.tmp" % (path, os.getpid(), threading.get_ident())
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, path)


class World:
    """The pieces of one virtual board. A piece is [name, up] (up: on its feet)."""

    def __init__(self, board, world_dir: str, noise: float = 0, bounce: bool = False,
                 seed: int = 1, load: bool = True, follow: bool = False):
        self.board = board
        self.dir = world_dir
        os.makedirs(world_dir, exist_ok=True)
        self.noise = noise
        self.bounce = bounce
        self.random = random.Random(seed)
        self.clock = time.monotonic  # seconds: a simulated table's own clock (docs/simulation.md)
        self.lock = threading.RLock()
        self.stacks: dict[str, list] = {cell: [] for cell in board.cells}
        self.hand: list = []
        self.held: list[str] = []
        self.button_names = [name for name, _ in board.buttons]
        self._settling: dict[str, float] = {}
        self._ticker: threading.Thread | None = None
        self._stop = threading.Event()
        self.changes = 0
        self.follow = follow  # only add noise to pieces another program moves
        self._seen_mtime = None
        self._wiring_mtime = None
        self.wiring = load_wiring(board, world_dir)
        if load:
            self._load()
        self.write(buttons=True)
        self.start_ticker()

    # -- what the pieces look like ------------------------------------------

    def image(self) -> list[int]:
        """Per board cell EMPTY/UP/DOWN, as the sensors would show it."""
        out = []
        for cell in self.board.cells:
            stack = self.stacks[cell]
            out.append(EMPTY if not stack else (UP if stack[0][1] else DOWN))
        return out

    def readings(self) -> list[int]:
        """Per sensor channel, what the ADC reads now (noise and bounce included)."""
        values = [reading(ch, []) for ch in range(self.board.channels())]
        now = self.clock()
        w = self.wiring
        for cell in self.board.cells:
            ch = w.sensor[cell]
            if cell in w.dead:
                values[ch] = 0  # no sensor output: the input is pulled to ground
                continue
            full = reading(ch, self.stacks[cell], w.field[cell], w.polarity[cell])
            until = self._settling.get(cell)
            if until is not None and now < until:
                # Being put down: the magnet comes and goes.
                empty = reading(ch, [])
                full = self.random.choice((empty, (empty + full) // 2, full))
            values[ch] = full
        if self.noise:
            values = [max(0, min(65535, int(v + self.random.gauss(0, self.noise))))
                      for v in values]
        return values

    def leds(self) -> list[str]:
        """The LED colours the firmware shows ('rrggbb' per LED), [] before any."""
        try:
            with open(os.path.join(self.dir, "leds")) as f:
                return f.read().split()
        except OSError:
            return []

    def cell_led(self, cell: str) -> str:
        """The colour of the LED beside `cell` (where it is soldered)."""
        colours = self.leds()
        i = self.wiring.led[cell]
        return colours[i] if i < len(colours) else "000000"

    def lit_cells(self) -> list[str]:
        """The cells whose LED is lit now, as a person looking at the board sees them."""
        colours = self.leds()
        return [c for c in self.board.cells
                if self.wiring.led[c] < len(colours) and colours[self.wiring.led[c]] != "000000"]

    def lit_leds(self) -> list[int]:
        """The LEDs lit now that are soldered on the chain (beside a cell or not)."""
        colours = self.leds()[:self.wiring.chain]
        return [i for i, c in enumerate(colours) if c != "000000"]

    def set_wiring(self, wiring: Wiring) -> None:
        """Solder the board anew (a repair): saved for every program on this world."""
        with self.lock:
            self.wiring = wiring
            wiring.save(self.dir)
            self.write(buttons=True)

    # -- what a person does ---------------------------------------------------

    def _cell(self, cell: str) -> list:
        if cell not in self.stacks:
            raise WorldError("there is no cell %r on this board; the cells are %s"
                             % (cell, " ".join(self.board.cells)))
        return self.stacks[cell]

    def lift(self, cell: str, count: int | None = None) -> None:
        """Lift the top `count` turtles (all by default) of a cell into the hand."""
        with self.lock:
            stack = self._cell(cell)
            if not stack:
                raise WorldError("cell %s is empty: there is no turtle to lift" % cell)
            if self.hand:
                raise WorldError("the hand already holds %d turtle(s); put them down first"
                                 % len(self.hand))
            count = len(stack) if count is None else count
            if not 1 <= count <= len(stack):
                raise WorldError("cell %s holds %d turtle(s); cannot lift %d"
                                 % (cell, len(stack), count))
            self.hand = stack[len(stack) - count:]
            del stack[len(stack) - count:]
            self._settling.pop(cell, None)
            self._changed()

    def lift_more(self, cell: str) -> None:
        """One more turtle of a cell into the hand, under those it holds (a
        hand that took the top of that stack takes the next one too)."""
        with self.lock:
            stack = self._cell(cell)
            if not stack:
                raise WorldError("cell %s has no more turtles to lift" % cell)
            self.hand.insert(0, stack.pop())
            self._settling.pop(cell, None)
            self._changed()

    def place(self, cell: str, count: int | None = None, up: bool | None = None) -> None:
        """Put the bottom `count` turtles of the hand (all by default) on a cell.

        `up` turns the bottom one put down on its feet (True) or flipped (False)."""
        with self.lock:
            stack = self._cell(cell)
            if not self.hand:
                raise WorldError("the hand is empty: take or lift a turtle before putting one on %s"
                                 % cell)
            count = len(self.hand) if count is None else count
            if not 1 <= count <= len(self.hand):
                raise WorldError("the hand holds %d turtle(s); cannot put down %d"
                                 % (len(self.hand), count))
            pieces = self.hand[:count]
            self.hand = self.hand[count:]
            if up is not None:
                pieces[0] = [pieces[0][0], bool(up)]
            stack.extend(pieces)
            if self.bounce:
                self._settling[cell] = self.clock() + BOUNCE_MS / 1000
            self._changed()

    def slide(self, src: str, dst: str, count: int | None = None) -> None:
        """Push the top `count` turtles of a cell (all by default) onto the next
        without lifting them: the new cell reads them as the old one lets go."""
        with self.lock:
            stack = self._cell(src)
            to = self._cell(dst)
            if not stack:
                raise WorldError("cell %s is empty: there is no turtle to slide" % src)
            count = len(stack) if count is None else count
            if not 1 <= count <= len(stack):
                raise WorldError("cell %s holds %d turtle(s); cannot slide %d"
                                 % (src, len(stack), count))
            to.extend(stack[len(stack) - count:])
            del stack[len(stack) - count:]
            self._changed()

    def pick(self, cell: str, index: int) -> None:
        """Take one turtle of a cell whose turtles stand side by side (the
        Mahé raft) into the (empty) hand: any of them, `index` in its list,
        not only the one put there last."""
        with self.lock:
            stack = self._cell(cell)
            if not 0 <= index < len(stack):
                raise WorldError("cell %s holds %d turtle(s); there is no turtle %d to take"
                                 % (cell, len(stack), index + 1))
            if self.hand:
                raise WorldError("the hand already holds %d turtle(s); put them down first"
                                 % len(self.hand))
            stack.append(stack.pop(index))
            self.lift(cell, 1)

    def flip(self, cell: str) -> None:
        """Turn the single turtle on a cell over."""
        with self.lock:
            stack = self._cell(cell)
            if not stack:
                raise WorldError("cell %s is empty: there is no turtle to flip" % cell)
            if len(stack) > 1:
                raise WorldError("cell %s holds a stack of %d; only a single turtle can be flipped"
                                 % (cell, len(stack)))
            stack[0] = [stack[0][0], not stack[0][1]]
            self._changed()

    def take(self, name: str = "turtle", up: bool = True) -> None:
        """Take a turtle from the box into the hand (the box never runs out)."""
        with self.lock:
            self.hand.append([name, bool(up)])
            self._changed()

    def put_away(self) -> None:
        """Put the turtles in the hand back in the box (off the board)."""
        with self.lock:
            if not self.hand:
                raise WorldError("the hand is empty: nothing to put away")
            self.hand = []
            self._changed()

    def clear(self) -> None:
        """Sweep every turtle off the board into the box."""
        with self.lock:
            for cell in self.stacks:
                self.stacks[cell] = []
            self.hand = []
            self._changed()

    def pieces(self) -> dict[str, list]:
        """Where the turtles stand now (a copy), for set_pieces()."""
        with self.lock:
            return {c: [list(p) for p in s] for c, s in self.stacks.items()}

    def set_pieces(self, stacks: dict[str, list]) -> None:
        """Put every turtle back where pieces() found them (the hand empty)."""
        with self.lock:
            self.stacks = {c: [list(p) for p in stacks.get(c, [])] for c in self.board.cells}
            self.hand = []
            self._changed()

    def press(self, name: str) -> None:
        with self.lock:
            if name not in self.button_names:
                raise WorldError("there is no button %r; the buttons are %s"
                                 % (name, " ".join(self.button_names)))
            if name not in self.held:
                self.held.append(name)
                self._write_buttons()

    def release(self, name: str) -> None:
        with self.lock:
            if name in self.held:
                self.held.remove(name)
                self._write_buttons()

    # -- files --------------------------------------------------------------

    def _changed(self) -> None:
        if self.follow:
            raise WorldError("this world only adds noise; another program moves the pieces")
        self.changes += 1
        self.write()
        self._save()

    def write(self, buttons: bool = False) -> None:
        """Write adc (and buttons), each atomically."""
        with self.lock:
            values = self.readings()
            _atomic_write(os.path.join(self.dir, "adc"), " ".join(str(v) for v in values) + "\n")
            if buttons:
                self._write_buttons()

    def _write_buttons(self) -> None:
        self.changes += 1
        read = self.wiring.read_as(self.held)  # as soldered
        _atomic_write(os.path.join(self.dir, "buttons"), " ".join(read) + "\n")

    def _save(self) -> None:
        state = {
            "cells": {cell: self.stacks[cell] for cell in self.board.cells if self.stacks[cell]},
            "hand": self.hand,
        }
        _atomic_write(os.path.join(self.dir, "pieces.json"),
                      json.dumps(state, sort_keys=True) + "\n")

    def _load(self) -> None:
        path = os.path.join(self.dir, "pieces.json")
        try:
            with open(path) as f:
                state = json.load(f)
        except FileNotFoundError:
            return
        except (OSError, ValueError) as e:
            raise WorldError("%s cannot be read (%s); delete it to start with an empty board"
                             % (path, e))
        self.stacks = {cell: [] for cell in self.board.cells}
        for cell, stack in sorted(state.get("cells", {}).items()):
            if cell in self.stacks:
                self.stacks[cell] = [[str(n), bool(u)] for n, u in stack]
        self.hand = [[str(n), bool(u)] for n, u in state.get("hand", [])]

    # -- noise and bounce need fresh readings all the time ---------------------

    def start_ticker(self, period_ms: int = 10) -> None:
        """Rewrite the readings every `period_ms` (for noise and bounce)."""
        if self._ticker is not None or not (self.noise or self.bounce):
            return

        def tick():
            while not self._stop.wait(period_ms / 1000):
                if self.follow:
                    self._follow()
                with self.lock:
                    if not (self.noise or self._settling):
                        continue
                    now = self.clock()
                    done = [c for c, t in self._settling.items() if t <= now]
                    self.write()  # the cells in `done` read at rest now
                    for cell in done:
                        del self._settling[cell]

        self._ticker = threading.Thread(target=tick, name="world-ticker", daemon=True)
        self._ticker.start()

    def _follow(self) -> None:
        # Another program moves the pieces: take its pieces.json when it
        # changes (and its wiring.json: a repair).
        try:
            mtime = os.stat(os.path.join(self.dir, WIRING_FILE)).st_mtime_ns
        except OSError:
            mtime = None
        if mtime != self._wiring_mtime:
            self._wiring_mtime = mtime
            with self.lock:
                try:
                    self.wiring = load_wiring(self.board, self.dir)
                except WorldError:
                    pass
        try:
            mtime = os.stat(os.path.join(self.dir, "pieces.json")).st_mtime_ns
        except OSError:
            return
        if mtime != self._seen_mtime:
            self._seen_mtime = mtime
            with self.lock:
                try:
                    self._load()
                except WorldError:
                    pass

    def close(self) -> None:
        self.stop_ticker()

    def stop_ticker(self) -> None:
        self._stop.set()
        if self._ticker is not None:
            self._ticker.join(1)
            self._ticker = None
        self._stop.clear()
