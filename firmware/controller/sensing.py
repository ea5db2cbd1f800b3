# Sensing: turns raw hall-sensor readings into a stable image of the board,
# EMPTY / UP / DOWN per cell (docs/hardware.md explains the numbers).
#
# - Baseline: each cell's empty reading, measured at boot and kept in flash.
#   After a power cut turtles may stand on the board at boot, so a cell that
#   reads far from its saved baseline (or, with none saved, far from
#   mid-scale) keeps the saved one (or mid-scale) and learns its own baseline
#   the first time it is stably empty. A saved baseline farther from the
#   boot reading than any turtle moves it (or at a rail) is wrong: it is
#   reported (`suspect`) and the cell calibrated as with none saved, so no
#   phantom turtle stands there.
#   Calibration takes the median of readings spread over ~150 ms (one wild
#   reading cannot move it), and an empty cell follows its slowly drifting
#   empty level afterwards.
# - Noise: the spread of the calibration readings sets how much each cell's
#   reading is smoothed (an average over the last 2**smooth scans; none on a
#   quiet board), so that noise stays far from the threshold.
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
#   sensor; a sensor that has shown noise (its reading changing all the time)
#   and then does not change at all for stuck_ms, while most other sensors
#   show theirs, is a stuck one. One whose noise is smaller than an ADC step
#   never changes: it is quiet, not stuck.
#   A faulty cell keeps its last stable state until it reads sanely again.
#
# scan() allocates nothing: every per-cell list is made once, here.

import os
import sys
from array import array

from turtles.game import DOWN, EMPTY, UP

settle = None
if sys.implementation.name == "micropython":  # (CPython may find a `micropython` that is no such thing)
    try:
        from controller.quick import settle  # native code: the rp2 port, the unix port
    except (ImportError, SyntaxError, ValueError):  # a port without a native emitter
        pass

