"""Writes firmware/package.json, the list `mpremote mip
install` reads to put the firmware on a board (docs/host.md), from the
firmware's files. Run it after adding or removing a firmware module:

    python tools/make_package_json.py          # rewrite the file
    python tools/make_package_json.py --check  # exit 1 if it is out of date
"""

from __future__ import annotations

import sys

from turtleboard.flashing.flasher import mip_package
from turtleboard.paths import FIRMWARE

PATH = FIRMWARE / "package.json"


def main(argv: list[str]) -> int:
    text = mip_package(FIRMWARE)
    if "--check" in argv:
        if PATH.read_text(encoding="utf-8") != text:
            print(f"{PATH} is out of date: run python tools/make_package_json.py", file=sys.stderr)
            return 1
        return 0
    PATH.write_text(text, encoding="utf-8")
    print(f"wrote {PATH}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
