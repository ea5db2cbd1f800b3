# The heap at the restore, on an emulated Pico: boots as main.py does
# (controller.boot's start(), Controller.run replaced so that boot returns
# here) with the board's game in game.log, and takes gc.mem_alloc() (the
# whole heap, this snippet's REPL included: its first figure) around the
# log scan, the restore's peak: collected before it (what lives while it
# runs), uncollected after it (with its garbage), and collected once the
# game is restored. Run it on an emulator bench/pico_emu.py left flashed
# with the Mahe board and its 900-action game.log:
#     mpremote connect $EMU_ROOT/work/NAME/tty soft-reset run bench/pico_emu_restore.py
import gc

gc.collect()
at_start = gc.mem_alloc()
import controller.control  # noqa: E402
import controller.gamelog  # noqa: E402
from hal import platform_hal  # noqa: E402

got = []
seen = {}
controller.control.Controller.run = lambda self, period_ms=5: got.append(self)
scan = controller.gamelog.GameLog.scan


def scan_seen(self):
    gc.collect()
    seen["before"] = gc.mem_alloc()
    header = scan(self)
    seen["after"] = gc.mem_alloc()
    return header


controller.gamelog.GameLog.scan = scan_seen


def boot():
    from controller.boot import main  # not kept here: boot drops it

    main(platform_hal, 0)


boot()
ctl = got.pop()
gc.collect()
print()
print("RESTORE start %d live_before_scan %d after_scan_uncollected %d restored %d actions %d" % (
    at_start, seen["before"], seen["after"], gc.mem_alloc(), len(ctl.session.game.history)))
