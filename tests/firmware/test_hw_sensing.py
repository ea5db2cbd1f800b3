# Sensing: calibration, thresholds with hysteresis, the stability window,
# noise, bounce, dead and stuck sensors. A scripted stand-in for the HAL feeds
# the numbers. Plain test functions (CPython via pytest, MicroPython via mprun).
import sys

from hwtools import Rng, ScriptedHal, board, exists, noise, read, scratch, write

from controller.sensing import MID, Sensing
from turtles.game import DOWN, EMPTY, UP

FIELD = 14000  # a turtle's magnet, in read_u16 units (docs/hardware.md)


def _setup(name="tortuga", offsets=True):
    b = board(name)
    hal = ScriptedHal(b.channels())
    for i, ch in enumerate(b.sensor_of):
        hal.values[ch] = MID + (((i * 7919) % 1601) - 800 if offsets else 0)
    folder = scratch("sense")
    s = Sensing(hal, b, folder + "/calibration.txt")
    return b, hal, s


def _put(b, hal, s, cell, delta):
    i = b.cells.index(cell)
    hal.values[b.sensor_of[i]] = s.base[i] + delta


def _run(s, start, end, step=5):
    t = start
    while t <= end:
        s.scan(t)
        t += step
    return t


def test_calibration_of_an_empty_board():
    b, hal, s = _setup()
    s.calibrate(0)
    for i, ch in enumerate(b.sensor_of):
        assert s.base[i] == hal.values[ch]
        assert s.trusted[i]
    assert list(s.image) == [EMPTY] * len(b.cells)
    assert s.faults == [] and s.version == 0
    saved = read(s.path).split("\n")
    assert saved[0] == "turtleboard calibration 1 1 Tortuga reference board"
    assert saved[1] == "a1 %d" % s.base[0]


def test_turtles_on_the_board_at_boot_without_calibration():
    # After a power cut turtles stand on the board: those cells are not
    # taken as empty; each learns its baseline once it is stably empty.
    b, hal, s = _setup()
    c3 = b.cells.index("c3")
    d4 = b.cells.index("d4")
    hal.values[b.sensor_of[c3]] = MID + 500 + FIELD
    hal.values[b.sensor_of[d4]] = MID - 300 - FIELD
    s.calibrate(0)
    assert s.image[c3] == UP and s.image[d4] == DOWN
    assert not s.trusted[c3] and s.base[c3] == MID
    assert "c3 " not in read(s.path)
    hal.values[b.sensor_of[c3]] = MID + 500  # the turtle is lifted
    _run(s, 5, 100)
    assert s.image[c3] == EMPTY and s.trusted[c3] and s.base[c3] == MID + 500
    assert "c3 %d" % (MID + 500) in read(s.path)
    assert s.version == 1


def test_saved_calibration_is_kept_for_cells_with_a_turtle():
    b, hal, s = _setup()
    s.calibrate(0)
    saved = list(s.base)
    e2 = b.cells.index("e2")
    a1 = b.cells.index("a1")
    hal.values[b.sensor_of[e2]] = saved[e2] + FIELD  # a turtle at boot
    hal.values[b.sensor_of[a1]] = saved[a1] + 200  # a little drift
    again = Sensing(hal, b, s.path)
    again.calibrate(0)
    assert again.base[e2] == saved[e2] and again.image[e2] == UP
    assert again.base[a1] == saved[a1] + 200 and again.image[a1] == EMPTY
    assert "a1 %d" % (saved[a1] + 200) in read(s.path)


def test_a_saved_baseline_no_turtle_explains_is_reported_and_calibrated_afresh():
    # calibration.txt with one value changed (a1 31985 -> 100): no turtle's
    # field is that strong, so it is no turtle standing there.
    b, hal, s = _setup()
    s.calibrate(0)
    a1 = b.cells.index("a1")
    e2 = b.cells.index("e2")
    reading = s.base[a1]
    write(s.path, read(s.path).replace("a1 %d" % reading, "a1 100"))
    hal.values[b.sensor_of[e2]] = s.base[e2] + FIELD  # and a real turtle at boot
    again = Sensing(hal, b, s.path)
    again.calibrate(0)
    assert again.suspect == [("a1", 100, reading)]
    assert again.image[a1] == EMPTY and again.base[a1] == reading  # no phantom turtle
    assert again.image[e2] == UP
    assert "a1 %d" % reading in read(s.path)  # saved right
    third = Sensing(hal, b, s.path)
    third.calibrate(0)
    assert third.suspect == []


