# The CircuitPython HAL: the same wiring as hal/rp2.py (docs/hardware.md) on a
# Pico running CircuitPython: analogio for the multiplexer outputs, digitalio
# for the select lines and buttons, the adafruit neopixel driver for the LEDs,
# the host on the USB console (usb_cdc.console, else sys.stdin).
#
# Pins are named by GPIO number in the board file; `pin(n)` turns a number
# into the platform's pin object (board.GP<n> by default).

import sys
import time

import analogio
import digitalio
import neopixel


def pico_pin(n):
    import board

    return getattr(board, "GP%d" % n)


class Hal:
    def __init__(self, board, pin=pico_pin):
        self._select = []
        for n in board.mux["select"]:
            io = digitalio.DigitalInOut(pin(n))
            io.switch_to_output(value=False)
            self._select.append(io)
        self._adc = [analogio.AnalogIn(pin(n)) for n in board.mux["adc"]]
        self._input = 0
        self._one = [0]  # read_channel's reading
        # 4 past the chain too: the self-test looks for LEDs there (controller/selftest.py SPARE)
        self._pixels = neopixel.NeoPixel(pin(board.led_pin), board.led_count + 4,
                                         auto_write=False, pixel_order=neopixel.GRB)
        self._colors = None
        self._buttons = {}
        for name, n in board.buttons:
            io = digitalio.DigitalInOut(pin(n))
            io.switch_to_input(pull=digitalio.Pull.UP)
            self._buttons[name] = io
        self._serial = _console()
        self._ticks = _ticks_source()

    # ---- sensors and buttons -----------------------------------------

    def refresh(self):
        pass

    def read_channel(self, ch):
        # One channel (calibration): its input, read on its multiplexer.
        self.read_cells(((ch & 15, (-1,) * (ch >> 4) + (0,)),), self._one)
        return self._one[0]

    def read_cells(self, plan, out):
        # As hal/rp2.py: per (input, cells) of plan, the input selected on
        # all multiplexers (shared select lines, only the changed ones
        # written), multiplexer m read into out[cells[m]] (-1: none).
        # digitalio is slow enough (several us a call) for the 74HC4067 and
        # the sensor to settle before the next sample.
        pins = self._select
        adc = self._adc
        now = self._input
        for sel, cells in plan:
            change = sel ^ now
            if change:
                if change & 1:
                    pins[0].value = bool(sel & 1)
                if change & 2:
                    pins[1].value = bool(sel & 2)
                if change & 4:
                    pins[2].value = bool(sel & 4)
                if change & 8:
                    pins[3].value = bool(sel & 8)
                now = sel
            m = 0
            for i in cells:
                if i >= 0:
                    out[i] = adc[m].value
                m += 1
        self._input = now

    def button(self, name):
        io = self._buttons.get(name)
        return io is not None and not io.value  # pressed pulls it to ground

    # ---- LEDs ----------------------------------------------------------

    def write_leds(self, colors):
        if colors == self._colors:
            return
        self._colors = [tuple(c) for c in colors]
        pixels = self._pixels
        for i in range(min(len(colors), len(pixels))):
            pixels[i] = colors[i]
        pixels.show()

    # ---- clock -----------------------------------------------------------

    def ticks_ms(self):
        return self._ticks()

    def ticks_diff(self, a, b):
        # supervisor.ticks_ms() wraps at 2**29; keep differences signed.
        return ((a - b + (1 << 28)) & ((1 << 29) - 1)) - (1 << 28)

    def sleep_ms(self, ms):
        time.sleep(ms / 1000)

    # ---- the filesystem (CIRCUITPY, always mounted) ----------------------

    files_awake = False  # (it never rests)

    def rest_files(self):
        pass

    def wake_files(self):
        pass

    # ---- serial ------------------------------------------------------------

    def serial_read(self):
        s = self._serial
        if s is None:
            return _stdin_read()
        n = s.in_waiting
        return s.read(min(n, 256)) if n else b""

    def serial_write(self, data):
        if self._serial is None:
            sys.stdout.write(data.decode())
        else:
            self._serial.write(data)


def _console():
    # The USB console as a byte stream, where CircuitPython offers one. A
    # write waits at most 0.5 s for a host that stops reading (as
    # MicroPython's USB console does), never for ever: the game goes on.
    try:
        import usb_cdc
    except ImportError:
        return None
    console = usb_cdc.console
    if console is not None:
        console.write_timeout = 0.5
    return console


def _ticks_source():
    try:
        import supervisor

        return supervisor.ticks_ms
    except (ImportError, AttributeError):
        # Elsewhere (Blinka on a PC): milliseconds on the same 2**29 wrap.
        return lambda: (time.monotonic_ns() // 1000000) & ((1 << 29) - 1)


def _stdin_read():
    # Without usb_cdc: sys.stdin, when supervisor says bytes are waiting.
    try:
        import supervisor

        n = supervisor.runtime.serial_bytes_available
    except (ImportError, AttributeError):
        return b""
    return sys.stdin.read(n).encode() if n else b""
