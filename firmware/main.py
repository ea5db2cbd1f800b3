# Device entry point: load board.json, build the HAL for this platform
# (rp2 -> hal.rp2, circuitpython -> hal.circuitpython, the unix port ->
# hal.sim with the world in ../world), run the controller. Ctrl-C stops it
# and leaves the REPL to the host.
import sys

from controller.boot import main
from hal import platform_hal

main(platform_hal, period_ms=5 if sys.platform == "linux" else 0)