def test_a_saved_baseline_off_the_boards_empty_level_on_an_empty_cell_is_measured_again():
    # Off by 7,000 to 20,000 (inside 4 x threshold = 24,000: a turtle could
    # explain it, but the cell reads as the board's empty cells do): the
    # reading is its empty level, no phantom turtle, the file corrected. A
    # real turtle at boot, and a sensor whose own empty level is far off
    # mid-scale (the self-test's calibration keeps one), are kept.
    b, hal, s = _setup()
    s.calibrate(0)
    good = read(s.path)
    e2, f3, b2 = b.cells.index("e2"), b.cells.index("f3"), b.cells.index("b2")
    odd = b.cells.index("g4")
    hal.values[b.sensor_of[e2]] = s.base[e2] + FIELD  # a turtle at boot, its level right
    hal.values[b.sensor_of[odd]] = s.base[odd] + 9000  # an odd sensor, as saved below
    for off in (7000, -7000, 12000, -15000, 20000, -20000):
        for cell in ("a1", "d4", "c3"):
            i = b.cells.index(cell)
            reading = s.base[i]
            text = good.replace("%s %d\n" % (cell, reading), "%s %d\n" % (cell, reading + off))
            text = text.replace("g4 %d\n" % s.base[odd], "g4 %d\n" % (s.base[odd] + 9000))
            write(s.path, text)
            again = Sensing(hal, b, s.path)
            again.calibrate(0)
            assert again.suspect == [(cell, reading + off, reading)], (cell, off, again.suspect)
            assert again.image[i] == EMPTY and again.base[i] == reading and again.trusted[i]
            assert again.image[e2] == UP and again.image[odd] == EMPTY and again.base[odd] == s.base[odd] + 9000
            assert "%s %d\n" % (cell, reading) in read(s.path)  # the file corrected
    for cell, delta in (("f3", FIELD), ("b2", -FIELD)):  # turtles on good levels: kept
        _put(b, hal, s, cell, delta)
    write(s.path, good)
    again = Sensing(hal, b, s.path)
    again.calibrate(0)
    assert again.image[f3] == UP and again.image[b2] == DOWN and again.image[e2] == UP


def test_a_saved_baseline_at_a_rail_is_not_believed():
    b, hal, s = _setup()
    s.calibrate(0)
    c3 = b.cells.index("c3")
    reading = s.base[c3]
    write(s.path, read(s.path).replace("c3 %d" % reading, "c3 65000"))
    hal.values[b.sensor_of[c3]] = reading - FIELD  # a turtle upside down at boot
    again = Sensing(hal, b, s.path)
    again.calibrate(0)
    assert [c for c, _, _ in again.suspect] == ["c3"]
    assert again.image[c3] == DOWN and not again.trusted[c3]  # read against mid-scale, learnt when empty


def test_calibration_of_another_board_or_wiring_is_ignored():
    b, hal, s = _setup()
    c = b.cells.index("a1")
    hal.values[b.sensor_of[c]] = MID + 100
    for header in ("turtleboard calibration 1 1 some other board",
                   "turtleboard calibration 1 2 Tortuga reference board"):  # new version
        write(s.path, header + "\na1 40000\n")
        s.calibrate(0)
        assert s.base[c] == MID + 100


def test_dead_sensor_at_boot_is_reported_at_once_and_reads_empty():
    b, hal, s = _setup()
    i = b.cells.index("c2")
    hal.values[b.sensor_of[i]] = 65535
    s.calibrate(0)
    assert s.image[i] == EMPTY
    assert [c for c, _ in s.faults] == ["c2"]
    assert s.faults[0][1].startswith("dead: reads 65535, at the supply rail")
    _run(s, 0, 500)
    assert s.image[i] == EMPTY and s.version == 0


