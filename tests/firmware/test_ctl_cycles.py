# One piece of work a control cycle (docs/firmware.md): the sensors' slow
# checks (stuck, unclear, noise: ~2 ms each on a Pico) run one at a time,
# each in a cycle with nothing else to do, so they never lengthen the
# cycles around a move, and still run on a board that is never quiet. Runs
# under pytest and MicroPython (test_ctl_micropython.py).
from ctl_rig import STEP_MS, Rig, actions

from controller.frames import encode
from controller.sensing import LATE_CHECKS_MS, STUCK_EVERY_MS

BUSY = ("think", "build", "commit", "takeback")  # the controller's
SHOWING = ("render", "flush")  # its display's


def _record(rig):
    # -> a list that gets, per cycle, the names of the work it did
    ctl = rig.ctl
    cycles = []
    did = []

    def wrap(obj, name):
        f = getattr(obj, name)

        def w(*a, **k):
            did.append(name)
            return f(*a, **k)

        setattr(obj, name, w)

    for name in BUSY:
        wrap(ctl, name)
    for name in SHOWING:
        wrap(ctl.display, name)
    wrap(rig.sensing, "_find_unclear")
    wrap(rig.sensing, "_measure_noise")
    step = ctl.step

    def recorded_step(now):
        del did[:]
        step(now)
        cycles.append(list(did))

    ctl.step = recorded_step
    return cycles


def test_the_slow_checks_run_in_cycles_with_nothing_else_to_do():
    rig = Rig("tortuga")
    rig.new()
    rig.show()
    rig.run(400)
    cycles = _record(rig)
    for due in (0, 30, 40):  # moves made on the board, each with the cycles after it
        pos = rig.ctl.position()
        pos.finish()
        # the checks fall due as the move is made, as it commits, just after
        rig.sensing._stuck_at = rig.hal.clock + due - STUCK_EVERY_MS
        rig.show(pos.groups[0][0])
        rig.run(1000)
    checks = [c for c in cycles if "_find_unclear" in c]
    assert len(actions(rig.got)) == 3
    # every STUCK_EVERY_MS while quiet, give or take a cycle or two
    assert len(checks) * STUCK_EVERY_MS >= 3000 - 2 * STUCK_EVERY_MS, len(checks)
    for c in cycles:
        if "_find_unclear" in c or "_measure_noise" in c:
            assert c == ["_find_unclear"] or c == ["_measure_noise"], c  # one check, nothing else
    assert len([c for c in cycles if "_measure_noise" in c]) == len(checks)
    assert [c for c in cycles if "commit" in c]  # the busy cycles were seen


def _step_until(rig, cycles, name, limit=200):
    # Steps the controller until a cycle does `name`: -> that cycle's time.
    for _ in range(limit):
        now = rig.hal.clock
        rig.ctl.step(now)
        rig.hal.clock += STEP_MS
        if name in cycles[-1]:
            return now
    raise AssertionError("no cycle did %s" % name)


def test_while_a_change_settles_the_other_work_waits():
    # A turtle lifted: once that counts, lighting its destinations and
    # telling the host are under way when it is put down. While the put
    # settles, no cycle does that work, so the cycle that sees the put
    # count comes as soon as the window allows, and commits.
    rig = Rig("tortuga")
    rig.new()
    rig.show()
    rig.run(400)
    pos = rig.ctl.position()
    pos.finish()
    target = pos.groups[0][0]
    lifted = [0 if target[i] == 0 else pos.image[i] for i in range(len(target))]
    cycles = _record(rig)
    rig.show(lifted)
    _step_until(rig, cycles, "think")  # the lift counted: its destinations
    assert "render" not in cycles[-1] and "flush" not in cycles[-1]
    put = rig.hal.clock
    rig.show(target)
    seen = len(cycles)
    committed = _step_until(rig, cycles, "commit")
    between = cycles[seen:-1]
    assert between, "the commit came before the window passed"
    for c in between:
        assert c == [] or c == ["_measure_noise"] or c == ["_find_unclear"], between
    stable_ms = rig.sensing.stable_ms
    assert committed - put <= stable_ms + 2 * STEP_MS, (committed - put, between)
    rig.frames()
    assert len(actions(rig.got)) == 1
    rig.run(300)  # and the waiting work is done after it
    assert [c for c in cycles[seen:] if "render" in c] and [c for c in cycles[seen:] if "flush" in c]


def test_a_flickering_sensor_holds_up_neither_the_work_nor_the_checks():
    # A sensor that flickers has a change settling every other cycle and
    # keeps the steady ones busy: the work goes on where the wait for the
    # change runs out, and the scan runs the slow checks itself once they
    # are LATE_CHECKS_MS late.
    rig = Rig("tortuga")
    rig.new()
    rig.show()
    rig.run(400)
    cycles = _record(rig)
    cell = rig.ctl.session.game.cells()[0]
    on = rig.ctl.session.game.image()[0]
    ms = 0
    while ms < 4 * LATE_CHECKS_MS:
        if ms == 500:
            rig.seq += 1
            rig.hal.rx.extend(encode(rig.seq, "bright", {"level": 40}).encode() + b"\n")
        rig.put(cell, 0 if (ms // STEP_MS) % 2 else on)
        rig.run(STEP_MS)
        ms += STEP_MS
    assert [c for c in cycles[100:] if "render" in c]  # the new brightness drawn
    assert [c for c in cycles[100:] if "flush" in c]
    checks = len([c for c in cycles if "_find_unclear" in c])
    assert 3 <= checks <= 5, checks
