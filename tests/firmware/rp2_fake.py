# hal/rp2.py under the MicroPython unix port: stand-ins for the rp2 port's
# machine.Pin/ADC and neopixel, and for the RP2040's registers, memory the
# register read (hal/rp2regs.py, native code) is pointed at. Used by
# test_hw_rp2regs.py. The stand-in registers hold still (no conversion
# runs, the timer stands): what they show is the read's program, its
# writes, the 16-bit scaling, and the HAL's boot check and fallback.
import struct
import sys

import uctypes


class FakeMachine:
    sel = [0]  # the multiplexer input the select lines choose
    values = {}  # channel -> what ADC.read_u16 gives
    wobble = [0]  # added to every read_u16, its sign flipped at each read

    class Pin:
        OUT = 1
        IN = 0
        PULL_UP = 1

        def __init__(self, n, mode=-1, pull=-1, value=None):
            self.n = n
            if value is not None:
                self.value(value)

        def init(self, mode=-1, pull=-1):
            pass

        def value(self, v=None):
            if v is None:  # a button's GPIO: its level in the stand-in GPIO_IN, or LEVELS
                if self.n in LEVELS:
                    return LEVELS[self.n]
                return (word(GPIO_MEM, 0) >> self.n) & 1
            bit = 1 << SELECT.index(self.n) if self.n in SELECT else 0
            if v:
                FakeMachine.sel[0] |= bit
            else:
                FakeMachine.sel[0] &= ~bit

    class ADC:
        def __init__(self, pin):
            self.base = ADC_PINS.index(pin.n) << 4

        def read_u16(self):
            w = FakeMachine.wobble
            w[0] = -w[0]
            return FakeMachine.values.get(self.base + FakeMachine.sel[0], 0) + w[0]


class FakeNeopixel:
    class NeoPixel:
        def __init__(self, pin, n):
            self.n = n

        def __setitem__(self, i, v):
            pass

        def write(self):
            pass


SELECT = []
ADC_PINS = []
LEVELS = {}  # GPIO -> a level Pin.value gives whatever GPIO_IN says
sys.modules["machine"] = FakeMachine
sys.modules["neopixel"] = FakeNeopixel

ADC_MEM = bytearray(0x3000)  # CS, RESULT, and CS's XOR and SET aliases
SIO_MEM = bytearray(8)  # GPIO_OUT_SET, GPIO_OUT_CLR
TIMER_MEM = bytearray(4)
GPIO_MEM = bytearray(4)  # GPIO_IN: every GPIO high (the buttons' pull-ups)
struct.pack_into("<I", GPIO_MEM, 0, 0x3FFFFFFF)


def word(mem, at):
    return struct.unpack_from("<I", mem, at)[0]


def setup(board, cs, result):
    # -> hal.rp2's Hal on board, its registers the stand-ins (CS, RESULT given)
    from hal import rp2regs

    SELECT[:] = board.mux["select"]
    ADC_PINS[:] = board.mux["adc"]
    a = uctypes.addressof(ADC_MEM)
    rp2regs.ADC_CS = a
    rp2regs.ADC_RESULT = a + 4
    rp2regs.SIO_OUT_SET = uctypes.addressof(SIO_MEM)
    rp2regs.SIO_OUT_CLR = rp2regs.SIO_OUT_SET + 4
    rp2regs.TIMERAWL = uctypes.addressof(TIMER_MEM)
    rp2regs.SIO_GPIO_IN = uctypes.addressof(GPIO_MEM)
    struct.pack_into("<II", ADC_MEM, 0, cs, result)
    from hal.rp2 import Hal

    return Hal(board)
