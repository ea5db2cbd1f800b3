# CircuitPython's start file (`turtleboard flash` puts it at the top of the
# CIRCUITPY drive, beside main.py): first, no restart when the PC writes a
# file (CircuitPython's auto-reload would stop a game) and no status line
# (terminal title escapes) on the serial line between the frames; then the
# firmware, as main.py starts it on MicroPython.
import supervisor

supervisor.runtime.autoreload = False
if getattr(supervisor, "status_bar", None) is not None:
    supervisor.status_bar.console = False

import main  # noqa: E402,F401 (runs the firmware)
