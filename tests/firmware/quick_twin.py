# Two Sensing objects on one random board, one with the quick path of the
# scan (controller/quick.py) and one without; used by test_hw_quick.py under
# the MicroPython unix port (its x64 native emitter runs the viper code).

STATE = ("raw", "base", "image", "trusted", "version", "pending", "faults", "smooth", "noise",
         "_state", "_since", "_last", "_moved", "_rail_since", "_on_rail", "_fault", "_stuck_at",
         "_lively_run", "_noisy", "_sum", "_unclear", "_unclear_run", "_scans")

STEPS = 6000


def _snapshot(s):
    out = []
    for name in STATE:
        v = getattr(s, name)
        out.append(list(v) if not isinstance(v, (int, str)) else v)
    return out


def check_quick_equals_full(seed):
    # -> counts of what the run went through (the test asserts it covered
    # the cases), after asserting the two agreed at every scan.
    from hwtools import Rng, ScriptedHal, board, noise, scratch

    from controller.sensing import MID, Sensing

    b = board("tortuga")
    hal = ScriptedHal(b.channels())
    rng = Rng(seed)
    n = len(b.cells)
    offset = [rng.below(1601) - 800 for _ in range(n)]
    for i, ch in enumerate(b.sensor_of):
        hal.values[ch] = MID + offset[i]
    quick = Sensing(hal, b, scratch("quick") + "/calibration.txt")
    full = Sensing(hal, b, scratch("full") + "/calibration.txt")
    assert quick.quick is not None, "no quick path on this port"
    full.quick = None
    settle = quick.quick
    lefts = [0]

    def counted(s, now):
        lefts[0] = settle(s, now)
        return lefts[0]

    quick.quick = counted
    for s in (quick, full):
        s.stuck_ms = 3000  # short enough to see stuck sensors in a run
        s.calibrate(0)
    field = [0] * n  # a turtle's field on each cell (+-14000, half of it: unclear)
    frozen = [-1] * n  # a stuck sensor's reading
    amp = 16
    seen = {"quick_cells": 0, "full_cells": 0, "versions": 0, "faults": 0, "smooth": 0, "drift": 0}
    kinds = set()
    t = 0
    for step in range(STEPS):
        if step % 500 == 0:
            amp = rng.choice((0, 0, 8, 16, 48, 300, 900, 16))
        for _ in range(rng.below(3)):
            i = rng.below(n)
            r = rng.below(100)
            if r < 40:
                field[i] = rng.choice((14000, -14000, 0, 0))
            elif r < 48:
                field[i] = rng.choice((5000, -5000, 4500))  # half on the cell
            elif r < 50:
                # at a bound of the quick path: the drift's, hysteresis', threshold's
                bound = rng.choice((full.release >> 1, full.release, full.threshold))
                field[i] = rng.choice((1, -1)) * (bound + rng.below(9) - 4)
            elif r < 53:
                offset[i] += rng.below(401) - 200  # the empty level drifts
            elif r < 56:
                frozen[i] = rng.choice((0, 65535, 40000)) if frozen[i] < 0 else -1
        for i, ch in enumerate(b.sensor_of):
            if frozen[i] >= 0:
                hal.values[ch] = frozen[i]
            else:
                v = MID + offset[i] + field[i] + noise(rng, amp)
                hal.values[ch] = max(0, min(65535, v)) & (~15 if amp else ~0)  # a 12-bit ADC, or exact
        before = quick.base[:]
        quick.scan(t)
        full.scan(t)
        a = _snapshot(quick)
        f = _snapshot(full)
        if a != f:
            diff = [(STATE[k], a[k], f[k]) for k in range(len(STATE)) if a[k] != f[k]]
            assert not diff, (seed, step, diff)
        left = lefts[0]
        seen["quick_cells"] += n - left
        seen["full_cells"] += left
        seen["versions"] = quick.version
        seen["smooth"] = max(seen["smooth"], quick.smooth)
        seen["drift"] += sum([1 for i in range(n) if quick.base[i] != before[i]])
        for _, reason in quick.faults:
            kinds.add(reason.split(":")[0])
        t += rng.choice((5, 5, 10, 20))
    seen["faults"] = sorted(kinds)
    return seen
