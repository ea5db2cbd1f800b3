# Where the firmware's code runs from: the ROM partition (/rom, what
# `turtleboard flash` makes with mpy-cross) or the filesystem.
import sys


def code_in_rom():
    # Whether the firmware's packages were imported from /rom: then the
    # filesystem can rest while the board plays (a module imported later
    # is not looked for there).
    for name in ("hal", "controller", "turtles"):
        path = getattr(sys.modules.get(name), "__path__", None)
        if not (isinstance(path, str) and path.startswith("/rom/")):
            return False
    return True
