# Sensing: turns raw hall-sensor readings into a stable image of the board,
# EMPTY / UP / DOWN per cell (docs/hardware.md explains the numbers).
#
# - Baseline: each cell's empty reading, measured at boot and kept in flash.
#   After a power cut turtles may stand on the board at boot, so a cell that
#   reads far from its saved baseline (or, with none saved, far from
#   mid-scale) keeps the saved one (or mid-scale) and learns its own baseline
#   the first time it is stably empty.
# - Threshold with hysteresis: a turtle appears at baseline +/- threshold and
#   leaves when the reading falls back inside threshold - hysteresis.
# - Stability window: a new state counts after holding stable_ms.
# - Faults: a reading within `rail` of 0 or 65535 for the window is a dead
#   sensor; a reading that never changes at all for stuck_ms, while most
#   other sensors show their usual noise, is a stuck one.
#   A faulty cell keeps its last stable state until it reads sanely again.
#
# scan() allocates nothing: every per-cell list is made once, here.

import os

from turtles.game import DOWN, EMPTY, UP

MID = 32768  # a DRV5055 with no field outputs half its supply
SAMPLES = 8  # readings averaged per cell at calibration
OK, DEAD, STUCK = 0, 1, 2
STUCK_EVERY_MS = 250  # how often the slow check for stuck readings runs
LIVELY_MS = 1000  # a sensor whose reading changed this recently shows noise


