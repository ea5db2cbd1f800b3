# Button presses from held/released levels: one press per push, contact
# bounce within DEBOUNCE_MS of the last change ignored.

DEBOUNCE_MS = 40
NONE = ()  # no press: nothing allocated


class Buttons:
    def __init__(self, hal, names):
        self.hal = hal
        self.names = names
        self.down = [False] * len(names)
        self.changed = [0] * len(names)
        # A HAL may read all buttons in one call, buttons_held(): bit k for the k-th
        # of the board's buttons (the order of names here).
        self._held = getattr(hal, "buttons_held", None)
        self._down = 0  # self.down as bits

    def poll(self, now):
        # -> names of the buttons pressed since the last poll, in board order.
        held_all = self._held
        bits = 0
        if held_all is not None:
            bits = held_all()
            if bits == self._down:
                return NONE  # every button as it was: nothing to do
        pressed = NONE
        hal = self.hal
        for i in range(len(self.names)):
            if held_all is not None:
                held = bool((bits >> i) & 1)
            else:
                held = bool(hal.button(self.names[i]))
            if held == self.down[i]:
                continue
            if 0 <= hal.ticks_diff(now, self.changed[i]) < DEBOUNCE_MS:
                continue  # (negative: the last change was over 2**29 ms ago, round the ticks' circle)
            self.down[i] = held
            self._down ^= 1 << i
            self.changed[i] = now
            if held:
                pressed = pressed + (self.names[i],)
        return pressed
