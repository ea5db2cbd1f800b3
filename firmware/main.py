# Device entry point: load board.json, build the HAL for this platform
# (rp2 -> hal.rp2, circuitpython -> hal.circuitpython, the unix port ->
# hal.sim with the world in ../world), run the controller. Ctrl-C stops it
# and leaves the REPL to the host.
import sys

from hal import platform_hal


def boot():
    # Imported here, not kept: boot's code is dropped once the game runs.
    from controller.boot import start

    return start(platform_hal)


boot().run(period_ms=5 if sys.platform == "linux" else 0)
