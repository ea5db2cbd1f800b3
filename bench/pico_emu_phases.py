# The boot's phases on an emulated Pico, timed on the device (emulated us):
# what main() does up to `hello`, with the restore taken apart. Run it on an
# emulator bench/pico_emu.py left flashed with the Mahe board and its
# 900-action game.log (or any board and log):
#     mpremote connect $EMU_ROOT/work/NAME/tty soft-reset + run bench/pico_emu_phases.py
# (the REPL's own heap is in `alloc`; imports from a soft reset, as at boot).
import gc
import time

T = [time.ticks_us()]


def lap(what):
    now = time.ticks_us()
    print("LAP %-24s %8.2f ms  alloc %d" % (what, time.ticks_diff(now, T[0]) / 1000, gc.mem_alloc()))
    T[0] = time.ticks_us()


from controller.board import load_board  # noqa: E402

lap("import board, turtles")
from controller.control import Controller  # noqa: E402

lap("import control")
from controller.boot import warm_up  # noqa: E402, F401
from controller.commands import send_hello  # noqa: E402
from controller.gamelog import GameLog  # noqa: E402
from controller.sensing import Sensing  # noqa: E402

lap("import the rest")
from hal import platform_hal  # noqa: E402

lap("import hal")
board = load_board(open("board.json").read())
board.keep_small()
lap("load_board (+ the game)")
hal = platform_hal(board)
lap("the HAL")
sensing = Sensing(hal, board)
sensing.calibrate()
lap("calibrate")
ctl = Controller(hal, board, sensing, GameLog("game.log"), 1)
lap("Controller()")
log = ctl.session.log
header = log.scan()
lap("restore: log.scan")
if header is not None:
    game = ctl.session.make_game(header["game"], header["players"], header["options"])[0]
    lap("restore: the game")
    snap = log.last_snapshot()
    start = 0
    if snap is not None:
        game.resume(snap[0], snap[2], snap[1])
        start = snap[0]
    lap("restore: its snapshot")
    for text in log.actions(start):
        game.apply_text(text)
    lap("restore: replay %d" % (len(game.history) - start))
print("restored" if ctl.restore() else "no game", len(log._kept))
lap("ctl.restore() whole")
send_hello(ctl)
lap("hello")
# As boot does it: the log read while calibration waits between samples.
again = GameLog("game.log")
sensing.calibrate(meanwhile=again.read_ahead)
lap("calibrate, the log read in its waits")
again.scan()
lap("the rest of the scan")
