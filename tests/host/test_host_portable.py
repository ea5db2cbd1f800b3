"""The tool works where the POSIX-only modules are missing (Windows): every
command module imports, and the commands that need none of them run."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from turtleboard.paths import BOARDS

# What Windows lacks of what the tool might import.
POSIX_ONLY = ("readline", "termios", "tty", "pty", "fcntl", "resource", "grp", "pwd")

# pyserial picks its backend by os.name (serialwin32 on Windows, which needs
# none of them): its POSIX backend is loaded first, then the modules are blocked
# for everything else.
PRELUDE = """
import sys
import serial, serial.tools.list_ports
for name in %r:
    sys.modules[name] = None  # `import name` raises ImportError, as on Windows
import signal
for name in ("SIGHUP", "SIGKILL", "SIGQUIT"):
    if hasattr(signal, name):
        delattr(signal, name)
""" % (POSIX_ONLY,)


def run_blocked(code: str, *args, timeout: float = 120):
    return subprocess.run(
        [sys.executable, "-c", PRELUDE + code, *map(str, args)],
        capture_output=True, text=True, timeout=timeout,
        env=dict(os.environ, COLUMNS="120", NO_COLOR="1"),
    )


def tb(*args, timeout: float = 120):
    return run_blocked("from turtleboard.cli import main\nsys.exit(main(sys.argv[1:]))",
                       *args, timeout=timeout)


def test_the_blocking_is_real():
    r = run_blocked("import termios")
    assert r.returncode != 0 and "import of termios halted" in r.stderr


def test_every_command_module_imports_without_posix_modules():
    r = run_blocked(
        "import importlib, pkgutil, turtleboard, turtleboard.commands\n"
        "names = [m.name for m in pkgutil.walk_packages(turtleboard.__path__, 'turtleboard.')\n"
        "         if not m.name.startswith(('turtleboard.sim', 'turtleboard.firmware', 'turtleboard.__main__'))]\n"
        "for n in names: importlib.import_module(n)\n"
        "print(len(names))\n"
    )
    assert r.returncode == 0, r.stderr
    assert int(r.stdout) >= 20


@pytest.mark.parametrize("args", [
    ["--help"],
    ["devices"],
    ["board", "check", str(BOARDS / "tortuga.json")],
    ["flash", "--help"],
    ["play", "--help"],
    ["console", "--help"],
])
def test_commands_run_without_posix_modules(args):
    r = tb(*args)
    assert r.returncode == 0, r.stderr
    assert "Traceback" not in r.stderr


def test_records_without_posix_modules(tmp_path):
    record = tmp_path / "game.txt"
    r = tb("selfplay", "tortuga", "--seed", "3", "-o", record)
    assert r.returncode == 0, r.stderr
    r = tb("replay", record)
    assert r.returncode == 0 and "Traceback" not in r.stderr, r.stderr
    svg = tmp_path / "game.svg"
    r = tb("render", record, "-o", svg)
    assert r.returncode == 0, r.stderr
    assert svg.read_text().startswith("<svg") or "<svg" in svg.read_text()[:200]


@pytest.mark.parametrize("command", ["sim", "demo"])
def test_the_virtual_board_says_where_it_runs(tmp_path, command):
    extra = ["--board", "mahe", "--dir", str(tmp_path / "d")] if command == "sim" else []
    r = tb(command, *extra)
    assert r.returncode == 2, r.stderr
    assert "Linux and macOS" in r.stderr and "Traceback" not in r.stderr
