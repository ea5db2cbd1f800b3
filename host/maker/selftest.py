"""`turtleboard board test`: the guided self-test of a built board.

With the firmware running, through the protocol's `selftest` command
(docs/protocol.md): the game stands still, every LED is lit in turn and the
person says where they see it; a turtle is asked for on every cell in turn
(and flipped, on a board for Tortuga) and the channel that answers is found
from the raw readings of every multiplexer input. What comes out:

- a report: LEDs in another order than the board file says (as the mapping
  found), swapped sensor channels, dead sensors, sensors that do not answer,
  sensors mounted the wrong way round, weak magnets with their margin to the
  threshold in ADC counts;
- a corrected board file beside the old one (the differences shown), and a
  calibration with the measured empty levels in the device's own format
  (`calibration.txt`), with the threshold measured into the board file;
  `turtleboard flash --board NEW --calibration CAL` puts both on the board.

Ctrl-C (or any error) gives the board back as it was: the self-test ends on
the device, which shows its game's scene again; no action is ever made.
"""

from __future__ import annotations

import copy
import statistics
import threading
import time

from controller.board import Board, engine_cells
from controller.selftest import SPARE
from controller.sensing import MID
from turtleboard.connection.link import DeviceError, Link, LinkError
from turtleboard.errors import UserError
from turtleboard.maker.boardfile import differences

POLL_S = 0.04        # between two readings of the channels
READS = 4            # readings the device averages per poll
SETTLED = 3          # polls in a row that agree: a turtle has been put down
KEEPALIVE_S = 3.0    # the device leaves the self-test after 10 s without a word
WHITE = "ffffff"
NO_CELL = ""         # an LED lit beside no cell: a light of a group, or one too many
BACK = "<"           # typed: the step before again (<N: LED N again)


class Person:
    """The maker at the board, in the terminal: told what to do, asked what
    they see. Scripted hands (turtleboard.sim.tester) answer the same calls."""

    patience_s = 120.0  # how long a cell waits for its turtle
    stdin_closed = False

    def __init__(self, out=print, ask=input):
        import sys

        self.tty = out is print and sys.stdout.isatty()  # a countdown can be shown
        self.counting: int | None = None  # the seconds the countdown shows
        self.out = self._fresh_line(out)
        self.ask = self._fresh_line(ask)

    def _fresh_line(self, say):
        def call(*args):
            self.waiting(None)  # what is said next goes on a line of its own
            return say(*args)
        return call

    def waiting(self, left_s: float | None) -> None:
        """While a step waits: the seconds left, on a line of its own that
        counts down (None: the wait is over)."""
        import math
        import sys

        if not self.tty:
            return
        shown = None if left_s is None else max(0, math.ceil(left_s))
        if shown == self.counting:
            return
        self.counting = shown
        sys.stdout.write("\r\033[K" if shown is None else
                         "\r    %3d s left; Enter skips this step " % shown)
        sys.stdout.flush()

    def tell(self, text: str) -> None:
        self.out(text)

    def clear_board(self) -> None:
        self.ask("Take every turtle off the board, then press Enter. ")

    def which_led(self, led: int, expected: str | None, name: str) -> str | None:
        """Where the person sees LED `led` lit: a cell, NO_CELL, or None (not
        lit). `expected` is what the board file says (a cell, NO_CELL for a
        light of a group, None past its chain), `name` says it in words."""
        if expected is None:
            question = ("  LED %d (%s): Enter if nothing lights; else the cell it lights beside, "
                        "or none if beside no cell: " % (led, name))
        elif expected == NO_CELL:
            question = ("  LED %d (%s) is lit: Enter if it is beside no cell; else the cell it "
                        "is beside, or - if nothing lights: " % (led, name))
        else:
            question = ("  LED %d is lit: is it beside cell %s? Enter if so; else the cell it is "
                        "beside, none if beside no cell, or - if nothing lights: " % (led, expected))
        text = self.ask(question).strip()
        if not text:
            return expected
        return {"-": None, "none": NO_CELL}.get(text, text)  # or <, <N: back

    def review(self) -> str:
        """Once every cell is done: a cell to test again (< the last), or '' to go on."""
        return self.ask("  Enter to go on; or a cell to test it again (< the last one): ").strip()

    def put(self, cell: str) -> None:
        self.out("  put a turtle on its feet on cell %s (Enter: skip it; <: the cell before "
                 "again)" % cell)

    def typed(self) -> str | None:
        """The line the person typed while a step waits (Enter: '', skip it;
        <: the step before again; a cell's name: that cell again), or None."""
        import select
        import sys

        if self.stdin_closed:
            return None
        try:
            if not select.select([sys.stdin], [], [], 0)[0]:
                return None
            line = sys.stdin.readline()
        except (OSError, ValueError):
            line = ""
        if not line:  # no terminal to read from, or its end
            self.stdin_closed = True
            return None
        return line.strip()

    def flip(self, cell: str) -> None:
        self.out("  turn it over (on its back) on cell %s" % cell)

    def lift(self, cell: str) -> None:
        self.out("  take it off cell %s" % cell)

    def press(self, button: str) -> None:
        self.out("  press and hold %s (Enter: skip it)" % button.upper())

    def release(self, button: str) -> None:
        self.out("  let go of %s" % button.upper())

    def done(self) -> None:
        pass


