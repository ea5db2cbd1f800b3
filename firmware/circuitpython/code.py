# CircuitPython's start file (`turtleboard flash` puts it at the top of the
# CIRCUITPY drive, beside main.py): first, no restart when the PC writes a
# file (CircuitPython's auto-reload would stop a game), then the firmware,
# as main.py starts it on MicroPython.
import supervisor

supervisor.runtime.autoreload = False

import main  # noqa: E402,F401 (runs the firmware)
