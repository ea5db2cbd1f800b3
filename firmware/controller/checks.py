# Sensing's slow checks, a few times a second, one a call (check()): cells
# that read unclear too long, the noise now and the smoothing it calls for,
# stuck sensors. Module functions that take the Sensing object (sensing.py
# binds them as its methods: check, _find_unclear, _measure_noise,
# _find_stuck), the way decide.py takes the controller.
#
# A sensor that has shown noise (its reading changing all the time) and
# then does not change at all for stuck_ms, while most other sensors show
# theirs, is a stuck one. One whose noise is smaller than an ADC step never
# changes: it is quiet, not stuck. A cell that reads between empty and a
# turtle most of the time for UNCLEAR_CHECKS checks cannot be read.

from turtles.game import EMPTY

MID = 32768  # a DRV5055 with no field outputs half its supply
OK, DEAD, STUCK, UNCLEAR = 0, 1, 2, 3  # a cell's sensor: fine, or what is wrong (Sensing.faults)
STUCK_EVERY_MS = 250  # how often the slow checks (stuck, unclear, noise) run
UNCLEAR_CHECKS = 8  # slow checks (2 s) a cell may read unclear before it is reported
LIVELY_MS = 1000  # a sensor whose reading changed this recently shows noise
NOISY_CHECKS = 8  # lively at this many stuck checks in a row (2 s): it has noise
SMOOTH_MAX = 4  # at most the average of the last 16 scans


def empty_level(levels):
    # The board's empty level: the median of its cells' empty levels (a
    # few wrong ones cannot move it); mid-scale, the sensors' own, with
    # fewer than three known.
    if len(levels) < 3:
        return MID
    levels = sorted(levels)
    return levels[len(levels) // 2]


def misfit(s, base, reading, level):
    # A baseline off the board's empty level, on a cell that reads as its
    # empty cells do: the baseline is wrong, no turtle stands there (a
    # turtle's field moves a reading from its empty level, never onto the
    # others' while the baseline sits beside them).
    return abs(reading - base) >= s.release and abs(reading - level) <= s.zero_band < abs(base - level)


def recheck(s, now):
    # Before a new game, the boot's cross-check again on the cells' last
    # readings: each trusted baseline that misfits is recalibrated from the
    # reading (the cell reads EMPTY) and the file corrected. Not in the
    # control cycle. -> [(cell, old level, new level)]
    n = len(s.base)
    level = empty_level([s.base[i] for i in range(n) if s.trusted[i]])
    found = []
    for i in range(n):
        r = s._sum[i] >> s.smooth  # the smoothed reading
        if s.trusted[i] and s._fault[i] == OK and misfit(s, s.base[i], r, level):
            found.append((s.board.cells[i], s.base[i], r))
            s.base[i] = r
            s._state[i] = EMPTY
            s._since[i] = now
            if s.image[i] != EMPTY:
                s.image[i] = EMPTY
                s.version += 1
            s._band(i)
    if found:
        s.save()
    return found


def check(s, now):
    # The next of the slow checks (~2 ms each on a Pico) once they are
    # due, one a call: True if one ran. With idle_checks the controller
    # calls it in cycles that have nothing else to do, so the checks
    # never add to a busy one. (Each is called through s, as a method.)
    left = s._checks_left
    if not left:
        if s._diff(now, s._stuck_at) < STUCK_EVERY_MS:
            return False
        s._stuck_at = now
        left = 3
    s._checks_left = left - 1
    if left == 3:
        s._find_unclear()
    elif left == 2:
        s._measure_noise()
    elif s.stuck_ms:
        s._find_stuck(now)
    return True


def find_stuck(s, now):
    # Readings that have not changed for stuck_ms, of sensors that showed
    # noise before, judged only while most sensors show theirs (a board
    # where nothing moves at all gives nothing to compare). A sensor
    # quieter than one ADC step (a small offset on a quiet supply) reads
    # the same forever: never called stuck.
    n = len(s.channel)
    run = s._lively_run
    moved = s._moved
    noisy = s._noisy
    diff = s._diff
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
    fault = s._fault
    on_rail = s._on_rail
    stuck_ms = s.stuck_ms
    for i in range(n):
        if fault[i] == OK and noisy[i] and not on_rail[i] and diff(now, moved[i]) >= stuck_ms:
            s._set_fault(i, STUCK, s.raw[i])


def measure_noise(s):
    # The noise now, from the empty cells' last readings (noise that starts
    # after boot counts too), and the smoothing it calls for: more at once,
    # less only once it is clearly quieter.
    spread = s._spread
    image = s.image
    fault = s._fault
    on_rail = s._on_rail
    raw = s.raw
    base = s.base
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
    s.noise = now if now > s.noise else s.noise + ((now - s.noise) >> 3)
    k = smoothing(s.noise, s.threshold)
    if k < s.smooth and smoothing(s.noise * 3 // 2, s.threshold) >= s.smooth:
        k = s.smooth
    if k != s.smooth:
        # Start each average from what the cell shows (an empty cell from
        # its baseline, not from the last noisy reading).
        total = s._sum
        for i in range(len(total)):
            if image[i] == EMPTY:
                total[i] = s.base[i] << k
            else:
                total[i] = (total[i] >> s.smooth) << k
            s._state[i] = image[i]
            s._band(i)
        s.smooth = k


def find_unclear(s):
    # A cell that read unclear most of the time for UNCLEAR_CHECKS checks
    # in a row cannot be read (a turtle half on it, a weak magnet, a
    # failing sensor): it is reported until it reads clearly again.
    scans = s._scans
    s._scans = 0
    unclear = s._unclear
    runs = s._unclear_run
    fault = s._fault
    for i in range(len(unclear)):
        if unclear[i] * 2 > scans:
            run = runs[i]
            if run < UNCLEAR_CHECKS:  # counted no further: a byte holds it
                run += 1
                runs[i] = run
            if run >= UNCLEAR_CHECKS and fault[i] == OK:
                s._set_fault(i, UNCLEAR, s.raw[i])
        else:
            runs[i] = 0
            if fault[i] == UNCLEAR:
                s._set_fault(i, OK, s.raw[i])
        unclear[i] = 0


# How much smoothing 2**k (k = 0..4) calms the noise: sqrt((2 - a) / a) for
# an average with weight a = 2**-k, less a third for readings that repeat
# (an ADC slower than the scan), times 10.
_CALM = (7, 12, 19, 27, 39)


def smoothing(noise, threshold):
    # The least smoothing that puts the threshold 6 noise deviations away
    # (at calibration, and as the noise changes).
    k = 0
    while k < SMOOTH_MAX and noise * 60 > threshold * _CALM[k]:
        k += 1
    return k
