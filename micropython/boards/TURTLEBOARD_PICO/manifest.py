# ruff: noqa: F821  (freeze, include, require: MicroPython's manifest functions)
# The rp2 port's frozen modules (ports/rp2/boards/manifest.py), but the
# board's own _boot.py, which mounts the filesystem after the game log's
# area, and turtleboard_log.py, which says where that area is.
freeze("$(PORT_DIR)/modules", ("rp2.py", "_boot_fat.py"))
freeze("$(BOARD_DIR)", ("_boot.py", "turtleboard_log.py"))
include("$(MPY_DIR)/extmod/asyncio")
require("onewire")
require("ds18x20")
require("dht")
require("neopixel")