MID = 32768  # a DRV5055 with no field outputs half its supply
SAMPLES = 15  # readings per cell at calibration (their median is the baseline)
SAMPLE_MS = 10  # apart: noise that lasts a few ms cannot fill them all
SMOOTH_MAX = 4  # at most the average of the last 16 scans
UNCLEAR_CHECKS = 8  # slow checks (2 s) a cell may read unclear before it is reported
OK, DEAD, STUCK, UNCLEAR = 0, 1, 2, 3
STUCK_EVERY_MS = 250  # how often the slow checks (stuck, unclear, noise) run
LATE_CHECKS_MS = 1000  # with idle_checks: scan() runs them itself once they are this late
LIVELY_MS = 1000  # a sensor whose reading changed this recently shows noise
NOISY_CHECKS = 8  # lively at this many stuck checks in a row (2 s): it has noise
FIELD_THRESHOLDS = 4  # a turtle moves a reading at most this many thresholds (the threshold is half the weakest's)
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

    # ---- calibration ---------------------------------------------------

    def calibrate(self, now_ms=None):
        hal = self.hal
        now = hal.ticks_ms() if now_ms is None else now_ms
        n = len(self.channel)
        samples = [[0] * SAMPLES for _ in range(n)]
        row = array("i", [0] * n)  # as scan()'s raw: the rp2 HAL reads into arrays in native code
        for k in range(SAMPLES):
            hal.refresh()
            hal.read_cells(self._plan, row)
            for i in range(n):
                samples[i][k] = row[i]
            hal.sleep_ms(SAMPLE_MS)
        medians = [sorted(v)[SAMPLES // 2] for v in samples]
        self.noise = noise_of(samples, medians)
        self.smooth = smoothing(self.noise, self.threshold)
        saved = self.load()
        self.suspect = []
        changed = False
        for i in range(n):
            r = medians[i]
            old = saved[i]
            if r <= self.rail or r >= 65535 - self.rail:
                base, trusted = (MID, False) if old is None else (old, True)
            elif old is not None and not self._implausible(old, r):
                # Near the saved baseline: the cell is empty, refresh it.
                # Far from it: a turtle stands there, keep the saved one.
                near = abs(r - old) < self.release
                base, trusted = (r, True) if near else (old, True)
            elif old is not None:
                # Farther than any turtle could move it: the saved level is
                # wrong (or the sensor changed). Calibrated as with none
                # saved, and reported: no phantom turtle on that cell.
                self.suspect.append((self.board.cells[i], old, r))
                changed = True
                base, trusted = (r, True) if abs(r - MID) <= self.zero_band else (MID, False)
            elif abs(r - MID) <= self.zero_band:
                base, trusted = r, True
            else:
                base, trusted = MID, False  # learnt when it is first empty
            if trusted and base != old:
                changed = True
            self.base[i] = base
            self.trusted[i] = trusted
            self.raw[i] = r
            self._sum[i] = r << self.smooth
            self._unclear[i] = 0
            self._unclear_run[i] = 0
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
        self.pending = 0
        self._stuck_at = now
        self._scans = 0
        for i in range(n):
            if self._on_rail[i]:  # dead already: its median is at a rail
                self._set_fault(i, DEAD, self.raw[i])
            self._band(i)
        if changed:
            self.save()

    def _implausible(self, saved, reading):
        # A saved empty level at a rail (a dead sensor's), or farther from
        # the boot reading than a turtle's field reaches.
        return (saved <= self.rail or saved >= 65535 - self.rail
                or abs(reading - saved) > FIELD_THRESHOLDS * self.threshold)

    def suspect_text(self):
        # The cells whose saved baseline calibration did not believe, in words.
        return "; ".join(["%s: saved empty level %d, it reads %d now" % c for c in self.suspect])

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

    def check(self, now):
        # The next of the slow checks (~2 ms each on a Pico) once they are
        # due, one a call: True if one ran. With idle_checks the controller
        # calls it in cycles that have nothing else to do, so the checks
        # never add to a busy one.
        left = self._checks_left
        if not left:
            if self._diff(now, self._stuck_at) < STUCK_EVERY_MS:
                return False
            self._stuck_at = now
            left = 3
        self._checks_left = left - 1
        if left == 3:
            self._find_unclear()
        elif left == 2:
            self._measure_noise()
        elif self.stuck_ms:
            self._find_stuck(now)
        return True

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
                if new != image[i]:
                    busy += 1
            elif new == EMPTY and (d > release or d < neg_release):
                self._since[i] = now  # not clear: nothing new counts on it
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

    def _find_stuck(self, now):
        # A few times a second: readings that have not changed for stuck_ms,
        # of sensors that showed noise before, judged only while most sensors
        # show theirs (a board where nothing moves at all gives nothing to
        # compare). A sensor quieter than one ADC step (a small offset on a
        # quiet supply) reads the same forever: never called stuck.
        n = len(self.channel)
        run = self._lively_run
        moved = self._moved
        noisy = self._noisy
        diff = self._diff
        lively = 0
        for i in range(n):
            if diff(now, moved[i]) < LIVELY_MS:
                lively += 1
                k = run[i]
                if k < NOISY_CHECKS:
                    run[i] = k + 1
                    if k + 1 == NOISY_CHECKS:
                        noisy[i] = True
            else:
                run[i] = 0
        if lively * 2 <= n:
            return
        fault = self._fault
        on_rail = self._on_rail
        stuck_ms = self.stuck_ms
        for i in range(n):
            if fault[i] == OK and noisy[i] and not on_rail[i] and diff(now, moved[i]) >= stuck_ms:
                self._set_fault(i, STUCK, self.raw[i])

    def _measure_noise(self):
        # A few times a second: the noise now, from the empty cells' last
        # readings (noise that starts after boot counts too), and the
        # smoothing it calls for: more at once, less only once it is clearly
        # quieter.
        spread = self._spread
        image = self.image
        fault = self._fault
        on_rail = self._on_rail
        raw = self.raw
        base = self.base
        far = 1 << 20
        m = 0
        for i in range(len(spread)):
            if image[i] == EMPTY and fault[i] == OK and not on_rail[i]:
                spread[i] = abs(raw[i] - base[i])
                m += 1
            else:
                spread[i] = far
        if m < 4:
            return  # too few empty cells to tell noise from turtles
        spread.sort()
        now = spread[m // 2] * 3 // 2
        self.noise = now if now > self.noise else self.noise + ((now - self.noise) >> 3)
        k = smoothing(self.noise, self.threshold)
        if k < self.smooth and smoothing(self.noise * 3 // 2, self.threshold) >= self.smooth:
            k = self.smooth
        if k != self.smooth:
            # Start each average from what the cell shows (an empty cell from
            # its baseline, not from the last noisy reading).
            total = self._sum
            for i in range(len(total)):
                if image[i] == EMPTY:
                    total[i] = self.base[i] << k
                else:
                    total[i] = (total[i] >> self.smooth) << k
                self._state[i] = image[i]
                self._band(i)
            self.smooth = k

    def _find_unclear(self):
        # A few times a second: a cell that read unclear most of the time
        # for UNCLEAR_CHECKS checks in a row cannot be read (a turtle half on
        # it, a weak magnet, a failing sensor): it is reported until it
        # reads clearly again.
        scans = self._scans
        self._scans = 0
        unclear = self._unclear
        runs = self._unclear_run
        fault = self._fault
        for i in range(len(unclear)):
            if unclear[i] * 2 > scans:
                run = runs[i]
                if run < UNCLEAR_CHECKS:  # counted no further: a byte holds it
                    run += 1
                    runs[i] = run
                if run >= UNCLEAR_CHECKS and fault[i] == OK:
                    self._set_fault(i, UNCLEAR, self.raw[i])
            else:
                runs[i] = 0
                if fault[i] == UNCLEAR:
                    self._set_fault(i, OK, self.raw[i])
            unclear[i] = 0

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


def noise_of(samples, medians):
    # The sensors' noise, as a standard deviation: the median over the cells
    # of each one's median distance from its own median, times 1.5 (a
    # Gaussian's MAD is 0.67 sigma). Turtles, dead sensors and a wild
    # reading or two do not move it.
    spread = []
    for i in range(len(samples)):
        m = medians[i]
        spread.append(sorted([abs(v - m) for v in samples[i]])[len(samples[i]) // 2])
    spread.sort()
    return spread[len(spread) // 2] * 3 // 2 if spread else 0


# How much smoothing 2**k (k = 0..4) calms the noise: sqrt((2 - a) / a) for
# an average with weight a = 2**-k, less a third for readings that repeat
# (an ADC slower than the scan), times 10.
_CALM = (7, 12, 19, 27, 39)


def smoothing(noise, threshold):
    # The least smoothing that puts the threshold 6 noise deviations away.
    k = 0
    while k < SMOOTH_MAX and noise * 60 > threshold * _CALM[k]:
        k += 1
    return k
