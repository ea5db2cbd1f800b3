# The rp2 HAL: a Raspberry Pi Pico running MicroPython. Hall sensors through
# 74HC4067 multiplexers (shared select lines S0..S3, one ADC input per
# multiplexer), WS2812B LEDs through machine.bitstream (as micropython-lib's
# neopixel module writes them, without its module in the heap), buttons to
# ground with the internal pull-ups, the host on USB serial (stdin/stdout).

import select
import sys
import time
from array import array

from machine import ADC, Pin, bitstream

import micropython

try:
    from turtleboard_log import filesystem  # type: ignore[import-not-found]  # the Turtleboard build: the filesystem after its log area
except ImportError:  # a stock MicroPython: the game log is a file, the filesystem always mounted
    filesystem = None  # type: ignore[assignment]


def can_rest(in_rom):
    # The filesystem can rest: the Turtleboard build (its game log in the
    # raw area), the firmware's code in ROM (none looked for in files).
    return filesystem is not None and in_rom


try:
    from . import rp2regs  # native code: the sensors read through the registers
except (ImportError, SyntaxError, ValueError):  # a MicroPython without native code
    rp2regs = None  # type: ignore[assignment]

SETTLE_US = 10  # after switching the multiplexer, before sampling
CHECK_ROUNDS = 4  # boot: readings of every sensor both ways, compared
CHECK_SLACK = 64  # boot: 4 ADC steps, + twice the spread of a sensor's own readings
WS2812_NS = (400, 850, 800, 450)  # a 0 bit high, low; a 1 bit high, low: 800 kHz


