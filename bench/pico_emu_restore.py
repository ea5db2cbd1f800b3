# The heap at the restore, on an emulated Pico: boots as main.py does
# (controller.boot's start(), Controller.run replaced so that boot returns
# here) with the board's game in game.log, and takes gc.mem_alloc() (the
# whole heap, this snippet's REPL included: its first figure) around the
# restore, its peak:
#   - collected before the log scan, and uncollected after it (with its
#     garbage);
#   - the live heap during the scan: collected after every EVERY lines the
#     scan's block reader (logscan._lines) gives, and after its last;
#   - the live heap during the replay: the snapshot loaded, then collected
#     after every action the log gives (GameLog.actions), and after its last;
#   - collected once the game is restored.
# The true live peak is the highest collected figure. Run it on an emulator
# bench/pico_emu.py left flashed with the Mahe board and its 900-action
# game.log:
#     mpremote connect $EMU_ROOT/work/NAME/tty soft-reset run bench/pico_emu_restore.py
import gc

gc.collect()
at_start = gc.mem_alloc()
import controller.control  # noqa: E402
import controller.gamelog  # noqa: E402
import controller.logscan  # noqa: E402  (boot drops it after the restore; its _lines is wrapped here)
from hal import platform_hal  # noqa: E402

EVERY = 25  # lines of the log between two samples of the scan
got = []
seen = {"scan_peak": 0, "scan_samples": 0, "replay_peak": 0, "replay_samples": 0}
controller.control.Controller.run = lambda self, period_ms=5: got.append(self)
GameLog = controller.gamelog.GameLog
scan = GameLog.scan
actions = GameLog.actions
lines = controller.logscan._lines


def sample(what):
    gc.collect()
    a = gc.mem_alloc()
    seen[what + "_samples"] += 1
    if a > seen[what + "_peak"]:
        seen[what + "_peak"] = a


def lines_seen(f, size=512):
    k = 0
    for raw in lines(f, size):
        k += 1
        if k % EVERY == 0:
            sample("scan")
        yield raw
    sample("scan")


def scan_seen(self):
    gc.collect()
    seen["before"] = gc.mem_alloc()
    header = scan(self)
    seen["after"] = gc.mem_alloc()
    return header


def actions_seen(self, start=0, stop=None):
    sample("replay")  # the snapshot loaded
    for text in actions(self, start, stop):
        yield text
        sample("replay")


controller.logscan._lines = lines_seen
GameLog.scan = scan_seen
GameLog.actions = actions_seen


def boot():
    from controller.boot import main  # not kept here: boot drops it

    main(platform_hal, 0)


boot()
ctl = got.pop()
GameLog.scan = scan  # nothing of this snippet holds the log's reader now: boot dropped it
GameLog.actions = actions
lines = scan = actions = None
gc.collect()
print()
print("RESTORE start %d live_before_scan %d after_scan_uncollected %d restored %d actions %d" % (
    at_start, seen["before"], seen["after"], gc.mem_alloc(), len(ctl.session.game.history)))
print("PEAK scan %d (%d samples) replay %d (%d samples)" % (
    seen["scan_peak"], seen["scan_samples"], seen["replay_peak"], seen["replay_samples"]))
