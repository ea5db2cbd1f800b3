"""Turtleboard host tool: mirror, flash and debug the board from a PC.

The device packages (turtles, controller, hal) ship inside this package, in
``turtleboard/firmware/``, exactly as they are copied onto the Pico. The host
imports them under the same names the device uses, from that folder, so both
sides run the very same files (docs/architecture.md says why).
"""

import sys
from importlib import resources

FIRMWARE_DIR = str(resources.files(__name__) / "firmware")
if FIRMWARE_DIR not in sys.path:
    sys.path.insert(0, FIRMWARE_DIR)


from controller.commands import FW_VERSION  # noqa: E402  (the one place it is written)

__version__ = FW_VERSION