def test_damaged_calibration_file_is_survived():
    b, hal, s = _setup()
    write(s.path, "turtleboard calibration 1 1 Tortuga reference board\na1 x\nzz 5\nb2 99999\n\x00")
    s.calibrate(0)
    assert all(s.trusted) and list(s.image) == [EMPTY] * len(b.cells)


def test_threshold_and_hysteresis():
    b, hal, s = _setup()
    s.calibrate(0)
    i = b.cells.index("d4")
    threshold, release = s.threshold, s.release
    _put(b, hal, s, "d4", threshold - 1)
    t = _run(s, 0, 500)
    assert s.image[i] == EMPTY
    _put(b, hal, s, "d4", threshold)
    t = _run(s, t, t + 100)
    assert s.image[i] == UP
    _put(b, hal, s, "d4", release + 1)  # inside the hysteresis band: still a turtle
    t = _run(s, t, t + 500)
    assert s.image[i] == UP
    _put(b, hal, s, "d4", release)
    t = _run(s, t, t + 100)
    assert s.image[i] == EMPTY
    _put(b, hal, s, "d4", -threshold)
    t = _run(s, t, t + 100)
    assert s.image[i] == DOWN
    _put(b, hal, s, "d4", -release - 1)
    t = _run(s, t, t + 500)
    assert s.image[i] == DOWN
    _put(b, hal, s, "d4", threshold)  # flipped over at once
    _run(s, t, t + 100)
    assert s.image[i] == UP
    assert s.version == 4


def test_stability_window():
    b, hal, s = _setup()
    s.calibrate(0)
    i = b.cells.index("g4")
    _put(b, hal, s, "g4", FIELD)
    s.scan(1000)
    s.scan(1000 + s.stable_ms - 1)
    assert s.image[i] == EMPTY and s.version == 0
    s.scan(1000 + s.stable_ms)
    assert s.image[i] == UP and s.version == 1


def test_a_change_inside_the_window_is_pending():
    # A cell whose reading changed but has not held for the window yet makes
    # the board not still (`pending`), whether it then counts or goes back.
    b, hal, s = _setup()
    s.calibrate(0)
    s.scan(0)
    assert s.pending == 0
    _put(b, hal, s, "g4", FIELD)
    _put(b, hal, s, "b3", -FIELD)
    s.scan(1000)
    assert s.pending == 2
    _put(b, hal, s, "b3", 0)  # set back inside the window
    s.scan(1000 + s.stable_ms - 1)
    assert s.pending == 1 and s.version == 0
    s.scan(1000 + s.stable_ms)
    assert s.pending == 0 and s.version == 1
    _put(b, hal, s, "g4", 0)  # lifted and set down again inside the window
    s.scan(2000)
    assert s.pending == 1
    _put(b, hal, s, "g4", FIELD)
    s.scan(2005)
    assert s.pending == 0 and s.version == 1


