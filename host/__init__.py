"""Turtleboard host tool: mirror, flash and debug the board from a PC.

The device packages (turtles, controller, hal) ship inside this package, in
``turtleboard/firmware/``, exactly as they are copied onto the Pico. The host
imports them under the same names the device uses, from that folder, so both
sides run the very same files (docs/architecture.md says why).
"""

import sys
from importlib.util import find_spec


def package_folder(name: str) -> str:
    """The folder of turtleboard's sub-package `name` (firmware, boards): in
    the repository they are top-level folders mapped into the package
    (pyproject.toml), in a wheel they sit inside it; the import system knows."""
    spec = find_spec(__name__ + "." + name)
    if spec is None or not spec.submodule_search_locations:
        raise ImportError(f"turtleboard is installed without its {name} folder: reinstall it")
    return list(spec.submodule_search_locations)[0]


FIRMWARE_DIR = package_folder("firmware")
if FIRMWARE_DIR not in sys.path:
    sys.path.insert(0, FIRMWARE_DIR)


from controller.commands import FW_VERSION  # noqa: E402  (the one place it is written)

__version__ = FW_VERSION
