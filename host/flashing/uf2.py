"""UF2 files and the Pico's BOOTSEL drive.

A Pico held in BOOTSEL while plugged in (or one with no MicroPython yet) shows
up as a USB drive named RPI-RP2 whose INFO_UF2.TXT names the chip. Copying a
UF2 file onto it writes the file's blocks into flash and restarts the Pico,
which then comes back as a serial port. A UF2 file is 512-byte blocks, each
with magic numbers, a flash address, its number and the total, and the family
id of the chip it is for (https://github.com/microsoft/uf2)."""

from __future__ import annotations

import os
import string
import struct
import sys
from pathlib import Path
from typing import NamedTuple

from turtleboard.errors import UserError

BLOCK = 512
MAGIC_START0 = 0x0A324655  # "UF2\n"
MAGIC_START1 = 0x9E5D5157
MAGIC_END = 0x0AB16F30
FLAG_NOT_MAIN_FLASH = 0x00000001
FLAG_FAMILY_ID = 0x00002000
PAYLOAD_MAX = 476

RP2040 = 0xE48BFF56
# the RP2350 (Pico 2): its absolute-address block, ARM secure, RISC-V, ARM non-secure
RP2350 = (0xE48BFF57, 0xE48BFF59, 0xE48BFF5A, 0xE48BFF5B)
FAMILIES = {RP2040: "RP2040 (Pico)", **{f: "RP2350 (Pico 2)" for f in RP2350}}
XIP_BASE = 0x10000000  # the RP2040's flash, memory mapped
FLASH_MAX = 16 * 1024 * 1024

INFO_FILE = "INFO_UF2.TXT"
# Board-ID in INFO_UF2.TXT -> the chip, and the UF2 families its bootrom takes
BOOTROMS = {
    "RPI-RP2": ("RP2040", (RP2040,)),
    "RP2350": ("RP2350", RP2350),
}

PICO_UF2_URL = "https://micropython.org/download/RPI_PICO/"
WHERE_TO_GET = (
    f"MicroPython for the Pico is the .uf2 file from {PICO_UF2_URL} (v1.28.0 or later), "
    "or the Turtleboard build with a ROMFS partition (micropython/boards/TURTLEBOARD_PICO "
    "in the repository, docs/firmware.md)"
)


class UF2Info(NamedTuple):
    path: Path
    blocks: int
    family: int
    start: int  # lowest flash address written
    end: int  # one past the highest
    size: int  # bytes of payload

    @property
    def chip(self) -> str:
        return FAMILIES.get(self.family, "family 0x%08x" % self.family)


class Drive(NamedTuple):
    path: str
    board_id: str  # from INFO_UF2.TXT, e.g. RPI-RP2
    model: str  # e.g. Raspberry Pi RP2
    chip: str  # RP2040, RP2350 or ? (another UF2 bootloader)


