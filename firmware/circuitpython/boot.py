# CircuitPython runs boot.py once at power-on, before the USB drive starts.
# The firmware keeps its game log and calibration in the flash, so the
# flash is the firmware's (the CIRCUITPY drive read-only to the PC) unless
# the board's `ok` button is held at power-on: then the PC may write the
# drive (to flash a new firmware) and the firmware cannot write its game
# log (no new game) until the next power-on (docs/host.md). No board file
# yet: the drive is the PC's, as CircuitPython has it.
import json

import board
import digitalio
import storage


def pc_writes_drive():
    try:
        with open("board.json") as f:
            pin = json.load(f)["buttons"]["ok"]
        io = digitalio.DigitalInOut(getattr(board, "GP%d" % pin))
    except Exception:  # no board file, no `ok` button or no such pin
        return True
    io.switch_to_input(pull=digitalio.Pull.UP)
    held = not io.value  # pressed pulls it to ground
    io.deinit()
    return held


if not pc_writes_drive():
    storage.remount("/", readonly=False)
