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

    def poll(self, now):
        # -> names of the buttons pressed since the last poll, in board order.
        pressed = NONE
        hal = self.hal
        for i in range(len(self.names)):
            held = bool(hal.button(self.names[i]))
            if held == self.down[i]:
                continue
            if hal.ticks_diff(now, self.changed[i]) < DEBOUNCE_MS:
                continue
            self.down[i] = held
            self.changed[i] = now
            if held:
                pressed = pressed + (self.names[i],)
        return pressed