class CellResult:
    """What the sensor test found about one cell."""

    def __init__(self, cell: str, channel: int):
        self.cell = cell
        self.channel = channel        # in the board file
        self.found: int | None = None  # the channel that answered
        self.up: int | None = None    # offset from empty, a turtle on its feet
        self.down: int | None = None  # offset from empty, flipped
        self.empty: int | None = None  # the empty reading of the channel found
        self.skipped = False           # the person skipped it: not tested, no fault
        self.problems: list[str] = []

    @property
    def strength(self) -> int | None:
        values = [abs(v) for v in (self.up, self.down) if v is not None]
        return min(values) if values else None


def up100(n: int) -> int:
    return (n + 99) // 100 * 100


def seen_text(seen: str | None) -> str:
    return "not lit" if seen is None else ("beside cell %s" % seen if seen else "beside no cell")


def where(ch: int) -> str:
    return "multiplexer %d input %d (channel %d)" % (ch >> 4, ch & 15, ch)


def nearest_in_order(want: list[int], free: list[int], avoid=frozenset()) -> list[int]:
    """For each of `want` (in order) one of `free` (in order, at least as
    many), keeping their order, the sum of distances least; one in `avoid`
    only when there is no other way."""
    m, n = len(want), len(free)
    inf = float("inf")
    cost = [[inf] * (n + 1) for _ in range(m + 1)]  # cost[i][j]: want[:i] on free[:j]
    cost[0] = [0] * (n + 1)
    for i in range(1, m + 1):
        for j in range(i, n + 1):
            cost[i][j] = min(cost[i][j - 1], cost[i - 1][j - 1] + abs(want[i - 1] - free[j - 1])
                             + (10000 if free[j - 1] in avoid else 0))
    out, j = [], n
    for i in range(m, 0, -1):
        while cost[i][j] == cost[i][j - 1]:
            j -= 1
        out.append(free[j - 1])
        j -= 1
    return out[::-1]


