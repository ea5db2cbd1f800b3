# hal/rp2.py's LED path on a PC: the rp2 modules it imports are stood in for,
# the NeoPixel driver is micropython-lib's (frozen into the rp2 firmware), and
# write_leds must leave its buffer as setting every LED through the driver
# would, while it writes only the LEDs that changed.
import sys
import types

from turtles.rng import Rng


class NeoPixel:
    # micropython-lib's neopixel.NeoPixel, without the wire
    ORDER = (1, 0, 2, 3)

    def __init__(self, pin, n, bpp=3, timing=1):
        self.n = n
        self.bpp = bpp
        self.buf = bytearray(n * bpp)
        self.writes = 0

    def __setitem__(self, i, v):
        offset = i * self.bpp
        for i in range(self.bpp):
            self.buf[offset + self.ORDER[i]] = v[i]

    def write(self):
        self.writes += 1


def rp2_hal(monkeypatch):
    machine = types.ModuleType("machine")
    machine.ADC = machine.Pin = object
    neopixel = types.ModuleType("neopixel")
    neopixel.NeoPixel = NeoPixel
    micropython = types.ModuleType("micropython")
    for name, module in (("machine", machine), ("neopixel", neopixel), ("micropython", micropython)):
        monkeypatch.setitem(sys.modules, name, module)
    monkeypatch.delitem(sys.modules, "hal.rp2", raising=False)
    import hal.rp2

    monkeypatch.setitem(sys.modules, "hal.rp2", hal.rp2)  # gone again after the test
    return hal.rp2.Hal


def test_write_leds_fills_the_drivers_buffer_as_its_setitem_would(monkeypatch):
    Hal = rp2_hal(monkeypatch)
    hal = Hal.__new__(Hal)  # the LEDs only: no pins, no USB
    hal._pixels = NeoPixel(None, 12)
    hal._colors = None
    reference = NeoPixel(None, 12)
    rng = Rng(3)
    frame = [(0, 0, 0)] * 12
    sent = None
    for step in range(40):
        frame = list(frame)
        for _ in range(rng.below(4)):  # a few LEDs change, or none
            frame[rng.below(12)] = (rng.below(256), rng.below(256), rng.below(256))
        writes = hal._pixels.writes
        hal.write_leds(frame)
        for i in range(12):
            reference[i] = frame[i]
        assert hal._pixels.buf == reference.buf, step
        assert hal._pixels.writes == writes + (1 if frame != sent else 0), step  # an equal frame: not sent
        sent = frame
