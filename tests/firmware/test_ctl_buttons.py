# controller/buttons.py reads the buttons one call a button (hal.button) or
# all at once where the HAL has buttons_held() (the rp2 HAL); both must see
# the very same presses, bounce and all.
from controller.buttons import Buttons
from turtles.rng import Rng

NAMES = ["next", "ok", "undo"]


class Levels:
    # A HAL's buttons and clock: which buttons are held now.
    def __init__(self):
        self.down = [False] * len(NAMES)

    def button(self, name):
        return self.down[NAMES.index(name)]

    def ticks_diff(self, a, b):
        return a - b


class AllAtOnce(Levels):
    def buttons_held(self):
        return sum([1 << k for k in range(len(NAMES)) if self.down[k]])


def test_buttons_read_all_at_once_press_as_read_one_by_one():
    one, all_ = Levels(), AllAtOnce()
    a, b = Buttons(one, NAMES), Buttons(all_, NAMES)
    assert a._held is None and b._held is not None
    rng = Rng(7)
    now = 0
    presses = 0
    for _ in range(20000):
        if rng.below(4) == 0:  # a push, a release, or contact bounce (a few ms apart)
            k = rng.below(len(NAMES))
            one.down[k] = all_.down[k] = not one.down[k]
        got = a.poll(now)
        assert b.poll(now) == got and a.down == b.down, now
        presses += len(got)
        now += rng.choice((1, 2, 5, 20, 45))
    assert presses > 1000


class PicoClock(Levels):
    # time.ticks_diff as on a Pico: ticks wrap at 2**30, a difference of
    # 2**29 or more reads as negative (the other way round the circle)
    def ticks_diff(self, a, b):
        d = (a - b) & ((1 << 30) - 1)
        return d - (1 << 30) if d >= 1 << 29 else d


def test_a_button_first_pressed_after_six_days_of_uptime_is_read():
    # A board left on: ticks past 2**29 ms (6.2 days) since boot, and no
    # button pressed yet. (Found by the simulated table, seed 5: a clock
    # that starts near the wrap.)
    for now in (1 << 29, (1 << 30) - 5000, (1 << 30) - 20):
        hal = PicoClock()
        b = Buttons(hal, NAMES)
        hal.down[1] = True
        assert b.poll(now) == ("ok",), now
        hal.down[1] = False
        assert b.poll(now + 50) == ()
        hal.down[1] = True
        assert b.poll(now + 100) == ("ok",), now