def check_uf2(path: str | os.PathLike, family: tuple[int, ...] = (RP2040, *RP2350)) -> UF2Info:
    """Read and check a UF2 file: every block's magic numbers, one family (one
    of `family`), block numbers 0..n-1 each once with the same total, payloads
    inside the Pico's flash. A UserError says what is wrong."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise UserError(f"no such file: {path}. {WHERE_TO_GET}.") from None
    except OSError as e:
        raise UserError(f"cannot read {path}: {e.strerror}") from None
    what = f"{path} is not a UF2 file"
    if not data or len(data) % BLOCK:
        raise UserError(f"{what}: its size ({len(data)} bytes) is not a whole number of "
                        f"{BLOCK}-byte blocks. {WHERE_TO_GET}.")
    total = len(data) // BLOCK
    seen: set[int] = set()
    families: set[int] = set()
    start, end, size = XIP_BASE + FLASH_MAX, 0, 0
    for i in range(total):
        block = data[i * BLOCK:(i + 1) * BLOCK]
        m0, m1, flags, addr, n, number, count, fam = struct.unpack_from("<8I", block)
        (m_end,) = struct.unpack_from("<I", block, BLOCK - 4)
        if (m0, m1, m_end) != (MAGIC_START0, MAGIC_START1, MAGIC_END):
            raise UserError(f"{what}: block {i} (byte {i * BLOCK}) has wrong magic numbers; "
                            f"the file is damaged or something else. {WHERE_TO_GET}.")
        if flags & FLAG_NOT_MAIN_FLASH:
            continue  # comments and the like: the bootrom skips them
        if not flags & FLAG_FAMILY_ID:
            raise UserError(f"{path}: block {i} names no chip family; the Pico's bootrom "
                            f"would ignore it. {WHERE_TO_GET}.")
        if count != total:
            raise UserError(f"{path}: block {i} says the file has {count} blocks but it has "
                            f"{total}; the file is cut short or damaged. Download it again.")
        if number >= count or number in seen:
            raise UserError(f"{path}: block {i} is numbered {number} (of {count}), "
                            f"{'twice' if number in seen else 'out of range'}; the file is "
                            f"damaged. Download it again.")
        if n > PAYLOAD_MAX or not XIP_BASE <= addr <= addr + n <= XIP_BASE + FLASH_MAX:
            raise UserError(f"{path}: block {i} writes {n} bytes at 0x{addr:08x}, outside "
                            f"the Pico's flash. {WHERE_TO_GET}.")
        seen.add(number)
        families.add(fam)
        start = min(start, addr)
        end = max(end, addr + n)
        size += n
    if not seen:
        raise UserError(f"{path}: no block in it is for flash. {WHERE_TO_GET}.")
    if len(seen) != total:
        raise UserError(f"{path}: only {len(seen)} of its {total} blocks write flash; "
                        f"the file is damaged. Download it again.")
    main = [f for f in families if f != RP2350[0]] or sorted(families)
    if len(main) > 1:
        raise UserError(f"{path} mixes blocks for several chips "
                        f"({', '.join('0x%08x' % f for f in sorted(families))}). {WHERE_TO_GET}.")
    fam = main[0]
    if not set(families) <= set(family):
        wanted = " or ".join(sorted({FAMILIES.get(f, "0x%08x" % f) for f in family}))
        found = FAMILIES.get(fam, "family 0x%08x" % fam)
        raise UserError(f"{path} is for {found}, not for {wanted}: that board's bootrom "
                        f"would ignore it. {WHERE_TO_GET}.")
    return UF2Info(path, total, fam, start, end, size)


def make_uf2(data: bytes, address: int = XIP_BASE, family: int = RP2040,
             payload: int = 256) -> bytes:
    """`data` as a UF2 file writing flash from `address` (256-byte payloads,
    as the Pico SDK's elf2uf2 makes them)."""
    chunks = [data[i:i + payload] for i in range(0, len(data), payload)] or [b""]
    out = bytearray()
    for number, chunk in enumerate(chunks):
        head = struct.pack("<8I", MAGIC_START0, MAGIC_START1, FLAG_FAMILY_ID,
                           address + number * payload, payload, number, len(chunks), family)
        body = chunk.ljust(PAYLOAD_MAX, b"\0")
        out += head + body + struct.pack("<I", MAGIC_END)
    return bytes(out)


def read_info(folder: str) -> Drive | None:
    """The drive at `folder` if it holds a UF2 bootloader's INFO_UF2.TXT."""
    try:
        text = (Path(folder) / INFO_FILE).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    fields = {}
    for line in text.splitlines():
        key, sep, value = line.partition(":")
        if sep:
            fields[key.strip().lower()] = value.strip()
    board_id = fields.get("board-id", "")
    chip = BOOTROMS.get(board_id, ("?", ()))[0]
    return Drive(str(folder), board_id, fields.get("model", ""), chip)


def mount_points() -> list[str]:
    """Where removable drives are mounted on this system: every drive letter
    on Windows, /Volumes/* on macOS, /media/$USER/*, /run/media/$USER/*,
    /media/* and /mnt/* on Linux and the like."""
    if sys.platform == "win32":
        return [f"{c}:\\" for c in string.ascii_uppercase]
    if sys.platform == "darwin":
        parents = ["/Volumes"]
    else:
        user = os.environ.get("USER") or os.environ.get("LOGNAME") or ""
        parents = [p for p in (f"/media/{user}", f"/run/media/{user}") if user]
        parents += ["/media", "/mnt"]
    out = []
    for parent in parents:
        try:
            names = sorted(os.listdir(parent))
        except OSError:
            continue
        out += [os.path.join(parent, n) for n in names]
    return out


def find_drives(explicit: list[str] | None = None) -> list[Drive]:
    """The UF2 bootloader drives mounted now (RPI-RP2 for a Pico in BOOTSEL
    mode), plus the folders in `explicit` that hold an INFO_UF2.TXT."""
    found: dict[str, Drive] = {}
    for folder in list(explicit or []) + mount_points():
        if folder in found:
            continue
        drive = read_info(folder)
        if drive is not None:
            found[folder] = drive
    return list(found.values())
