# hal/rp2.py's LED path on a PC: the rp2 modules it imports are stood in for.
# write_leds must hand machine.bitstream the bytes and timings that
# micropython-lib's neopixel driver (frozen into the rp2 firmware) would for
# the same colours, while it changes only the LEDs that changed.
import sys
import types

from turtles.rng import Rng


class NeoPixel:
    # micropython-lib's neopixel.NeoPixel, with its bitstream call recorded
    ORDER = (1, 0, 2, 3)

    def __init__(self, pin, n, bpp=3, timing=1):
        self.n = n
        self.bpp = bpp
        self.buf = bytearray(n * bpp)
        self.timing = ((400, 850, 800, 450) if timing else (800, 1700, 1600, 900))

    def __setitem__(self, i, v):
        offset = i * self.bpp
        for i in range(self.bpp):
            self.buf[offset + self.ORDER[i]] = v[i]

    def write(self, sent):
        sent.append((0, self.timing, bytes(self.buf)))


def rp2_hal(monkeypatch, sent):
    machine = types.ModuleType("machine")
    machine.ADC = machine.Pin = object
    machine.bitstream = lambda pin, encoding, timing, buf: sent.append((encoding, timing, bytes(buf)))
    micropython = types.ModuleType("micropython")
    for name, module in (("machine", machine), ("micropython", micropython)):
        monkeypatch.setitem(sys.modules, name, module)
    monkeypatch.delitem(sys.modules, "hal.rp2", raising=False)
    import hal.rp2

    monkeypatch.setitem(sys.modules, "hal.rp2", hal.rp2)  # gone again after the test
    return hal.rp2.Hal


def test_write_leds_sends_what_the_neopixel_driver_would(monkeypatch):
    sent = []
    Hal = rp2_hal(monkeypatch, sent)
    hal = Hal.__new__(Hal)  # the LEDs only: no pins, no USB
    hal._led_pin = None
    hal._led_bytes = bytearray(3 * 12)
    hal._colors = None
    reference = NeoPixel(None, 12)
    expected = []
    rng = Rng(3)
    frame = [(0, 0, 0)] * 12
    last = None
    for step in range(40):
        frame = list(frame)
        for _ in range(rng.below(4)):  # a few LEDs change, or none
            frame[rng.below(12)] = (rng.below(256), rng.below(256), rng.below(256))
        hal.write_leds(frame)
        for i in range(12):
            reference[i] = frame[i]
        if frame != last:  # an equal frame: not sent again
            reference.write(expected)
        assert sent == expected, step
        last = frame
    assert len(sent) > 20
