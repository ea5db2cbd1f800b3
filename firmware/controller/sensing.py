# Sensing: turns raw hall-sensor readings into a stable image of the board,
# EMPTY / UP / DOWN per cell (docs/hardware.md explains the numbers).
#
# - Baseline: each cell's empty reading, measured at boot and kept in flash
#   (calibration.py, which also tells a cell with a turtle on it at boot);
#   an empty cell follows its slowly drifting empty level afterwards.
# - Noise: measured at calibration and again by the slow checks (checks.py),
#   it sets how much each cell's reading is smoothed (an average over the
#   last 2**smooth scans; none on a quiet board), so that noise stays far
#   from the threshold.
# - Threshold with hysteresis: a turtle appears at baseline +/- threshold and
#   leaves when the reading falls back inside threshold - hysteresis.
# - Stability window: a new state counts after holding stable_ms. A reading
#   between the two (no turtle state yet, not clearly empty either) is not
#   clear: nothing new counts on it, and a cell that stays so is reported.
#   `pending` counts the cells, at the last scan, with a change not yet
#   steady (instant state not the stable one) or not clear: while it is not
#   0 a turtle may be in transit, and the stable image must not be taken
#   for the board. A cell already reported as unreadable does not count: like
#   a dead or stuck one it keeps its last stable state and the game goes on.
# - Faults: a reading within `rail` of 0 or 65535 for the window is a dead
#   sensor; the slow checks (checks.py, a few times a second) find stuck
#   sensors and cells that cannot be read. A faulty cell keeps its last
#   stable state until it reads sanely again.
#
# scan() allocates nothing: every per-cell list is made once, here.

import sys
from array import array

from turtles.game import DOWN, EMPTY, UP

from . import checks
from .checks import DEAD, MID, OK, STUCK, STUCK_EVERY_MS, UNCLEAR

settle = None
if sys.implementation.name == "micropython":  # (CPython may find a `micropython` that is no such thing)
    try:
        from controller.quick import settle  # native code: the rp2 port, the unix port
    except (ImportError, SyntaxError, ValueError):  # a port without a native emitter
        pass

LATE_CHECKS_MS = 1000  # with idle_checks: scan() runs them itself once they are this late
BIAS = 1 << 17  # added to the offsets in _lo/_hi: the quick path keeps no negative numbers


