"""Putting MicroPython, the firmware and a board file on a Pico: mpremote, UF2, BOOTSEL."""