class Sensing:
    def __init__(self, hal, board, path="calibration.txt"):
        self.hal = hal
        self.board = board
        self.path = path
        s = board.sensing
        self.threshold = s["threshold"]
        self.release = s["threshold"] - s["hysteresis"]
        self.stable_ms = s["stable_ms"]
        self.zero_band = s["zero_band"]
        self.rail = s["rail"]
        self.stuck_ms = s["stuck_ms"]
        n = len(board.cells)
        self.channel = list(board.sensor_of)
        # Read cells grouped by multiplexer input: the select lines switch at
        # most 16 times per scan.
        self.order = sorted(range(n), key=lambda i: (self.channel[i] & 15, self.channel[i]))
        self.base = [MID] * n
        self.trusted = [False] * n  # base measured on an empty cell
        self.image = [EMPTY] * n  # stable states
        self.raw = [0] * n  # last readings
        self.version = 0
        self.faults = []  # [(cell, reason)], in cell order
        self.unreadable = None  # why the calibration file could not be read
        self._state = [EMPTY] * n  # instant states
        self._since = [0] * n  # when the instant state last changed
        self._last = [-1] * n  # previous reading
        self._moved = [0] * n  # when the reading last changed
        self._rail_since = [0] * n
        self._on_rail = [False] * n
        self._fault = [OK] * n
        self._stuck_at = 0
        self._read = hal.read_channel  # bound once: a bound method costs a heap block
        self._diff = hal.ticks_diff

    # ---- calibration ---------------------------------------------------

    def calibrate(self, now_ms=None):
        hal = self.hal
        now = hal.ticks_ms() if now_ms is None else now_ms
        n = len(self.channel)
        total = [0] * n
        for _ in range(SAMPLES):
            hal.refresh()
            for i in self.order:
                total[i] += hal.read_channel(self.channel[i])
            hal.sleep_ms(1)
        saved = self.load()
        changed = False
        for i in range(n):
            r = total[i] // SAMPLES
            old = saved[i]
            if r <= self.rail or r >= 65535 - self.rail:
                base, trusted = (MID, False) if old is None else (old, True)
            elif old is not None:
                # Near the saved baseline: the cell is empty, refresh it.
                # Far from it: a turtle stands there, keep the saved one.
                near = abs(r - old) < self.release
                base, trusted = (r, True) if near else (old, True)
            elif abs(r - MID) <= self.zero_band:
                base, trusted = r, True
            else:
                base, trusted = MID, False  # learnt when it is first empty
            if trusted and base != old:
                changed = True
            self.base[i] = base
            self.trusted[i] = trusted
            self.raw[i] = r
            self._last[i] = r
            self._moved[i] = now
            dead = r <= self.rail or r >= 65535 - self.rail
            self._state[i] = EMPTY if dead else self._classify(EMPTY, r - base)
            self._since[i] = now
            self.image[i] = self._state[i]
            self._fault[i] = OK
            self._on_rail[i] = dead
            self._rail_since[i] = now
        self.faults = []
        self._stuck_at = now
        for i in range(n):
            if self._on_rail[i]:  # dead already: 8 readings at a rail
                self._set_fault(i, DEAD, self.raw[i])
        if changed:
            self.save()

    def load(self):
        # Saved baselines per cell (None where unknown).
        out = [None] * len(self.channel)  # type: list
        cells = self.board.cells
        try:
            f = open(self.path)
        except OSError:
            return out
        try:
            lines = f.read().split("\n")
        except Exception as e:  # not text (UnicodeError), unreadable flash
            self.unreadable = repr(e)
            return out
        finally:
            f.close()
        if not lines or lines[0] != self._header():
            return out  # another board's calibration: ignore it
        for line in lines[1:]:
            parts = line.split(" ")
            if len(parts) == 2 and parts[0] in cells:
                try:
                    value = int(parts[1])
                except ValueError:
                    continue
                if 0 < value < 65535:
                    out[cells.index(parts[0])] = value
        return out

    def save(self):
        # Trusted baselines only; written aside, then renamed over the old file.
        lines = [self._header()]
        for i, cell in enumerate(self.board.cells):
            if self.trusted[i]:
                lines.append("%s %d" % (cell, self.base[i]))
        tmp = self.path + ".tmp"
        f = open(tmp, "w")
        try:
            f.write("\n".join(lines) + "\n")
            f.flush()
        finally:
            f.close()
        try:
            os.rename(tmp, self.path)
        except OSError:  # FAT cannot rename over a file
            os.remove(self.path)
            os.rename(tmp, self.path)

    def _header(self):
        # A new board file version (new wiring) starts a new calibration.
        return "turtleboard calibration 1 %s %s" % (self.board.version,
                                                   self.board.name.replace("\n", " "))

    # ---- the control cycle ---------------------------------------------

    def _classify(self, state, d):
        # The instant state from the offset d, given the previous one.
        if state == UP and d > self.release:
            return UP
        if state == DOWN and d < -self.release:
            return DOWN
        if d >= self.threshold:
            return UP
        if d <= -self.threshold:
            return DOWN
        return EMPTY

    def scan(self, now):
        self.hal.refresh()
        read = self._read
        channel = self.channel
        raw = self.raw
        base = self.base
        state = self._state
        image = self.image
        fault = self._fault
        last = self._last
        moved = self._moved
        on_rail = self._on_rail
        threshold = self.threshold
        release = self.release
        low = self.rail
        high = 65535 - low
        for i in self.order:
            r = read(channel[i])
            raw[i] = r
            if r <= low or r >= high:
                self._at_rail(i, r, now)
                continue
            if on_rail[i]:
                on_rail[i] = False
            if r != last[i]:
                last[i] = r
                moved[i] = now
                if fault[i]:
                    self._set_fault(i, OK, r)
            elif fault[i]:
                continue  # stuck: keep the last stable state
            # The instant state, with hysteresis (as _classify, inlined).
            d = r - base[i]
            s = state[i]
            if s == UP and d > release:
                new = UP
            elif s == DOWN and d < -release:
                new = DOWN
            elif d >= threshold:
                new = UP
            elif d <= -threshold:
                new = DOWN
            else:
                new = EMPTY
            if new != s:
                state[i] = new
                self._since[i] = now
            elif new != image[i] and self._diff(now, self._since[i]) >= self.stable_ms:
                image[i] = new
                self.version += 1
                if new == EMPTY and not self.trusted[i]:
                    self._learn(i, r)
        if self.stuck_ms and self._diff(now, self._stuck_at) >= STUCK_EVERY_MS:
            self._stuck_at = now
            self._find_stuck(now)

    def _at_rail(self, i, r, now):
        if not self._on_rail[i]:
            self._on_rail[i] = True
            self._rail_since[i] = now
        elif self._fault[i] != DEAD and self._diff(now, self._rail_since[i]) >= self.stable_ms:
            self._set_fault(i, DEAD, r)

    def _find_stuck(self, now):
        # A few times a second: readings that have not changed for stuck_ms,
        # judged only while most sensors show the noise every live ADC input
        # has (a board where nothing moves at all gives nothing to compare).
        n = len(self.channel)
        lively = 0
        for i in range(n):
            if self._diff(now, self._moved[i]) < LIVELY_MS:
                lively += 1
        if lively * 2 <= n:
            return
        for i in range(n):
            if self._fault[i] == OK and not self._on_rail[i]:
                if self._diff(now, self._moved[i]) >= self.stuck_ms:
                    self._set_fault(i, STUCK, self.raw[i])

    def _learn(self, i, r):
        # First stable empty reading of a cell calibrated with a turtle on it.
        self.base[i] = r
        self.trusted[i] = True
        try:
            self.save()
        except OSError:
            pass  # flash full or read-only: the baseline is kept in RAM

    def _set_fault(self, i, kind, r):
        self._fault[i] = kind
        faults = []
        cells = self.board.cells
        for j in range(len(cells)):
            if j == i and kind != OK or j != i and self._fault[j] != OK:
                faults.append((cells[j], self._reason(j, r if j == i else self.raw[j])))
        self.faults = faults

    def _reason(self, i, r):
        ch = self.channel[i]
        where = "sensor on multiplexer %d input %d" % (ch >> 4, ch & 15)
        if self._fault[i] == DEAD:
            return ("dead: reads %d, at the %s rail; check the %s (power, ground, output wire)"
                    % (r, "ground" if r < MID else "supply", where))
        return ("stuck: reads %d without the least change for %d ms; check the %s and the "
                "multiplexer" % (r, self.stuck_ms, where))
