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
        self._one = [0]  # read_channel's reading
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
        self.read_cells(((ch & 15, (-1,) * (ch >> 4) + (0,)),), self._one)
        return self._one[0]

    def read_cells(self, plan, out):
        # Every cell in one call. plan: (input, cells) pairs; each input is
        # selected once on all the multiplexers (they share the select
        # lines), then multiplexer m is read into out[cells[m]] (-1: no cell
        # there, not read). Only the lines that change are written (the
        # sensing orders the inputs in Gray code, one line apart).
        pins = self._select
        adc = self._adc
        now = self._input
        for sel, cells in plan:
            change = sel ^ now
            if change:
                if change & 1:
                    pins[0].value(sel & 1)
                if change & 2:
                    pins[1].value((sel >> 1) & 1)
                if change & 4:
                    pins[2].value((sel >> 2) & 1)
                if change & 8:
                    pins[3].value((sel >> 3) & 1)
                now = sel
                time.sleep_us(SETTLE_US)
            m = 0
            for i in cells:
                if i >= 0:
                    out[i] = adc[m].read_u16()
                m += 1
        self._input = now

    def button(self, name):
        pin = self._buttons.get(name)
        return pin is not None and pin.value() == 0  # pressed pulls it to ground

    # ---- LEDs ----------------------------------------------------------

    def write_leds(self, colors):
        if colors == self._colors:
            return  # a frame takes ~30 us per LED on the wire: skip repeats
        self._colors = [tuple(c) for c in colors]
        pixels = self._pixels
        for i in range(min(len(colors), pixels.n)):
            pixels[i] = colors[i]
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
