# The self-test of a built board (`turtleboard board test`, docs/hardware.md).
# While it runs the game stands still: no move is read off the board, no
# prompt opens, the LEDs show only what the host asks for. The host reads
# every multiplexer channel raw (also channels no cell uses: a sensor wired
# to the wrong input shows up there) and lights one LED at a time, also the
# SPARE places past the chain the board file counts (an extra LED soldered
# in shifts the chain: its last LEDs are found there). When the
# host says `on: false`, or says nothing for TIMEOUT_MS (it went away), the
# board is given back to the game as it was: its scene and its LEDs again.

from . import scenes

TIMEOUT_MS = 10000  # the host keeps the self-test alive with any selftest command
MAX_READS = 16      # readings averaged per channel in one `channels` frame
SPARE = 4           # LEDs lit past the board file's count (the HALs drive them too)


class SelfTest:
    def __init__(self, ctl, now):
        self.ctl = ctl
        self.heard = now
        self.frame = [scenes.OFF] * (ctl.board.led_count + SPARE)
        ctl.hal.write_leds(self.frame)

    def light(self, led, colour):
        # One LED lit (led < 0: none), brightness applied.
        frame = [scenes.OFF] * len(self.frame)
        if led >= 0:
            frame[led] = scenes.scale(colour, self.ctl.display.level)
        self.frame = frame
        self.ctl.hal.write_leds(frame)

    def channels(self, reads):
        # The mean of `reads` readings of every channel, and the buttons held.
        hal = self.ctl.hal
        n = self.ctl.board.channels()
        total = [0] * n
        for _ in range(reads):
            hal.refresh()
            for ch in range(n):
                total[ch] += hal.read_channel(ch)
        held = [name for name, _ in self.ctl.board.buttons if hal.button(name)]
        self.ctl.link.send("channels", {"raw": [t // reads for t in total], "held": held})

    def step(self, now):
        # One control cycle while testing: nothing but the timeout.
        if self.ctl.hal.ticks_diff(now, self.heard) >= TIMEOUT_MS:
            leave(self.ctl)


def leave(ctl):
    # Back to the game: the scene, the status and the LEDs as before (the
    # places past the chain dark first: the game's frames do not reach them).
    ctl.selftest.light(-1, None)
    ctl.selftest = None
    ctl.seen_version = -1  # read the board afresh
    ctl.resend()


def command(ctl, payload):
    # The `selftest` command; returns None, or what is wrong with the payload.
    now = ctl.hal.ticks_ms()
    on = payload.get("on")
    if on is False:
        if ctl.selftest is not None:
            leave(ctl)
        return None
    if on is not True and on is not None:
        return "on must be true or false, not %r" % (on,)
    test = ctl.selftest
    if test is None:
        if on is not True:
            return "no self-test is running; start one with on: true"
        test = ctl.selftest = SelfTest(ctl, now)
    test.heard = now
    if "led" in payload:
        led = payload.get("led")
        last = ctl.board.led_count + SPARE - 1
        if not isinstance(led, int) or isinstance(led, bool) or led < -1 or led > last:
            return "led must be an LED index 0..%d, or -1 for none, not %r" % (last, led)
        colour = payload.get("colour", "ffffff")
        if not isinstance(colour, str) or len(colour) != 6:
            return "colour must be rrggbb in hex, like ff0000, not %r" % (colour,)
        try:
            rgb = (int(colour[0:2], 16), int(colour[2:4], 16), int(colour[4:6], 16))
        except ValueError:
            return "colour must be rrggbb in hex, like ff0000, not %r" % (colour,)
        test.light(led, rgb)
    reads = payload.get("read")
    if reads is not None:
        if not isinstance(reads, int) or isinstance(reads, bool) or reads < 1 or reads > MAX_READS:
            return "read must be a whole number 1..%d, not %r" % (MAX_READS, reads)
        test.channels(reads)
    return None