class Hal:
    def __init__(self, board, in_rom=False):
        self._select = [Pin(p, Pin.OUT, value=0) for p in board.mux["select"]]
        self._adc = [ADC(Pin(p)) for p in board.mux["adc"]]
        # The clock: time's C functions themselves (no Python call between)
        self.ticks_ms = time.ticks_ms
        self.ticks_diff = time.ticks_diff
        self._input = 0  # the multiplexer input selected now
        self._one = array("i", [0])  # read_channel's reading
        # 4 past the chain too: the self-test looks for LEDs there (controller/selftest.py SPARE)
        self._led_pin = Pin(board.led_pin, Pin.OUT)
        self._led_bytes = bytearray(3 * (board.led_count + 4))  # green, red, blue a LED: the chain's order
        self._colors = None
        self._buttons = {}
        for name, pin in board.buttons:
            self._buttons[name] = Pin(pin, Pin.IN, Pin.PULL_UP)
        self._button_pins = [self._buttons[name] for name, _ in board.buttons]
        self._fast = None  # rp2regs.read_program, once it read as ADC.read_u16 does
        # The buttons held, one call: bit k for the k-th of board.buttons
        # (rp2regs.buttons_held once it read as Pin.value does).
        self.buttons_held = self._held_py
        self.note = None  # why the sensors are read the slow way, for the host
        if rp2regs is not None:
            self._setup_regs(board)
        self._in = sys.stdin.buffer
        self._out = sys.stdout.buffer
        self._poll = select.poll()
        self._poll.register(sys.stdin, select.POLLIN)
        micropython.kbd_intr(3)  # Ctrl-C stays an interrupt: mpremote relies on it
        # The filesystem (mounted by _boot.py): awake, it can rest (the
        # Turtleboard build, the code in ROM: in_rom, hal.code_in_rom());
        # resting, it is unmounted.
        self.files_awake = can_rest(in_rom)
        self._resting = False

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
        # sensing orders the inputs in Gray code, one line apart). Through
        # the registers in native code where that was found to read the same
        # at boot and out is an array("i"); else in Python.
        fast = self._fast
        if fast is not None and type(out) is array:
            if plan is not self._planned:
                self._program(plan)
            if not fast(self, out):
                return
            self._fast = None
            self.note = "the ADC stopped answering through its registers"
        self._read_py(plan, out)

    def _read_py(self, plan, out):
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

    # ---- the sensors through the registers (hal/rp2regs.py) -------------

    def _setup_regs(self, board):
        # The buttons' GPIOs, the select lines' GPIO bits per input; the
        # register reads are used only if they read the buttons as
        # Pin.value does and every sensor as ADC.read_u16 does.
        r = rp2regs
        r.BUTTON_GPIO = array("i", [pin for _, pin in board.buttons])
        for _ in range(3):  # a button may move between two reads: one agreement will do
            if r.buttons_held() == self._held_py():
                self.buttons_held = r.buttons_held
                break
        if not self._adc:
            return
        self._settle_us = SETTLE_US
        pins = board.mux["select"]
        self._masks = array("i", [0] * 16)
        for v in range(16):
            for b in range(len(pins)):
                if (v >> b) & 1:
                    self._masks[v] |= 1 << pins[b]
        self._ainsel = [p - 26 for p in board.mux["adc"]]  # GPIO 26..29: ADC inputs 0..3
        self._planned = None
        self._prog = bytearray()
        self._fast = r.read_program
        why = self._check_regs(list(getattr(board, "sensor_of", ())))
        if why is not None:
            self._fast = None
            self.note = why

    def _program(self, plan):
        # plan -> self._prog for rp2regs.read_program (its layout is there)
        prog = []
        for sel, cells in plan:
            reads = []
            for m in range(len(cells)):
                if cells[m] >= 0:
                    reads.append(self._ainsel[m])
                    reads.append(cells[m])
            prog.append(sel)
            prog.append(len(reads) // 2)
            prog.extend(reads)
        self._prog = bytearray(prog)  # every value < 256: cells, inputs, AINSEL, counts
        self._planned = plan

    def _check_regs(self, channels):
        # -> None if both ways read every sensor alike (within its noise),
        # else what differed.
        n = len(channels)
        plan = []
        for sel in range(16):
            cells = [-1] * len(self._adc)
            for i in range(n):
                if channels[i] & 15 == sel:
                    cells[channels[i] >> 4] = i
            if max(cells) >= 0:
                plan.append((sel, tuple(cells)))
        a = array("i", [0] * n)
        b = array("i", [0] * n)
        lo = [65535] * n
        hi = [0] * n
        off = [0] * n
        for _ in range(CHECK_ROUNDS):
            self._read_py(plan, a)
            self.read_cells(plan, b)
            if self._fast is None:
                return self.note  # the ADC never got READY
            for i in range(n):
                lo[i] = min(lo[i], a[i])
                hi[i] = max(hi[i], a[i])
                off[i] = max(off[i], abs(a[i] - b[i]))
        for i in range(n):
            if off[i] > CHECK_SLACK + 2 * (hi[i] - lo[i]):
                return "channel %d read %d by ADC.read_u16 but %d through the registers" % (
                    channels[i], a[i], b[i])
        return None

    def button(self, name):
        pin = self._buttons.get(name)
        return pin is not None and pin.value() == 0  # pressed pulls it to ground

    def _held_py(self):
        # buttons_held() through Pin.value
        held = 0
        k = 0
        for pin in self._button_pins:
            if pin.value() == 0:
                held |= 1 << k
            k += 1
        return held

    # ---- LEDs ----------------------------------------------------------

    def write_leds(self, colors):
        old = self._colors
        if colors == old:
            return  # a frame takes ~30 us per LED on the wire: skip repeats
        buf = self._led_bytes
        n = min(len(colors), len(buf) // 3)
        if old is not None and len(old) != len(colors):
            old = None
        # Only the LEDs that changed are put into the bytes.
        for i in range(n):
            c = colors[i]
            if old is None or c != old[i]:
                k = i * 3
                buf[k] = c[1]
                buf[k + 1] = c[0]
                buf[k + 2] = c[2]
        self._colors = colors  # the caller's frame, a new list each time (Display.show, SelfTest): no copy
        bitstream(self._led_pin, 0, WS2812_NS, buf)  # 0: high then low, per the timings

    # ---- the filesystem -------------------------------------------------

    def rest_files(self):
        # On the Turtleboard build, whose game log is in its raw area, the
        # filesystem is unmounted while the board is still: littlefs's two
        # 1 KB caches leave the heap (wake_files mounts it again).
        if not self.files_awake:
            return
        import vfs

        self.files_awake = False
        self._resting = True  # first: Ctrl-C in between leaves it to wake_files
        try:
            vfs.umount("/")
        except OSError:
            self._resting = False  # (not mounted at "/": nothing to rest)

    def wake_files(self):
        # Before a file is read or written: the filesystem as _boot.py
        # mounted it (OSError if it cannot be).
        if not self._resting:
            return
        import os

        import vfs

        vfs.mount(vfs.VfsLfs2(filesystem(), progsize=256), "/")  # type: ignore[abstract]  # (the stubs' VfsLfs2)
        os.chdir("/")
        self._resting = False
        self.files_awake = True

    # ---- clock -----------------------------------------------------------

    def sleep_ms(self, ms):
        time.sleep_ms(ms)

    # ---- serial (USB CDC) ------------------------------------------------

    def serial_read(self):
        # ipoll, not poll: poll() makes a list each call, and a quiet line
        # is asked every cycle (on a full heap an allocation costs ~70 us)
        data = b""
        while len(data) < 256:
            for _ in self._poll.ipoll(0):
                more = self._in.read(1)
                if more:
                    data += more
                    break
                return data  # the end of stdin (a pipe, not on a Pico)
            else:
                return data  # nothing more waits
        return data

    def serial_write(self, data):
        self._out.write(data)
