# The rp2 HAL's sensor and button reads in native code (viper): the select
# lines, the ADC and the buttons' GPIOs through the RP2040's registers, one
# call for a whole scan. It does what hal/rp2.py does in Python with
# Pin.value, time.sleep_us and ADC.read_u16, without a C call per reading;
# the HAL checks at boot that both ways read the same (Hal._setup_regs).

from array import array

import micropython
from micropython import const

# Registers (RP2040 datasheet: 2.1.2 "Atomic Register Access", 2.3.1.7 the
# SIO's registers, 4.6.5 the timer's, 4.9.6 the ADC's):
SIO_BASE = 0xD0000000
GPIO_IN = const(0x004)  # the input level of every GPIO
GPIO_OUT_SET = const(0x014)  # a write sets the GPIO outputs of its 1 bits
GPIO_OUT_CLR = const(0x018)  # a write clears them
ADC_BASE = 0x4004C000
ADC_CS = const(0x000)  # EN bit 0, START_ONCE bit 2, READY bit 8, AINSEL bits 12..14
ADC_RESULT = const(0x004)  # the last conversion, 12 bits
XOR_ALIAS = const(0x1000)  # + a register's address: a write flips its 1 bits
SET_ALIAS = const(0x2000)  # a write sets its 1 bits
TIMERAWL = 0x40054028  # the 1 MHz timer's low word, read without latching
# A conversion as the rp2 port's ADC.read_u16 makes it (ports/rp2/
# machine_adc.c, adc_config_and_read_u16: pico-sdk's adc_select_input, then
# adc_read): AINSEL written through the XOR alias, START_ONCE through the
# SET alias, READY polled, RESULT scaled to 16 bits as raw << 4 | raw >> 8.

SPIN = 20000  # bounds the busy-waits (a settle wait: 1,250 cycles at 125 MHz, a few hundred turns)
BUTTON_GPIO = array("i")  # the buttons' GPIOs in board order (set by the HAL)


@micropython.viper
def read_program(r, out) -> int:
    # Reads the cells as r._prog (a bytearray) says: per multiplexer input,
    # the input, how many readings, then (AINSEL, cell) per reading; into
    # out (an array("i")). r._masks[v]: the GPIO bits of the select lines
    # high for input v; r._input: the input selected now.
    # -> 0, or 1 if the ADC never got READY (the HAL then reads in Python)
    prog = ptr8(r._prog)  # noqa: F821 (viper's pointer types)
    n = int(len(r._prog))
    masks = ptr32(r._masks)  # noqa: F821
    dst = ptr32(out)  # noqa: F821
    sio = int(SIO_BASE)
    adc = int(ADC_BASE)
    sio_set = ptr32(sio + GPIO_OUT_SET)  # noqa: F821
    sio_clr = ptr32(sio + GPIO_OUT_CLR)  # noqa: F821
    timer = ptr32(TIMERAWL)  # noqa: F821
    cs = ptr32(adc + ADC_CS)  # noqa: F821
    cs_xor = ptr32(adc + ADC_CS + XOR_ALIAS)  # noqa: F821
    cs_set = ptr32(adc + ADC_CS + SET_ALIAS)  # noqa: F821
    result = ptr32(adc + ADC_RESULT)  # noqa: F821
    settle = int(r._settle_us)
    spin_max = int(SPIN)
    now = int(r._input)
    i = 0
    while i < n:
        sel = prog[i]
        count = prog[i + 1]
        i += 2
        if sel != now:
            up = masks[sel & (now ^ 15)]  # lines that go high: one write
            down = masks[now & (sel ^ 15)]  # lines that go low: one write
            if up:
                sio_set[0] = up
            if down:
                sio_clr[0] = down
            now = sel
            t0 = timer[0]
            spin = 0
            while (timer[0] - t0) < settle and spin < spin_max:
                spin += 1
        while count > 0:
            cs_xor[0] = (cs[0] ^ (prog[i] << 12)) & 0x7000  # AINSEL
            cs_set[0] = 4  # START_ONCE
            spin = 0
            while (cs[0] & 0x100) == 0:  # READY
                spin += 1
                if spin > spin_max:
                    r._input = now  # (a native int is stored as a small int)
                    return 1
            v = result[0] & 0xFFF
            dst[prog[i + 1]] = (v << 4) | (v >> 8)
            i += 2
            count -= 1
    r._input = now
    return 0


@micropython.viper
def buttons_held() -> int:
    # Bit k set: the k-th of the board's buttons is held (its GPIO low in
    # GPIO_IN, which Pin.value reads too).
    level = ptr32(int(SIO_BASE) + GPIO_IN)[0]  # noqa: F821
    gpio = ptr32(BUTTON_GPIO)  # noqa: F821
    n = int(len(BUTTON_GPIO))
    held = 0
    k = 0
    while k < n:
        if ((level >> gpio[k]) & 1) == 0:
            held |= 1 << k
        k += 1
    return held
