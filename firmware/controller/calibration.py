# Sensing's calibration: each cell's empty level (baseline) measured at boot
# and kept in flash (calibration.txt), and the sensors' noise that sets how
# much scan() smooths. Module functions that take the Sensing object
# (its methods calibrate, load and save call them, importing
# this module then: boot drops it), the way decide.py takes the controller.
#
# After a power cut turtles may stand on the board at boot, so a cell that
# reads far from its saved baseline (or, with none saved, far from
# mid-scale) keeps the saved one (or mid-scale) and learns its own baseline
# the first time it is stably empty. A saved baseline is wrong when it is
# farther from the boot reading than any turtle moves it, at a rail, or off
# the board's empty level (the others' median) while the cell reads as its
# empty cells do (checks.misfit): it is reported (`suspect`) and the cell
# calibrated as with none saved, so no phantom turtle stands there.
# Calibration takes the median of readings spread over ~150 ms (one wild
# reading cannot move it).

import os
from array import array

from turtles.game import EMPTY

from .checks import DEAD, MID, OK, empty_level, misfit, smoothing

SAMPLES = 15  # readings per cell at calibration (their median is the baseline)
SAMPLE_MS = 10  # apart: noise that lasts a few ms cannot fill them all
FIELD_THRESHOLDS = 4  # a turtle moves a reading at most this many thresholds (the threshold is half the weakest's)


def calibrate(s, now_ms=None, meanwhile=None):
    # `meanwhile`: work done in the waits between samples, a piece a call,
    # until it returns False (boot reads the game log so).
    hal = s.hal
    now = hal.ticks_ms() if now_ms is None else now_ms
    n = len(s.channel)
    samples = [[0] * SAMPLES for _ in range(n)]
    row = array("i", [0] * n)  # as scan()'s raw: the rp2 HAL reads into arrays in native code
    for k in range(SAMPLES):
        taken = hal.ticks_ms()
        hal.refresh()
        hal.read_cells(s._plan, row)
        for i in range(n):
            samples[i][k] = row[i]
        if k < SAMPLES - 1:
            while meanwhile is not None and hal.ticks_diff(hal.ticks_ms(), taken) < SAMPLE_MS:
                if not meanwhile():
                    meanwhile = None
            left = SAMPLE_MS - hal.ticks_diff(hal.ticks_ms(), taken)
            if left > 0:
                hal.sleep_ms(left)
    medians = [sorted(v)[SAMPLES // 2] for v in samples]
    s.noise = noise_of(samples, medians)
    s.smooth = smoothing(s.noise, s.threshold)
    saved = s.load()
    level = empty_level([v for v in saved if v is not None])
    s.suspect = []
    changed = False
    for i in range(n):
        r = medians[i]
        old = saved[i]
        if r <= s.rail or r >= 65535 - s.rail:
            base, trusted = (MID, False) if old is None else (old, True)
        elif old is not None and not _implausible(s, old, r, level):
            # Near the saved baseline: the cell is empty, refresh it.
            # Far from it: a turtle stands there, keep the saved one.
            near = abs(r - old) < s.release
            base, trusted = (r, True) if near else (old, True)
        elif old is not None:
            # Farther than any turtle could move it: the saved level is
            # wrong (or the sensor changed). Calibrated as with none
            # saved, and reported: no phantom turtle on that cell.
            s.suspect.append((s.board.cells[i], old, r))
            changed = True
            base, trusted = (r, True) if abs(r - level) <= s.zero_band else (level, False)
        elif abs(r - MID) <= s.zero_band:
            base, trusted = r, True
        else:
            base, trusted = MID, False  # learnt when it is first empty
        if trusted and base != old:
            changed = True
        s.base[i] = base
        s.trusted[i] = trusted
        s.raw[i] = r
        s._sum[i] = r << s.smooth
        s._unclear[i] = 0
        s._unclear_run[i] = 0
        s._last[i] = r
        s._moved[i] = now
        dead = r <= s.rail or r >= 65535 - s.rail
        s._state[i] = EMPTY if dead else s._classify(EMPTY, r - base)
        s._since[i] = now
        s.image[i] = s._state[i]
        s._fault[i] = OK
        s._on_rail[i] = dead
        s._rail_since[i] = now
    s.faults = []
    s.pending = 0
    s._stuck_at = now
    s._scans = 0
    for i in range(n):
        if s._on_rail[i]:  # dead already: its median is at a rail
            s._set_fault(i, DEAD, s.raw[i])
        s._band(i)
    if changed:
        s.save()


def _implausible(s, saved, reading, level):
    # A saved empty level at a rail (a dead sensor's), farther from the
    # boot reading than a turtle's field reaches, or off the board's empty
    # level while the cell reads as its empty cells do.
    return (saved <= s.rail or saved >= 65535 - s.rail
            or abs(reading - saved) > FIELD_THRESHOLDS * s.threshold
            or misfit(s, saved, reading, level))


def load(s):
    # Saved baselines per cell (None where unknown).
    out = [None] * len(s.channel)  # type: list
    cells = s.board.cells
    try:
        s.hal.wake_files()
        f = open(s.path)
    except OSError:
        return out
    try:
        lines = f.read().split("\n")
    except Exception as e:  # not text (UnicodeError), unreadable flash
        s.unreadable = repr(e)
        return out
    finally:
        f.close()
    if not lines or lines[0] != _header(s):
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


def save(s):
    # Trusted baselines only; written aside, then renamed over the old file.
    lines = [_header(s)]
    for i, cell in enumerate(s.board.cells):
        if s.trusted[i]:
            lines.append("%s %d" % (cell, s.base[i]))
    tmp = s.path + ".tmp"
    s.hal.wake_files()  # (the filesystem rests while the board plays: hal/rp2.py)
    f = open(tmp, "w")
    try:
        f.write("\n".join(lines) + "\n")
        f.flush()
    finally:
        f.close()
    try:
        os.rename(tmp, s.path)
    except OSError:  # FAT cannot rename over a file
        os.remove(s.path)
        os.rename(tmp, s.path)


def _header(s):
    # A new board file version (new wiring) starts a new calibration.
    return "turtleboard calibration 1 %s %s" % (s.board.version,
                                               s.board.name.replace("\n", " "))


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