class SelfTest:
    def __init__(self, link: Link, obj: dict, person: Person, patience_s: float | None = None):
        self.link = link
        self.obj = obj
        self.board = Board(obj, engine_cells(obj["games"][0], obj["geometry"]))
        self.person = person
        self.patience_s = person.patience_s if patience_s is None else patience_s
        s = self.board.sensing
        self.threshold = s["threshold"]
        self.hysteresis = s["hysteresis"]
        self.rail = s["rail"]
        self.zero_band = s["zero_band"]
        self.flips = "tortuga" in self.board.games  # flipped turtles count there
        self.base: list[int] = []
        self.noise: list[int] = []
        self.leds: list[tuple[int, str | None, str | None]] = []  # (led, the file's, seen)
        self.cells: dict[str, CellResult] = {}
        self.buttons: dict[str, str | None] = {}  # button -> what the board read when pressed
        self.skipped_buttons: list[str] = []       # the person skipped them: not tested
        self.notes: list[str] = []
        self.doubts: list[str] = []  # findings not written: they disagree (corrected())
        self._stop = threading.Event()
        self._alive: threading.Thread | None = None

    # ---- the device -----------------------------------------------------

    def command(self, payload: dict, timeout: float = 3.0) -> None:
        """A selftest command, answered by its own `ok` or `error` only (a
        faulty board sends sensor errors of its own at any time)."""
        seq = self.link.send("selftest", payload)
        f = self.link.wait_for(("ok", "error"), timeout, lambda f: f.payload.get("re") == seq)
        if f.kind == "error":
            raise DeviceError(f.payload.get("code", "?"), f.payload.get("msg", ""))

    def start(self) -> None:
        try:
            self.command({"on": True, "led": -1})
        except DeviceError as e:
            if e.code != "unknown-command":
                raise
            raise UserError("the firmware on the board has no self-test (it is older); update "
                            "it with `turtleboard flash` and test again") from None
        self._alive = threading.Thread(target=self._keepalive, name="selftest-alive", daemon=True)
        self._alive.start()

    def _keepalive(self) -> None:
        while not self._stop.wait(KEEPALIVE_S):
            try:
                self.link.send("selftest", {})
            except LinkError:
                return

    def stop(self) -> None:
        """Give the board back to its game (also after Ctrl-C or an error)."""
        self._stop.set()
        if self._alive is not None:
            self._alive.join(1)
        if self.link.is_open:
            try:
                self.command({"on": False})
            except LinkError:
                pass  # the device gives itself back after 10 s anyway

    def read(self) -> list[int]:
        return self.read_all()["raw"]

    def read_all(self) -> dict:
        seq = self.link.send("selftest", {"read": READS})
        f = self.link.wait_for(("channels", "error"), 3.0,
                               lambda f: f.kind == "channels" or f.payload.get("re") == seq)
        if f.kind == "error":
            raise DeviceError(f.payload.get("code", "?"), f.payload.get("msg", ""))
        self.link.backlog.clear()  # the `ok`s and whatever else: nothing to keep
        return f.payload

    def light(self, led: int) -> None:
        self.command({"led": led, "colour": WHITE})

    # ---- the steps --------------------------------------------------------

    def run(self) -> None:
        self.start()
        try:
            self.person.clear_board()
            self.measure_empty()
            self.test_leds()
            self.test_sensors()
            self.test_buttons()
        finally:
            self.stop()
            self.person.done()

    def measure_empty(self, polls: int = 12) -> None:
        self.person.tell("Reading every sensor on the empty board...")
        rows = []
        for _ in range(polls):
            rows.append(self.read())
            time.sleep(POLL_S)
        n = len(rows[0])
        self.base = [int(statistics.median(r[ch] for r in rows)) for ch in range(n)]
        self.noise = [max(r[ch] for r in rows) - min(r[ch] for r in rows) for ch in range(n)]
        used = set(self.board.sensor_of)
        self.person.tell("  %d channels read; noise up to %d counts"
                         % (n, max(self.noise[ch] for ch in used)))

    def at_rail(self, value: int) -> bool:
        return value <= self.rail or value >= 65535 - self.rail

    def led_roles(self) -> list[tuple[int, str | None, str]]:
        """Every LED of the chain and SPARE places past it: (led, where the
        board file puts it: its cell, NO_CELL or None past the chain, its name)."""
        b = self.board
        roles = {led: (cell, "cell " + cell) for led, cell in zip(b.led_of, b.cells)}
        for group in sorted(b.groups):
            lights = b.groups[group]
            for k, led in enumerate(lights):
                roles.setdefault(led, (NO_CELL, "the %s light%s" % (
                    group, " %d" % (k + 1) if len(lights) > 1 else "")))
        past = "past the %d LEDs of the board file" % b.led_count
        return [(led,) + roles.get(led, (NO_CELL, "no cell's nor group's") if led < b.led_count else (None, past))
                for led in range(b.led_count + SPARE)]

    def test_leds(self) -> None:
        b = self.board
        roles = self.led_roles()
        self.person.tell("LEDs: each LED of the chain lights in turn, and %d past its end "
                         "(< at a question: the LED before again; <N: LED N)." % SPARE)
        answers: dict[int, str | None] = {}
        k = 0
        while k < len(roles):
            led, expected, name = roles[k]
            self.light(led)
            seen = self.person.which_led(led, expected, name)
            if isinstance(seen, str) and seen.startswith(BACK):
                back = seen[1:].strip()
                if back.isdigit() and int(back) < len(roles):
                    k = int(back)
                elif back:
                    self.person.tell("  <N goes back to LED N, one of 0..%d" % (len(roles) - 1))
                else:
                    k = max(0, k - 1)
                continue
            if seen and seen not in b.cells:
                self.person.tell("  there is no cell %r; the cells are %s" % (seen, " ".join(b.cells)))
                continue
            answers[k] = seen
            twice = [roles[j][0] for j, other in answers.items() if seen and other == seen and j != k]
            self.person.tell("  [%d/%d] LED %d (%s): %s%s" % (
                k + 1, len(roles), led, name, "ok" if seen == expected else seen_text(seen),
                "; cell %s was beside LED %d too: <%d asks that one again"
                % (seen, twice[0], twice[0]) if twice else ""))
            k += 1
        self.leds = [(led, expected, answers[k]) for k, (led, expected, _) in enumerate(roles)]
        self.light(-1)

    def test_sensors(self) -> None:
        b = self.board
        self.person.tell("Sensors: a turtle on each cell in turn%s. While a cell waits, type "
                         "another cell's name to test it again."
                         % (", on its feet then flipped" if self.flips else ""))
        order = list(b.cells)  # the cells to test, a cell again where the person asks
        k = 0
        while True:
            if k == len(order):
                typed = self.person.review()
                if not typed:
                    return
            else:
                typed = self.test_cell(order[k])
                if typed is None:
                    k += 1
                    continue
            again = (order[k - 1] if k else None) if typed == BACK else typed
            if again not in b.cells:
                self.person.tell("  there is no cell %r; the cells are %s" % (typed, " ".join(b.cells)))
                continue
            order.insert(k, again)  # that cell, then this one again

    def test_cell(self, cell: str) -> str | None:
        """A turtle on `cell`, flipped, taken off; what the person typed
        instead (to test another cell first), or None when done."""
        b = self.board
        k = b.cells.index(cell)
        step = "[%d/%d] cell %s" % (k + 1, len(b.cells), cell)
        r = CellResult(cell, b.sensor_of[k])
        self.person.put(cell)
        found = self.wait_change(None, None)
        if found == "":
            r.skipped = True
            self.cells[cell] = r
            self.person.tell("  %s: skipped" % step)
            return None
        if isinstance(found, str):
            return found
        self.cells[cell] = r
        if found is None:
            self.person.tell("  %s: no sensor answered" % step)
            self.person.lift(cell)
            return None
        r.found, r.up = found
        r.empty = self.base[r.found]
        if self.flips:
            self.person.flip(cell)
            flipped = self.wait_change(r.found, r.up)
            if isinstance(flipped, tuple):
                r.down = flipped[1]
        self.person.lift(cell)
        self.wait_quiet(r.found)
        twice = [c for c, o in self.cells.items() if c != cell and o.found == r.found]
        self.person.tell("  %s: %s%s" % (step, self.describe(r), (
            "; it answered for cell %s too: one of the two had its turtle on another cell; "
            "type the one to test again" % twice[0]) if twice else ""))
        return None

    def test_buttons(self) -> None:
        names = [name for name, _ in self.board.buttons]
        self.person.tell("Buttons: each in turn.")
        for k, name in enumerate(names):
            self.person.press(name)
            held = self.wait_held(lambda held: len(held) > 0, 1)  # a press may be short
            if held == "":
                self.skipped_buttons.append(name)
                self.person.tell("  [%d/%d] %s: skipped" % (k + 1, len(names), name.upper()))
                continue
            self.buttons[name] = held[0] if held and len(held) == 1 else None
            self.person.release(name)
            self.wait_held(lambda held: not held, SETTLED)
            got = self.buttons[name]
            verdict = "ok" if got == name else ("read as %s" % got.upper() if got else "no answer")
            self.person.tell("  [%d/%d] %s: %s" % (k + 1, len(names), name.upper(), verdict))

    def waited(self, end: float) -> str | None:
        """Once a poll while a step waits: the person sees the time left;
        what they typed, if anything."""
        self.person.waiting(end - time.monotonic())
        return self.person.typed()

    def wait_held(self, done, polls: int):
        """The buttons held once `done(held)` has held for `polls` polls;
        None when it did not in time, '' when the person skipped."""
        end = time.monotonic() + self.patience_s
        agree = 0
        last = None
        try:
            while time.monotonic() < end:
                if self.waited(end) is not None:
                    return ""
                held = self.read_all().get("held", [])
                agree = agree + 1 if done(held) and (held == last or polls == 1) else 0
                last = held
                if agree >= polls:
                    return held
                time.sleep(POLL_S)
            return None
        finally:
            self.person.waiting(None)

    def offsets(self, raw: list[int]) -> list[int]:
        return [raw[ch] - self.base[ch] for ch in range(len(raw))]

    def detect(self, ch: int) -> int:
        # A change this big is a turtle, not noise.
        return max(self.threshold // 3, 4 * self.noise[ch] + 200)

    def wait_change(self, channel: int | None, before: int | None):
        """(channel, offset) of the sensor a turtle changed and that held
        still for SETTLED polls; None when nothing answered in time; what the
        person typed ('' for Enter: skip the step). With `channel`, wait
        for that channel to leave the offset `before` (a flip)."""
        try:
            return self._wait_change(channel, before)
        finally:
            self.person.waiting(None)

    def _wait_change(self, channel: int | None, before: int | None):
        end = time.monotonic() + self.patience_s
        last = None
        agree = 0
        while time.monotonic() < end:
            typed = self.waited(end)
            if typed is not None:
                return typed
            d = self.offsets(self.read())
            if channel is None:
                live = [ch for ch in range(len(d))
                        if abs(d[ch]) >= self.detect(ch) and not self.at_rail(self.base[ch])]
                ch = max(live, key=lambda c: abs(d[c])) if live else None
            else:
                ch = channel if abs(d[channel] - before) >= self.detect(channel) else None
            if ch is not None and last is not None and ch == last[0] and abs(d[ch] - last[1]) < self.detect(ch):
                agree += 1
                if agree >= SETTLED:
                    return ch, d[ch]
            else:
                agree = 0
            last = (ch, d[ch]) if ch is not None else None
            time.sleep(POLL_S)
        return None

    def wait_quiet(self, channel: int | None) -> None:
        """Until the turtle is off: every channel back near its empty level."""
        end = time.monotonic() + self.patience_s
        while time.monotonic() < end:
            d = self.offsets(self.read())
            chans = [channel] if channel is not None else range(len(d))
            if all(abs(d[ch]) < self.detect(ch) or self.at_rail(self.base[ch]) for ch in chans):
                return
            time.sleep(POLL_S)

    # ---- what it means ----------------------------------------------------

    def describe(self, r: CellResult) -> str:
        parts = ["channel %d" % r.found]
        parts.append("on its feet %+d" % r.up)
        if r.down is not None:
            parts.append("flipped %+d" % r.down)
        return ", ".join(parts)

    def judge(self) -> None:
        """Name every fault found (CellResult.problems, self.notes)."""
        b = self.board
        owner = {b.sensor_of[i]: c for i, c in enumerate(b.cells)}
        reversed_cells = []
        weak = []
        for cell, r in self.cells.items():
            ch = r.channel
            if r.skipped:
                continue  # not tested: nothing to say about it
            if r.found is None:
                if self.at_rail(self.base[ch]):
                    r.problems.append("dead: its input reads %d, at the %s rail; check the sensor "
                                      "on %s (power, ground, output wire)"
                                      % (self.base[ch], "ground" if self.base[ch] < MID else "supply",
                                         where(ch)))
                else:
                    stuck = " without the least change" if self.noise[ch] == 0 and max(self.noise) > 0 else ""
                    r.problems.append("no answer: nothing changed when a turtle stood there (%s "
                                      "reads %d%s); a sensor not connected, stuck, or on an "
                                      "input no cell uses" % (where(ch), self.base[ch], stuck))
                continue
            if r.found != ch:
                other = owner.get(r.found)
                r.problems.append("wired to %s, not %s as the board file says%s"
                                  % (where(r.found), where(ch),
                                     " (the input of cell %s: the two wires are swapped)" % other
                                     if other is not None and self.cells.get(other) is not None
                                     and self.cells[other].found == ch else ""))
            if r.up < 0:
                reversed_cells.append(cell)
                r.problems.append("polarity reversed: a turtle on its feet reads %+d, below the "
                                  "empty level; the sensor is mounted the wrong way round (marked "
                                  "face up, towards the turtle)" % r.up)
            strength = r.strength
            margin = strength - self.threshold
            if margin < self.threshold // 2:
                weak.append(r)
            if r.empty is not None and abs(r.empty - MID) > self.zero_band:
                r.problems.append("empty level %d is %d from mid-scale, beyond zero_band %d; the "
                                  "calibration written here holds it" % (r.empty, abs(r.empty - MID),
                                                                        self.zero_band))
        answered = [r for r in self.cells.values() if r.found is not None]
        if answered and len(reversed_cells) == len(answered):
            self.notes.append("every turtle on its feet reads below the empty level: the magnet "
                              "of the test turtle is glued upside down (south pole up; a turtle's "
                              "magnet goes north pole up), not the sensors: turn it over and test "
                              "again")
            for r in answered:
                r.problems = [p for p in r.problems if not p.startswith("polarity")]
        self.judge_weak(weak, answered)
        pins = dict(self.board.buttons)
        for name, got in self.buttons.items():
            if got is None:
                self.notes.append("button %s (GP%d) does not answer: check it between GP%d and GND"
                                  % (name.upper(), pins[name], pins[name]))
            elif got != name:
                self.notes.append("button %s is wired to GP%d, the pin of %s in the board file"
                                  % (name.upper(), pins[got], got.upper()))
        for led, cell, seen in self.leds:
            if seen is None and cell is not None:
                self.notes.append("LED %d (%s) does not light: check its power and the data "
                                  "line from the LED before it" % (led, "cell " + cell if cell else
                                                                   "beside no cell"))
        for led in self.extra_leds():
            self.notes.append("LED %d lights beside no cell, and no light of the board file is "
                              "there: an LED too many on the chain, every LED after it one place "
                              "further on; the corrected board file leaves it dark" % led)

    def judge_weak(self, weak: list, answered: list) -> None:
        """What to do about turtles read weakly, at once: the same test turtle
        stood on every cell, so a few weak cells are sensors too deep, and all
        of them its magnet."""
        if not weak:
            return
        s = self.measured_sensing()
        if len(weak) == len(answered) > 1:
            self.notes.append("every cell reads the test turtle weakly: its magnet is weak; glue "
                              "in a stronger one (6 x 3 mm, N42) in every turtle and test again "
                              "before you flash")
        for r in weak:
            margin = r.strength - self.threshold
            reads = r.strength >= s["threshold"] + s["hysteresis"]
            r.problems.append(
                "weak magnet: a turtle reads %+d, %d counts %s the threshold %d (a margin of %d); "
                "%s" % (r.up, abs(margin), "above" if margin >= 0 else "below", self.threshold,
                        margin,
                        "the corrected board file's threshold %d reads it: flash it and play now; "
                        "raising the sensor closer under the cell's centre is optional"
                        % s["threshold"] if reads else
                        "the sensor sits too deep or off the cell's centre: raise it under the "
                        "centre, then test again before you flash"))

    def led_mapping(self) -> dict[str, int]:
        """cell -> LED, as the person saw them."""
        return {seen: led for led, _, seen in self.leds if seen}

    def group_leds(self) -> dict[str, list[int]]:
        """Each group's lights as found: the board file's lights, in chain
        order, on the LEDs seen beside no cell nearest to where the file has
        them, not on one the file gives a cell (a shifted chain moves them
        along; an LED too many is left dark)."""
        groups = self.board.groups
        lights = sorted(led for g in groups.values() for led in g)
        free = [led for led, _, seen in self.leds if seen == NO_CELL]
        if not self.leds or len(free) < len(lights):
            return {g: list(v) for g, v in groups.items()}  # what cannot be told stays
        place = dict(zip(lights, nearest_in_order(lights, free, set(self.board.led_of))))
        return {g: [place[led] for led in v] for g, v in groups.items()}

    def extra_leds(self) -> list[int]:
        """LEDs lit beside no cell that no light of the board file is on."""
        used = {led for v in self.group_leds().values() for led in v}
        return [led for led, _, seen in self.leds if seen == NO_CELL and led not in used]

    def measured_sensing(self) -> dict:
        """Threshold and hysteresis from the turtles measured: about half the
        weakest offset (docs/hardware.md); the hysteresis a third of it but at
        least the noise seen; never so low that an empty cell with the largest
        allowed offset (zero_band) could read as a turtle, nor within three
        times the noise."""
        s = dict(self.obj["sensing"])
        answered = [r for r in self.cells.values() if r.found is not None]
        if not answered:
            return s
        noise = max(self.noise[r.found] for r in answered)  # unused inputs may float: not them
        half = min(r.strength for r in answered) // 2 // 100 * 100
        hysteresis = up100(max(half // 3, noise))
        threshold = up100(max(half, self.zero_band + 500 + hysteresis, 3 * noise))
        if (abs(self.threshold - threshold) * 10 <= threshold and self.hysteresis >= noise
                and self.threshold - self.hysteresis >= self.zero_band + 500):
            return s  # close enough, and sound: a test again changes nothing
        s["threshold"] = threshold
        s["hysteresis"] = hysteresis
        return s

    def consistent(self, found: dict, key: str, what: str, taken=()) -> dict:
        """cell -> the `key` to write (sensor or led): each cell's own finding
        where no other cell (nor a light of a group, `taken`) has it too,
        else the board file's (a turtle on another cell than asked, a cell
        named for two LEDs: one slip does not spoil the rest). What is left
        as the file says, and why, goes to self.doubts."""
        file = {c: item[key] for c, item in self.obj["cells"].items()}
        keep = {}
        for c, values in found.items():
            if len(set(values)) == 1:
                keep[c] = values[0]
            else:
                self.doubts.append("cell %s: seen beside %s; left as the board file says (LED %d)"
                                   % (c, " and ".join("LED %d" % v for v in values), file[c]))
        while True:
            final = {c: keep.get(c, file[c]) for c in file}
            holders: dict[int, list[str]] = {}
            for c, v in final.items():
                holders.setdefault(v, []).append(c)
            drop = [(c, v) for v, cs in holders.items() if len(cs) > 1 or v in taken
                    for c in cs if c in keep and keep[c] != file[c]]
            if not drop:
                return final
            for c, v in drop:
                others = [o for o in holders[v] if o != c]
                self.doubts.append("cell %s: %s %s, %s; left as the board file says (%s %d)" % (
                    c, what, v, "as cell %s too" % " and ".join(others) if others else
                    "a light of a group", what, file[c]))
                del keep[c]

    def corrected(self) -> dict:
        """The board file as found, where the findings agree (self.doubts: where not)."""
        obj = copy.deepcopy(self.obj)
        cells = obj["cells"]
        self.doubts: list[str] = []
        sensors = {c: [r.found] for c, r in self.cells.items() if r.found is not None}
        for cell, ch in self.consistent(sensors, "sensor", "channel").items():
            cells[cell]["sensor"] = ch
        if self.leds:
            seen: dict[str, list[int]] = {}
            for led, _, cell in self.leds:
                if cell:
                    seen.setdefault(cell, []).append(led)
            groups = self.group_leds()
            mark = len(self.doubts)
            lights = {led for v in groups.values() for led in v}
            leds = self.consistent(seen, "led", "LED", lights)
            if lights & set(leds.values()):  # the groups' lights as found do not fit
                groups = obj["leds"]["groups"]
                del self.doubts[mark:]
                leds = self.consistent(seen, "led", "LED", {led for v in groups.values() for led in v})
            for cell, led in leds.items():
                cells[cell]["led"] = led
            obj["leds"]["groups"] = groups
            lit = [led for led, _, seen_ in self.leds if seen_ is not None]
            obj["leds"]["count"] = max([obj["leds"]["count"]] + [led + 1 for led in lit])
        for name, got in self.buttons.items():
            if got is not None:
                obj["buttons"][name] = self.obj["buttons"][got]
        obj["sensing"] = self.measured_sensing()
        if differences(self.obj, obj):
            obj["version"] = self.obj["version"] + 1
        return obj

    def calibration(self, obj: dict) -> str:
        """calibration.txt for the board file `obj`, as controller/sensing.py
        reads it: its header, then each cell's empty level."""
        lines = ["turtleboard calibration 1 %s %s" % (obj["version"], obj["name"].replace("\n", " "))]
        for cell in self.board.cells:
            r = self.cells.get(cell)
            if r is not None and r.found is not None and r.found == obj["cells"][cell]["sensor"]:
                lines.append("%s %d" % (cell, self.base[r.found]))
        return "\n".join(lines) + "\n"