def test_bounce_within_the_window_never_counts():
    b, hal, s = _setup()
    s.calibrate(0)
    i = b.cells.index("b3")
    t = 0
    # a turtle wobbling: each reading held for less than the window (the
    # board's stable_ms; scans every 5 ms)
    longest = s.stable_ms - 5
    assert longest >= 5
    for _ in range(20):
        for delta in (FIELD, 0, -FIELD, 0, FIELD // 2 + 3000, 0):
            _put(b, hal, s, "b3", delta)
            t = _run(s, t, t + 5 + (t % longest) // 5 * 5 - 5)
            assert s.image[i] == EMPTY, t
    assert s.version == 0
    # a real placement after the same wobble counts exactly once
    for delta in (FIELD, 0, FIELD, 0, FIELD):
        _put(b, hal, s, "b3", delta)
        t = _run(s, t, t + longest - 5)
    t = _run(s, t, t + 200)
    assert s.image[i] == UP and s.version == 1


def test_noise_never_gives_a_wrong_stable_reading():
    # Per-sensor offsets up to +/-800, noise up to +/-600 (a 12-bit ADC with
    # a few LSB of noise and a DRV5055's own noise are far below that),
    # magnets from a weak 9000 to a stacked 17000.
    b, hal, s = _setup()
    rng = Rng(12345)
    n = len(b.cells)
    truth = [EMPTY] * n
    strength = [9000 + rng.below(8001) for _ in range(n)]
    s.calibrate(0)
    base = list(s.base)
    t = 0
    changes = 0
    before = list(truth)
    for step in range(600):
        if step % 30 == 0:  # every 150 ms move some turtles
            before = list(truth)
            for _ in range(3):
                truth[rng.below(n)] = rng.below(3)
            changes += len([i for i in range(n) if truth[i] != before[i]])
        for i in range(n):
            level = 0 if truth[i] == EMPTY else strength[i] if truth[i] == UP else -strength[i]
            hal.values[b.sensor_of[i]] = base[i] + level + noise(rng, 600)
        s.scan(t)
        t += 5
        for i in range(n):
            # within the window after a change the old state is still shown
            assert s.image[i] in (truth[i], before[i]), (step, b.cells[i])
        if step % 30 == 29:
            assert list(s.image) == truth, step
    assert s.version == changes


def test_noise_across_the_threshold_gives_no_flicker():
    # A weak magnet reading right at the threshold with noise: the stable
    # image may change once, then the hysteresis holds it.
    b, hal, s = _setup()
    s.calibrate(0)
    rng = Rng(7)
    i = b.cells.index("d2")
    t = 0
    for _ in range(2000):
        _put(b, hal, s, "d2", s.threshold + noise(rng, 900))
        s.scan(t)
        t += 5
    assert s.image[i] == UP and s.version == 1


def test_dead_sensor():
    b, hal, s = _setup()
    s.calibrate(0)
    i = b.cells.index("f3")
    ch = b.sensor_of[i]
    _put(b, hal, s, "f3", FIELD)
    t = _run(s, 0, 100)
    assert s.image[i] == UP
    hal.values[ch] = 0  # output shorted to ground
    s.scan(t)
    assert s.faults == []
    t = _run(s, t + 5, t + s.stable_ms + 5)
    assert len(s.faults) == 1
    cell, reason = s.faults[0]
    assert cell == "f3" and reason.startswith("dead: reads 0")
    assert "multiplexer 1 input 14" in reason
    assert s.image[i] == UP  # the last good state is kept
    hal.values[ch] = 65535
    t = _run(s, t, t + 200)
    assert s.faults[0][1].startswith("dead: reads 0")  # still dead: no new report
    hal.values[ch] = s.base[i] + 30  # repaired, and empty
    t = _run(s, t, t + 200)
    assert s.faults == [] and s.image[i] == EMPTY


def test_stuck_sensor():
    # a2 shows its noise like every sensor, then its reading freezes.
    b, hal, s = _setup()
    s.calibrate(0)
    rng = Rng(3)
    i = b.cells.index("a2")
    freeze = 3000
    t = 0
    while t < freeze + s.stuck_ms + 100:
        for k, ch in enumerate(b.sensor_of):
            if k != i or t < freeze:
                hal.values[ch] = s.base[k] + noise(rng, 48)
        s.scan(t)
        if t < freeze + s.stuck_ms - 250:
            assert s.faults == [], t
        t += 50
    assert [c for c, _ in s.faults] == ["a2"]
    assert s.faults[0][1].startswith("stuck: reads %d" % hal.values[b.sensor_of[i]])
    hal.values[b.sensor_of[i]] += 16
    s.scan(t)
    assert s.faults == []


def test_a_sensor_quieter_than_an_adc_step_is_not_stuck():
    # The RP2040's ADC has 12 bits: readings move in steps of 16. On a quiet
    # supply a sensor's reading wobbles with its offset from mid-scale, so
    # sensors with large offsets cross steps now and then while f1, +11 (less
    # than a step), reads the same forever. It is quiet, not stuck; nor is a
    # sensor with a turtle standing on it for minutes.
    b, hal, s = _setup()
    f1 = b.cells.index("f1")
    offsets = [hal.values[ch] - MID for ch in b.sensor_of]
    offsets[f1] = 11
    rng = Rng(5)

    def read_all(field_at=None):
        wobble = 1000 + rng.below(41) - 20  # the supply, in thousandths
        for k, ch in enumerate(b.sensor_of):
            v = MID + offsets[k] * wobble // 1000 + (FIELD if k == field_at else 0)
            hal.values[ch] = (v >> 4) << 4

    read_all()
    s.calibrate(0)
    seen = [set() for _ in b.cells]
    t = 0
    d4 = b.cells.index("d4")
    while t < 2 * s.stuck_ms + 2000:
        read_all(d4 if t > 5000 else None)  # a turtle stands on d4 from 5 s on
        s.scan(t)
        for k in range(len(b.cells)):
            seen[k].add(s.raw[k])
        t += 50
    assert len(seen[f1]) == 1  # it never moved
    assert sum(len(v) > 1 for v in seen) * 2 > len(b.cells)  # most did
    assert s.faults == [], s.faults
    assert s.image[d4] == UP


def test_scan_selects_each_input_once_and_refreshes_once():
    # The multiplexers share their select lines: one setting per input used,
    # read on every multiplexer with a cell on that input, once a cell.
    b, hal, s = _setup()
    s.calibrate(0)
    hal.reads = hal.refreshes = hal.selects = 0
    s.scan(0)
    used = sorted(set([ch & 15 for ch in b.sensor_of]))
    assert hal.selects == len(used) <= 16 and hal.refreshes == 1
    assert hal.reads == len(b.cells)
    for i, ch in enumerate(b.sensor_of):
        assert s.raw[i] == hal.values[ch]  # each cell got its own multiplexer's reading
    # in Gray-code order: one select line changes from an input to the next
    sel = hal.selected[:len(used)]
    for k in range(1, len(sel)):
        change = sel[k] ^ sel[k - 1]
        assert change and change & (change - 1) == 0, sel


def test_scan_allocates_nothing():
    if sys.implementation.name != "micropython":
        return  # CPython allocates for every int; the claim is about the device
    import gc

    b, hal, s = _setup()
    s.calibrate(0)
    _put(b, hal, s, "c4", FIELD)
    s.scan(0)
    gc.collect()
    gc.disable()
    try:
        before = gc.mem_alloc()
        t = 5
        for _ in range(50):
            s.scan(t)
            t += 5
        after = gc.mem_alloc()
    finally:
        gc.enable()
    assert after == before, after - before
    assert s.image[b.cells.index("c4")] == UP


def test_no_calibration_file_written_when_nothing_changed():
    b, hal, s = _setup()
    s.calibrate(0)
    first = read(s.path)
    write(s.path, first)
    s2 = Sensing(hal, b, s.path)
    s2.calibrate(0)
    assert read(s.path) == first and not exists(s.path + ".tmp")


def test_a_board_without_any_noise_reports_nothing_stuck():
    # Nothing to compare with: no sensor moves (the virtual board without
    # noise). A turtle put down and lifted changes one cell only.
    b, hal, s = _setup()
    s.calibrate(0)
    t = _run(s, 0, s.stuck_ms + 1000, step=50)
    _put(b, hal, s, "d4", FIELD)
    t = _run(s, t, t + s.stuck_ms + 1000, step=50)
    assert s.faults == [] and s.image[b.cells.index("d4")] == UP


def _gauss(rng, sigma):
    # Nearly Gaussian integer noise (the sum of 12 uniform draws), portable.
    total = 0
    for _ in range(12):
        total += rng.below(1001)
    return (total - 6000) * sigma // 1000


class _WildHal(ScriptedHal):
    # One refresh in the calibration returns a wild reading on one channel.
    def __init__(self, channels, ch, wild_at, wild):
        ScriptedHal.__init__(self, channels)
        self.ch = ch
        self.wild_at = wild_at
        self.wild = wild

    def read_channel(self, ch):
        v = ScriptedHal.read_channel(self, ch)
        return self.wild if ch == self.ch and self.refreshes == self.wild_at else v


def test_one_wild_reading_at_calibration_does_not_move_the_baseline():
    b = board("tortuga")
    i = b.cells.index("d5")
    ch = b.sensor_of[i]
    for wild in (0 + 2000, 65535 - 2000, 32768 - 20000):
        hal = _WildHal(b.channels(), ch, 3, wild)
        for j, c in enumerate(b.sensor_of):
            hal.values[c] = MID + ((j * 7919) % 1601) - 800
        s = Sensing(hal, b, scratch("sense") + "/calibration.txt")
        s.calibrate(0)
        assert s.base[i] == hal.values[ch] and s.image[i] == EMPTY, wild
        assert s.smooth == 0  # a quiet board is read as it comes


class _ShakyHal(ScriptedHal):
    # Each refresh draws fresh noise around the true readings.
    def __init__(self, channels, truth, sigma, seed):
        ScriptedHal.__init__(self, channels)
        self.truth = truth
        self.sigma = sigma
        self.rng = Rng(seed)

    def refresh(self):
        ScriptedHal.refresh(self)
        for ch in range(len(self.truth)):
            self.values[ch] = self.truth[ch] + _gauss(self.rng, self.sigma)


def test_loud_noise_gives_no_stable_reading_that_is_not_there():
    # Noise with a standard deviation of half the threshold, drawn afresh at
    # every scan: the board smooths its readings and shows nothing false,
    # then still sees a turtle put down and lifted.
    b = board("tortuga")
    truth = [MID] * b.channels()
    for i, ch in enumerate(b.sensor_of):
        truth[ch] = MID + ((i * 7919) % 1601) - 800
    sigma = 3000
    hal = _ShakyHal(b.channels(), truth, sigma, 2024)
    s = Sensing(hal, b, scratch("sense") + "/calibration.txt")
    s.calibrate(0)
    assert s.smooth >= 3 and sigma * 2 // 3 < s.noise < sigma * 3 // 2, (s.smooth, s.noise)
    t = _run(s, 0, 15000)
    assert s.version == 0 and s.faults == []
    d5 = b.cells.index("d5")
    truth[b.sensor_of[d5]] += FIELD
    t = _run(s, t, t + 300)
    assert s.image[d5] == UP and s.version == 1
    truth[b.sensor_of[d5]] -= FIELD
    t = _run(s, t, t + 300)
    assert s.image[d5] == EMPTY and s.version == 2 and s.faults == []


def test_noise_that_starts_after_boot_is_measured_and_smoothed():
    b = board("tortuga")
    truth = [MID] * b.channels()
    for i, ch in enumerate(b.sensor_of):
        truth[ch] = MID + ((i * 7919) % 1601) - 800
    hal = _ShakyHal(b.channels(), truth, 0, 7)
    s = Sensing(hal, b, scratch("sense") + "/calibration.txt")
    s.calibrate(0)
    assert s.smooth == 0
    hal.sigma = 3000  # a motor starts next to the board
    t = _run(s, 0, 15000)
    assert s.smooth >= 3 and s.version == 0 and s.faults == [], (s.smooth, s.version)
    hal.sigma = 100  # and stops: the board is quick again
    t = _run(s, t, t + 30000)
    assert s.smooth == 0


def test_a_drifting_empty_level_is_followed():
    # A warming board: every empty level creeps up by most of the threshold
    # over a minute; nothing appears, and the baselines come along.
    b, hal, s = _setup()
    s.calibrate(0)
    start = list(s.base)
    drift = s.threshold * 3 // 4
    t = 0
    for step in range(1200):  # 60 s at 50 ms
        for i in range(len(b.cells)):
            hal.values[b.sensor_of[i]] = start[i] + drift * step // 1200
        s.scan(t)
        t += 50
    assert s.version == 0 and list(s.image) == [EMPTY] * len(b.cells)
    i = b.cells.index("c3")
    assert abs(s.base[i] - (start[i] + drift)) < s.threshold // 10


def test_a_cell_that_cannot_be_read_is_reported_and_never_counts():
    # A turtle half on a cell (or a weak magnet): the reading sits between
    # empty and a turtle. The cell keeps its last state, and after a while
    # the board says it cannot read it; a clear reading ends that.
    b, hal, s = _setup()
    s.calibrate(0)
    i = b.cells.index("e4")
    _put(b, hal, s, "e4", (s.release + s.threshold) // 2)
    t = _run(s, 0, 1000)
    assert s.image[i] == EMPTY and s.faults == [] and s.pending == 1
    t = _run(s, t, t + 2500)
    # reported: like a dead or stuck sensor it no longer holds the game up
    assert s.image[i] == EMPTY and s.version == 0 and s.pending == 0
    assert [c for c, _ in s.faults] == ["e4"]
    assert s.faults[0][1].startswith("cannot be read")
    _put(b, hal, s, "e4", FIELD)
    t = _run(s, t, t + 600)
    assert s.image[i] == UP and s.faults == []


def test_a_cell_unclear_for_minutes_stays_reported_until_it_reads_clearly():
    # Its run of unclear checks is kept in a byte: counted to UNCLEAR_CHECKS
    # and no further, so the 256th check (64 s) neither fails nor wraps.
    b, hal, s = _setup()
    s.calibrate(0)
    i = b.cells.index("e4")
    _put(b, hal, s, "e4", (s.release + s.threshold) // 2)
    t = _run(s, 0, 300 * 250, step=50)
    assert [c for c, _ in s.faults] == ["e4"] and s.image[i] == EMPTY and s.pending == 0
    _put(b, hal, s, "e4", FIELD)
    t = _run(s, t, t + 600)
    assert s.image[i] == UP and s.faults == []


class _Clocked(ScriptedHal):
    # A clock that moves only when the HAL sleeps or the test says.
    def __init__(self, channels):
        ScriptedHal.__init__(self, channels)
        self.now = 0
        self.samples_at = []

    def refresh(self):
        self.samples_at.append(self.now)

    def ticks_ms(self):
        return self.now

    def sleep_ms(self, ms):
        self.now += ms


def _work(hal, done, pieces):
    def meanwhile():
        done.append(hal.now)
        hal.now += 3  # a block of the log
        return len(done) < pieces

    return meanwhile


def test_calibration_works_on_while_it_waits_between_samples_and_keeps_them_apart():
    # Boot reads the game log in the waits (meanwhile); the samples stay
    # SAMPLE_MS apart at least, and what it measures does not change.
    from controller.calibration import SAMPLE_MS, SAMPLES

    b = board("tortuga")
    bases = []
    gaps = []
    for pieces in (0, 7, 1000):
        hal = _Clocked(b.channels())
        for i, ch in enumerate(b.sensor_of):
            hal.values[ch] = MID + ((i * 7919) % 1601) - 800
        s = Sensing(hal, b, scratch("sense") + "/calibration.txt")
        done = []
        s.calibrate(meanwhile=_work(hal, done, pieces) if pieces else None)
        assert len(done) == min(pieces, 4 * (SAMPLES - 1))  # 4 pieces a wait at most
        assert len(hal.samples_at) == SAMPLES
        gaps.append([b2 - a for a, b2 in zip(hal.samples_at, hal.samples_at[1:])])
        assert min(gaps[-1]) >= SAMPLE_MS, gaps[-1]
        bases.append(list(s.base))
    assert bases[0] == bases[1] == bases[2]
    assert gaps[0] == [SAMPLE_MS] * (SAMPLES - 1)
    assert gaps[1] == [12] + [SAMPLE_MS] * (SAMPLES - 2)  # 7 pieces: in the first two waits
    assert gaps[2] == [12] * (SAMPLES - 1)  # never done: every wait works
