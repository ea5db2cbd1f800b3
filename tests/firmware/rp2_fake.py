# hal/rp2.py under the MicroPython unix port: stand-ins for the rp2 port's
# machine.Pin/ADC/bitstream, and for the RP2040's registers, memory the
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
                return (word(SIO_MEM, 4) >> self.n) & 1
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

    @staticmethod
    def bitstream(pin, encoding, timing, buf):
        pass


SELECT = []
ADC_PINS = []
LEVELS = {}  # GPIO -> a level Pin.value gives whatever GPIO_IN says
sys.modules["machine"] = FakeMachine

ADC_MEM = bytearray(0x3000)  # CS, RESULT, and CS's XOR and SET aliases
SIO_MEM = bytearray(0x1C)  # GPIO_IN at 0x4, GPIO_OUT_SET at 0x14, GPIO_OUT_CLR at 0x18
TIMER_MEM = bytearray(4)


def pressed(gpio):
    # GPIO_IN with every GPIO high (the buttons' pull-ups) but these
    struct.pack_into("<I", SIO_MEM, 4, 0x3FFFFFFF & ~sum([1 << g for g in gpio]))


pressed([])


def word(mem, at):
    return struct.unpack_from("<I", mem, at)[0]


def setup(board, cs, result):
    # -> hal.rp2's Hal on board, its registers the stand-ins (CS, RESULT given)
    from hal import rp2regs

    SELECT[:] = board.mux["select"]
    ADC_PINS[:] = board.mux["adc"]
    rp2regs.ADC_BASE = uctypes.addressof(ADC_MEM)
    rp2regs.SIO_BASE = uctypes.addressof(SIO_MEM)
    rp2regs.TIMERAWL = uctypes.addressof(TIMER_MEM)
    struct.pack_into("<II", ADC_MEM, 0, cs, result)
    from hal.rp2 import Hal

    return Hal(board)
