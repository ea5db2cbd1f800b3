# The sim HAL: the virtual device under the MicroPython unix port. The
# physical pieces live in the sim world, a folder of small text files beside
# the flash folder (docs/sim-world.md): ../world/adc and ../world/buttons are
# read here, LED frames are written to ../world/leds. Serial is the process's
# stdin/stdout (a pseudo-terminal to the host). On a simulated table
# (TURTLEBOARD_SIM_CLOCK set) the time and the serial port's pace are the
# simulator's: hal/simclock.py.

import os
import select
import sys
import time

MID = 32768  # what a channel reads before the world has said anything
REREAD_MS = 5  # read the world files at most this often


class Hal:
    def __init__(self, board, world="../world", in_rom=False):
        if not world.startswith("/"):
            world = os.getcwd() + "/" + world  # the same folder while the filesystem rests
        self.world = world
        self._adc = [MID] * board.channels()
        self._adc_text = None
        self._held = []  # names of the buttons held down
        self._buttons_text = None
        self._read_at = None
        self._colors = None  # the last frame written
        self._in = getattr(sys.stdin, "buffer", sys.stdin)
        self._out = getattr(sys.stdout, "buffer", sys.stdout)
        self._poll = select.poll()
        self._poll.register(sys.stdin, select.POLLIN)
        self._eof = False
        # The virtual Turtleboard build (a log area, the code in ROM) rests
        # its filesystem as the rp2 HAL does: rest_files() leaves the flash
        # folder for a folder then removed, where no file can be used.
        self._flash = os.getcwd() if os.getenv("TURTLEBOARD_LOG_AREA") and in_rom else None
        self.files_awake = self._flash is not None  # it can rest
        self._resting = False
        boot = os.getenv("TURTLEBOARD_SIM_CLOCK")
        if boot:  # a simulated table: its simulator gives the time (hal/simclock.py)
            from .simclock import SteppedClock

            clock = SteppedClock(world, boot, self._in, self._out)
            self.ticks_ms = clock.ticks_ms  # type: ignore[method-assign]
            self.ticks_diff = clock.ticks_diff  # type: ignore[method-assign]
            self.sleep_ms = clock.sleep_ms  # type: ignore[method-assign]
            self.serial_read = clock.serial_read  # type: ignore[method-assign]
            self.serial_write = clock.serial_write  # type: ignore[method-assign]

    # ---- sensors and buttons -----------------------------------------

    def refresh(self):
        now = self.ticks_ms()
        if self._read_at is not None and self.ticks_diff(now, self._read_at) < REREAD_MS:
            return
        self._read_at = now
        text = _read(self.world + "/adc")
        if text is not None and text != self._adc_text:
            self._adc_text = text
            _parse_adc(text, self._adc)
        text = _read(self.world + "/buttons")
        if text is not None and text != self._buttons_text and text.endswith("\n"):
            self._buttons_text = text
            self._held = text.split()

    def read_channel(self, ch):
        return self._adc[ch]

    def read_cells(self, plan, out):
        # As the rp2 HAL reads them: per (input, cells) of plan, channel
        # m * 16 + input into out[cells[m]] (-1: no cell there).
        adc = self._adc
        for sel, cells in plan:
            m = 0
            for i in cells:
                if i >= 0:
                    out[i] = adc[(m << 4) | sel]
                m += 1

    def button(self, name):
        return name in self._held

    # ---- LEDs ----------------------------------------------------------

    def write_leds(self, colors):
        if colors == self._colors:
            return
        line = " ".join(["%02x%02x%02x" % (r, g, b) for r, g, b in colors]) + "\n"
        path = self.world + "/leds"
        try:
            f = open(path + ".tmp", "w")
            try:
                f.write(line)
            finally:
                f.close()
            os.rename(path + ".tmp", path)  # a reader never sees half a frame
        except OSError:
            return  # no world folder (yet): like LEDs with no power; tried again next frame
        self._colors = [tuple(c) for c in colors]

    # ---- the filesystem -------------------------------------------------

    def rest_files(self):
        if not self.files_awake or self._flash is None:
            return
        away = self._flash + ".resting"
        try:
            os.mkdir(away)
        except OSError:
            pass  # left by a power cut
        try:
            os.chdir(away)
            os.rmdir(away)  # here nothing can be opened or made
        except OSError:
            os.chdir(self._flash)
            self.files_awake = False  # (no folder beside the flash: it stays mounted, as a stock Pico's)
            return
        self.files_awake = False
        self._resting = True

    def wake_files(self):
        if self._resting and self._flash is not None:
            os.chdir(self._flash)
            self._resting = False
            self.files_awake = True

    # ---- clock -----------------------------------------------------------

    def ticks_ms(self):
        return time.ticks_ms()

    def ticks_diff(self, a, b):
        return time.ticks_diff(a, b)

    def sleep_ms(self, ms):
        time.sleep_ms(ms)

    # ---- serial ------------------------------------------------------------

    def serial_read(self):
        # What has arrived, without waiting (at most 256 bytes a call).
        if self._eof:
            return b""
        data = b""
        while len(data) < 256 and self._poll.poll(0):
            byte = self._in.read(1)
            if not byte:
                self._eof = True  # the host hung up: stop polling a closed stdin
                break
            data += byte if isinstance(byte, bytes) else byte.encode()
        return data

    def serial_write(self, data):
        self._out.write(data)
        if hasattr(self._out, "flush"):
            self._out.flush()


def _read(path):
    try:
        f = open(path)
    except OSError:
        return None  # not written yet: keep the last values
    try:
        return f.read()
    except OSError:
        return None
    finally:
        f.close()


def _parse_adc(text, out):
    # Takes the new readings only if the whole line is good; a missing or
    # half-written file leaves the last values in place.
    if not text.endswith("\n"):
        return
    parts = text.split()
    if not parts:
        return
    values = []
    for part in parts[:len(out)]:
        try:
            v = int(part)
        except ValueError:
            return
        if v < 0 or v > 65535:
            return
        values.append(v)
    for i in range(len(values)):
        out[i] = values[i]
