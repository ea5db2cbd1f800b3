# The rp2 HAL: a Raspberry Pi Pico running MicroPython. Hall sensors through
# 74HC4067 multiplexers (shared select lines S0..S3, one ADC input per
# multiplexer), WS2812B LEDs through the built-in neopixel module, buttons to
# ground with the internal pull-ups, the host on USB serial (stdin/stdout).

import select
import sys
import time

import neopixel
from machine import ADC, Pin

import micropython

SETTLE_US = 10  # after switching the multiplexer, before sampling


class Hal:
    def __init__(self, board):
        self._select = [Pin(p, Pin.OUT, value=0) for p in board.mux["select"]]
        self._adc = [ADC(Pin(p)) for p in board.mux["adc"]]
        self._input = 0  # the multiplexer input selected now
        self._one = [0] * len(self._adc)  # read_channel's readings
        self._pixels = neopixel.NeoPixel(Pin(board.led_pin, Pin.OUT), board.led_count)
        self._colors = None
        self._buttons = {}
        for name, pin in board.buttons:
            self._buttons[name] = Pin(pin, Pin.IN, Pin.PULL_UP)
        self._in = sys.stdin.buffer
        self._out = sys.stdout.buffer
        self._poll = select.poll()
        self._poll.register(sys.stdin, select.POLLIN)
        micropython.kbd_intr(3)  # Ctrl-C stays an interrupt: mpremote relies on it

    # ---- sensors and buttons -----------------------------------------

    def refresh(self):
        pass  # every read samples the hardware

    def read_channel(self, ch):
        # One channel (calibration): its input, read on its multiplexer.
        self.read_mux(ch & 15, self._one, (ch >> 4) + 1)
        return self._one[ch >> 4]

    def read_mux(self, sel, out, count):
        # Input `sel` of the first `count` multiplexers into out[0..count-1]:
        # they share the select lines, so one setting serves them all. Only
        # the lines that change are written (the sensing reads the inputs in
        # Gray-code order, one line apart).
        change = sel ^ self._input
        if change:
            pins = self._select
            if change & 1:
                pins[0].value(sel & 1)
            if change & 2:
                pins[1].value((sel >> 1) & 1)
            if change & 4:
                pins[2].value((sel >> 2) & 1)
            if change & 8:
                pins[3].value((sel >> 3) & 1)
            self._input = sel
            time.sleep_us(SETTLE_US)
        adc = self._adc
        for m in range(count):
            out[m] = adc[m].read_u16()

    def button(self, name):
        pin = self._buttons.get(name)
        return pin is not None and pin.value() == 0  # pressed pulls it to ground

    # ---- LEDs ----------------------------------------------------------

    def write_leds(self, colors):
        old = self._colors
        if colors == old:
            return  # a frame takes ~30 us per LED on the wire: skip repeats
        pixels = self._pixels
        n = min(len(colors), pixels.n)
        if old is not None and len(old) != len(colors):
            old = None
        # Into the driver's buffer as its __setitem__ puts them (a Python
        # loop per LED: ~0.3 ms each on a Pico), only the LEDs that changed.
        buf = pixels.buf
        bpp = pixels.bpp
        order = pixels.ORDER
        r = order[0]
        g = order[1]
        b = order[2]
        for i in range(n):
            c = colors[i]
            if old is None or c != old[i]:
                k = i * bpp
                buf[k + r] = c[0]
                buf[k + g] = c[1]
                buf[k + b] = c[2]
        self._colors = list(colors)  # (r, g, b) tuples, never changed in place
        pixels.write()

    # ---- clock -----------------------------------------------------------

    def ticks_ms(self):
        return time.ticks_ms()

    def ticks_diff(self, a, b):
        return time.ticks_diff(a, b)

    def sleep_ms(self, ms):
        time.sleep_ms(ms)

    # ---- serial (USB CDC) ------------------------------------------------

    def serial_read(self):
        data = b""
        while len(data) < 256 and self._poll.poll(0):
            data += self._in.read(1)
        return data

    def serial_write(self, data):
        self._out.write(data)
