"""A virtual device's folder, and starting one in the background.

    <dir>/flash/      the device's flash: main.py, turtles/, controller/, hal/, board.json
    <dir>/romfs.img   its ROM partition (ROMFS_BYTES; `turtleboard flash` deploys into it)
    <dir>/logarea.img the game log's raw flash area, beside the partition (none on a stock Pico)
    <dir>/world/      the sim world (docs/sim-world.md)
    <dir>/pty         the path of the serial port (a pseudo-terminal)
    <dir>/pid         the supervisor's process id
    <dir>/firmware.pid  the running firmware's process id (changes at every boot)
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time

from turtleboard.errors import UserError
from turtleboard.paths import FIRMWARE, FIRMWARE_PARTS
from turtleboard.sim.supervisor import LOG_AREA_FILE

ROMFS_BYTES = 256 * 1024  # the virtual Pico's ROM partition (0: a stock Pico, none)
ROMFS_FILE = "romfs.img"


def load_board_file(path: str):
    """The checked Board of a board file, or a UserError that lists what is wrong."""
    from controller.board import BoardError, load_board

    try:
        with open(path) as f:
            text = f.read()
    except OSError as e:
        raise UserError("cannot read the board file %s (%s)" % (path, e.strerror))
    try:
        return load_board(text)
    except BoardError as e:
        lines = ["%s: %s" % (where, what) for where, what in e.problems]
        raise UserError("the board file %s is not right:\n  %s\n(`turtleboard board check %s` "
                        "explains the format)" % (path, "\n  ".join(lines), path))


def game_log(sim_dir: str):
    """The virtual device's power-safe game log, as the firmware reads it
    (controller.gamelog.GameLog): in its raw log area when it has one (a
    Turtleboard build), else the file flash/game.log. A GameLog that writes
    too: what it repairs or adds goes to the device's flash."""
    from controller.gamelog import GameLog

    path = os.path.join(sim_dir, "flash", "game.log")
    area = os.path.join(sim_dir, LOG_AREA_FILE)
    if not os.path.exists(area):
        return GameLog(path)
    from controller.flashlog import LogArea
    from turtleboard.sim.pico.pico_flash import load

    return GameLog(path, LogArea(load(area, "the game log's area"), path))


def forget_game(sim_dir: str) -> None:
    """A fresh game log: the file and the log area (erased at the next power-on)."""
    for name in (os.path.join("flash", "game.log"), LOG_AREA_FILE):
        try:
            os.unlink(os.path.join(sim_dir, name))
        except OSError:
            pass


def copy_firmware(flash: str) -> None:
    """Put the firmware's source files on the flash (what `turtleboard flash` does)."""
    os.makedirs(flash, exist_ok=True)
    for part in FIRMWARE_PARTS:
        src = FIRMWARE / part
        dst = os.path.join(flash, part)
        if src.is_dir():
            shutil.copytree(src, dst, dirs_exist_ok=True,
                            ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        elif src.exists():
            shutil.copy2(src, dst)


def prepare(sim_dir: str, board_path: str, fresh_firmware: bool = False, blank: bool = False):
    """Make the folder of a virtual device; returns the Board.

    The firmware and the board file are copied when the flash holds no
    firmware yet (or `fresh_firmware`); `blank` leaves a new flash empty, a
    Pico with MicroPython only, for `turtleboard flash`."""
    board = load_board_file(board_path)
    flash = os.path.join(sim_dir, "flash")
    os.makedirs(os.path.join(sim_dir, "world"), exist_ok=True)
    os.makedirs(flash, exist_ok=True)
    if blank:
        return board
    if not fresh_firmware and os.path.exists(os.path.join(flash, "main.py")):
        return board  # flashed already: keep its firmware and board file
    copy_firmware(flash)
    with open(board_path) as f:
        obj = json.load(f)
    with open(os.path.join(flash, "board.json"), "w") as f:
        json.dump(obj, f, indent=1, sort_keys=True)
        f.write("\n")
    return board


def wait_for_pty(sim_dir: str, proc: subprocess.Popen | None = None, timeout: float = 20) -> str:
    """The pty path a starting `turtleboard sim` writes to <dir>/pty (with
    `proc`: the one that process wrote, after its <dir>/pid)."""
    path = os.path.join(sim_dir, "pty")
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if proc is not None and proc.poll() is not None:
            err = proc.stderr.read() if proc.stderr else ""
            raise UserError("the virtual device did not start: %s" % (err.strip() or proc.returncode))
        try:
            if proc is not None:
                with open(os.path.join(sim_dir, "pid")) as f:
                    if f.read().strip() != str(proc.pid):
                        raise OSError("not this one's files yet")
            with open(path) as f:
                text = f.read().strip()
            if text and os.path.exists(text):
                return text
        except OSError:
            pass
        time.sleep(0.05)
    raise UserError("the virtual device wrote no pty path to %s within %ds" % (path, timeout))


class Background:
    """`turtleboard sim` running as a child process (for demo and tests)."""

    def __init__(self, sim_dir: str, board_path: str, extra: list[str] | None = None,
                 quiet: bool = True, lock: int | None = None):
        """`lock`: the folder's lock (sim/lock.py), held by the caller, handed on."""
        self.dir = sim_dir
        args = [sys.executable, "-m", "turtleboard", "sim", "--board", board_path,
                "--dir", sim_dir, "--lifeline"] + (extra or [])
        if lock is not None:
            args += ["--lock-fd", str(lock)]
        self.proc = subprocess.Popen(
            args,
            pass_fds=() if lock is None else (lock,),
            # a lifeline: the device stops when this pipe closes, which it
            # does when we exit, however we exit (also from a worker thread)
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL if quiet else None,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,
        )
        self.path = wait_for_pty(sim_dir, self.proc)

    def firmware_pid(self) -> int | None:
        try:
            with open(os.path.join(self.dir, "firmware.pid")) as f:
                return int(f.read())
        except (OSError, ValueError):
            return None

    def kill_firmware(self) -> None:
        """Cut the firmware's power (SIGKILL); the supervisor boots it again."""
        pid = self.firmware_pid()
        if pid:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()
        self._close_pipes()

    def _close_pipes(self) -> None:
        for pipe in (self.proc.stdin, self.proc.stderr):
            if pipe:
                try:
                    pipe.close()
                except OSError:
                    pass

    def kill(self) -> None:
        """kill -9 of the whole virtual device (supervisor and firmware)."""
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.proc.wait()
        self._close_pipes()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()
