# The live heap while playing, on an emulated Pico: boots as main.py does
# (controller.boot's start(), the boot-only modules forgotten; Controller.run
# replaced so that boot returns here), starts a game of the board's first
# game, runs 300 control cycles, builds every candidate of the position,
# collects and prints gc.mem_alloc() (the whole heap, this snippet's REPL
# included: its first figure). Run it on an emulator flashed with a board:
#     mpremote connect $EMU_ROOT/work/NAME/tty soft-reset run bench/pico_emu_heap.py
import gc
import sys

gc.collect()
at_start = gc.mem_alloc()
import controller.control  # noqa: E402
from hal import platform_hal  # noqa: E402

got = []
controller.control.Controller.run = lambda self, period_ms=5: got.append(self)


def boot():
    from controller.boot import main  # not kept here: boot drops it

    main(platform_hal, 0)


boot()
ctl = got.pop()
gc.collect()
booted = gc.mem_alloc()
from controller.commands import run_command  # noqa: E402

run_command(ctl, 1, "new", {"game": ctl.board.games[0], "players": 2})
for _ in range(300):
    ctl.step(ctl.hal.ticks_ms())
ctl.position().fill()
while ctl.pos.fill():
    pass
gc.collect()
print()
print("HEAP start %d booted %d playing %d free %d modules %d" % (
    at_start, booted, gc.mem_alloc(), gc.mem_free(), len(sys.modules)))