def _gray_rank(k):
    # The position of k in the 4-bit Gray code 0, 1, 3, 2, 6, 7, 5, 4, ...
    r = k
    while k:
        k >>= 1
        r ^= k
    return r


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
        self.channel = board.sensor_of  # bytes (< 48: 3 multiplexers of 16)
        # Read cells grouped by multiplexer input: the multiplexers share
        # their select lines, so each input is selected once per scan and
        # read on every multiplexer that has a cell there (hal.read_cells).
        # Inputs in Gray-code order: one select line changes between two.
        plan = []
        for sel in sorted(set([ch & 15 for ch in self.channel]), key=_gray_rank):
            cells = [-1] * (1 + max([ch >> 4 for ch in self.channel if ch & 15 == sel]))
            for i in range(n):
                if self.channel[i] & 15 == sel:
                    cells[self.channel[i] >> 4] = i
            plan.append((sel, tuple(cells)))
        self._plan = plan
        self.base = array("i", [MID] * n)
        # Per-cell flags and states (EMPTY, UP, DOWN; OK...UNCLEAR) in
        # bytearrays: 37 bytes where a list takes 148 in a 32-bit heap.
        self.trusted = bytearray(n)  # base measured on an empty cell (1)
        self.image = bytearray(n)  # stable states (EMPTY == 0)
        self.raw = array("i", [0] * n)  # last readings
        self.version = 0
        self.pending = 0  # cells with a change not yet steady, or not clear
        self.changed_at = 0  # the last scan a cell changed (or read unclear): nothing counts before stable_ms after it
        self.faults = []  # [(cell, reason)], in cell order
        self.unreadable = None  # why the calibration file could not be read
        self.suspect = []  # [(cell, saved level, reading)]: a saved baseline no turtle explains
        self._state = bytearray(n)  # instant states
        self._since = [0] * n  # when the instant state last changed
        self._last = array("i", [-1] * n)  # previous reading
        self._moved = array("i", [0] * n)  # when the reading last changed
        self._rail_since = [0] * n
        self._on_rail = bytearray(n)
        self._fault = bytearray(n)  # OK == 0
        self._stuck_at = 0
        self.idle_checks = False  # check() is called by the controller (see scan())
        self._checks_left = 0  # of the slow checks due (check())
        self._lively_run = bytearray(n)  # stuck checks in a row that found it lively (to NOISY_CHECKS)
        self._noisy = bytearray(n)  # it has shown noise: it can be judged stuck
        self._read = hal.read_cells  # bound once: a bound method costs a heap block
        self.smooth = 0  # the reading is averaged over 2**smooth scans
        self.noise = 0  # the noise measured at calibration (its standard deviation)
        self._sum = array("i", [0] * n)  # 2**smooth times the smoothed reading
        self._unclear = [0] * n  # unclear scans since the last slow check
        self._unclear_run = bytearray(n)  # slow checks in a row the cell was mostly unclear (to UNCLEAR_CHECKS)
        self._scans = 0
        self._spread = [0] * n  # room to sort the empty cells' distances from their baselines
        self._diff = hal.ticks_diff
        # The quick path (controller/quick.py, native code where the port
        # has it) takes the settled cells; scan() does the rest, all of them
        # without it. A settled cell: its instant state is its stable one,
        # its sensor is not reported, and its offset from the baseline (+
        # BIAS) within _lo.._hi keeps it so. (A reported cell's message
        # quotes its reading: scan() keeps them all in cell order.)
        self.quick = settle
        self._todo = bytearray(n)  # the cells the quick path left to scan(), by index
        self._lo = array("i", [1] * n)
        self._hi = array("i", [0] * n)

    # Calibration (calibration.py): boot's, imported when called, so that
    # nothing here holds it once the device drops it after boot.
    def calibrate(self, now_ms=None, meanwhile=None):
        from . import calibration

        return calibration.calibrate(self, now_ms, meanwhile)

    def load(self):
        from . import calibration

        return calibration.load(self)

    def save(self):
        from . import calibration

        return calibration.save(self)

    # The slow checks (checks.py): module functions that take the Sensing
    # object, bound here as its methods, so that a call costs what a
    # method's does.
    check = checks.check
    recheck = checks.recheck  # before a new game
    _find_unclear = checks.find_unclear
    _measure_noise = checks.measure_noise
    _find_stuck = checks.find_stuck

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
        raw = self.raw
        self._read(self._plan, raw)
        self._scans += 1
        quick = self.quick
        if quick is None:
            self._cells(now, -1)
        else:
            left = quick(self, now)  # settled cells done: the others' indices left in _todo
            if left:
                self._cells(now, left)
            else:
                self.pending = 0  # every cell settled (a quiet board): nothing more to do
        if self._diff(now, self._stuck_at) >= (LATE_CHECKS_MS if self.idle_checks else STUCK_EVERY_MS):
            while self.check(now) and self._checks_left:
                pass  # all of them at once

    def _cells(self, now, left):
        # The full scan of the first `left` cells in _todo (all of them
        # without the quick path, left -1): faults, smoothing, states with
        # hysteresis, the stability window, the baseline's drift.
        raw = self.raw
        todo = self._todo
        base = self.base
        state = self._state
        image = self.image
        fault = self._fault
        last = self._last
        moved = self._moved
        on_rail = self._on_rail
        threshold = self.threshold
        release = self.release
        neg_threshold = -threshold
        neg_release = -release
        half = release >> 1
        low = self.rail
        high = 65535 - low
        total = self._sum
        k = self.smooth
        busy = 0
        for j in range(len(raw) if left < 0 else left):
            i = j if left < 0 else todo[j]
            r = raw[i]
            if r <= low or r >= high:
                self._at_rail(i, r, now)
                continue
            if on_rail[i]:
                on_rail[i] = False
                total[i] = r << k
            if r != last[i]:
                last[i] = r
                moved[i] = now
                if fault[i] == STUCK or fault[i] == DEAD:
                    self._set_fault(i, OK, r)
            elif fault[i] == STUCK:
                continue  # stuck: keep the last stable state
            # The instant state, with hysteresis (as _classify, inlined), of
            # the smoothed reading.
            f = total[i] + r - (total[i] >> k)
            total[i] = f
            d = (f >> k) - base[i]
            s = state[i]
            if s == UP and d > release:
                new = UP
            elif s == DOWN and d < neg_release:
                new = DOWN
            elif d >= threshold:
                new = UP
            elif d <= neg_threshold:
                new = DOWN
            else:
                new = EMPTY
            if new != s:
                state[i] = new
                self._since[i] = now
                self.changed_at = now
                if new != image[i]:
                    busy += 1
            elif new == EMPTY and (d > release or d < neg_release):
                self._since[i] = now  # not clear: nothing new counts on it
                self.changed_at = now
                self._unclear[i] += 1
                if fault[i] != UNCLEAR:  # one reported as unreadable holds nothing up
                    busy += 1
            elif new != image[i]:
                if self._diff(now, self._since[i]) >= self.stable_ms:
                    image[i] = new
                    self.version += 1
                    if new == EMPTY and not self.trusted[i]:
                        self._learn(i, d + base[i])
                else:
                    busy += 1
            elif new == EMPTY and -half < d < half:
                base[i] += d >> 4  # clearly empty: follow its empty level's drift
        self.pending = busy
        for j in range(left):
            self._band(todo[j])

    def _at_rail(self, i, r, now):
        if not self._on_rail[i]:
            self._on_rail[i] = True
            self._rail_since[i] = now
        elif self._fault[i] != DEAD and self._diff(now, self._rail_since[i]) >= self.stable_ms:
            self._set_fault(i, DEAD, r)

    def _learn(self, i, r):
        # First stable empty reading of a cell calibrated with a turtle on it.
        self.base[i] = r
        self.trusted[i] = True
        try:
            self.save()
        except OSError:
            pass  # flash full or read-only: the baseline is kept in RAM

    def _band(self, i):
        # The offsets at which cell i is settled (none: _lo > _hi).
        s = self._state[i]
        lo, hi = 1, 0
        if s == self.image[i] and not self._on_rail[i] and self._fault[i] == OK:
            if s == UP:
                lo, hi = self.release + 1, 65535
            elif s == DOWN:
                lo, hi = -65535, -self.release - 1
            else:
                lo, hi = -self.release, self.release
            lo += BIAS
            hi += BIAS
        self._lo[i] = lo
        self._hi[i] = hi

    def _set_fault(self, i, kind, r):
        self._fault[i] = kind
        self._band(i)
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
        if self._fault[i] == UNCLEAR:
            return ("cannot be read: reads about %d, between empty (%d) and a turtle, so the board "
                    "waits; put the turtle squarely on the cell, or check the %s and the magnet"
                    % (self._sum[i] >> self.smooth, self.base[i], where))
        return ("stuck: reads %d without the least change for %d ms; check the %s and the "
                "multiplexer" % (r, self.stuck_ms, where))

