"""`turtleboard flash` onto real MicroPython (the unix port behind a pty)."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
from hosttools import ROOT, turtleboard

from turtleboard.connection.link import Link, NotOurDevice, open_port
from turtleboard.flashing.flasher import check_mpy_version
from turtleboard.paths import FIRMWARE as FW

pytestmark = pytest.mark.micropython

BOARD = ROOT / "boards" / "mahe.json"


def test_flash_copies_precompiled_firmware_then_only_what_changed(bare_device):
    port = bare_device.path
    # a plain MicroPython is not a Turtleboard: it only echoes our hello
    with pytest.raises(NotOurDevice, match="not (as )?a Turtleboard.*turtleboard flash"):
        Link(port).open(timeout=1.5)
    stale = bare_device.flash / "controller"
    stale.mkdir()
    (stale / "old_module.py").write_text("x = 1\n")

    first = turtleboard("flash", "--port", port, "--board", BOARD, "--no-reset")
    assert first.returncode == 0, first.stderr
    assert ".mpy v6" in first.stdout and "1 stale to remove" in first.stdout
    flash = bare_device.flash
    assert (flash / "turtles" / "game.mpy").read_bytes()[:1] == b"M"  # .mpy magic
    assert not (flash / "turtles" / "game.py").exists()
    assert not (stale / "old_module.py").exists()
    assert json.loads((flash / "board.json").read_text())["name"] == json.loads(BOARD.read_text())["name"]
    assert (flash / "main.py").read_text() == (FW / "main.py").read_text()

    (flash / "turtles" / "rng.mpy").write_bytes(b"damaged")
    second = turtleboard("flash", "--port", port, "--board", BOARD, "--no-reset")
    assert second.returncode == 0, second.stderr
    assert ", 1 changed" in second.stdout and "turtles/rng.mpy" in second.stdout
    assert (flash / "turtles" / "rng.mpy").read_bytes()[:1] == b"M"


def test_flash_output_in_a_pipe_keeps_each_line_whole(bare_device, tmp_path):
    # Not a terminal (a CI log, `flash ... | tail -n1`): no line is cut at an
    # assumed 80 columns, however long the board file's path.
    folder = tmp_path / ("a-folder-with-a-long-name-" * 3)
    folder.mkdir()
    board = folder / "mahe.json"
    shutil.copy(BOARD, board)
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
    r = subprocess.run([sys.executable, "-m", "turtleboard", "flash", "--port", bare_device.path,
                        "--board", str(board), "--no-reset", "--files"],
                       capture_output=True, text=True, timeout=300, env=env)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert f"board file {board}: Mahé reference board v1, ok" in lines, lines
    assert lines[-1].startswith("done, from files"), lines


def test_flash_says_when_the_port_is_busy(bare_device):
    held = open_port(bare_device.path)  # as our own mirror holds it
    try:
        r = turtleboard("flash", "--port", bare_device.path, "--board", BOARD, "--no-reset")
    finally:
        held.close()
    assert r.returncode == 2
    assert "is busy" in r.stderr and "Close that one first" in r.stderr
    assert "Traceback" not in r.stderr


def test_flash_checks_the_board_file_before_touching_the_device(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"name": "x", "version": 1}')
    r = turtleboard("flash", "--port", "/dev/nope", "--board", bad)
    assert r.returncode == 2 and "has problems" in r.stderr and "$: missing key 'cells'" in r.stderr
    r = turtleboard("flash", "--port", "/dev/nope", "--board", tmp_path / "none.json")
    assert r.returncode == 2 and "no such board file" in r.stderr
    notjson = tmp_path / "nj.json"
    notjson.write_text("{ cells: ")
    r = turtleboard("flash", "--port", "/dev/nope", "--board", notjson)
    assert r.returncode == 2 and "is not valid JSON" in r.stderr


def test_flash_to_a_port_that_does_not_exist():
    r = turtleboard("flash", "--port", "/dev/nope", "--board", BOARD)
    assert r.returncode == 2 and "no such port: /dev/nope" in r.stderr and "Traceback" not in r.stderr


def test_a_board_whose_mpy_version_differs_is_refused():
    info = {"version": "1.19.1", "mpy": 6, "mpy_sub": 0, "arch": "armv6m"}
    with pytest.raises(Exception, match=r"loads .mpy v6.0, but mpy-cross here emits v6.3"):
        check_mpy_version(info, (6, 3))
    check_mpy_version(dict(info, mpy_sub=3), (6, 3))


PICO_BOARD_DIR = ROOT / "micropython" / "boards" / "TURTLEBOARD_PICO"


def turtleboard_pico_sizes(**defines) -> dict:
    """The board definition's CMake variables, as CMake itself computes them
    (script mode: the board file alone, without the Pico SDK; the linker
    script it writes goes to a scratch folder, given back as LD)."""
    if not shutil.which("cmake"):
        pytest.skip("cmake is not installed")
    script = ('include(${BOARD}/mpconfigboard.cmake)\n'
              'message("ROMFS=${MICROPY_HW_ROMFS_BYTES}")\n'
              'message("FS=${MICROPY_HW_FLASH_STORAGE_BYTES}")\n'
              'message("DEF=${MICROPY_DEF_BOARD}")\n'
              'message("PICO_BOARD=${PICO_BOARD}")\n'
              'message("PICO_PLATFORM=${PICO_PLATFORM}")\n')
    with tempfile.NamedTemporaryFile("w", suffix=".cmake", delete=False) as f:
        f.write(script)
    build = tempfile.mkdtemp()
    try:
        cmd = ["cmake", f"-DBOARD={PICO_BOARD_DIR}", "-DMICROPY_PORT_DIR=/port"]
        cmd += [f"-D{k}={v}" for k, v in defines.items()]
        proc = subprocess.run(cmd + ["-P", f.name], capture_output=True, text=True, timeout=60, cwd=build)
        if proc.returncode != 0:
            return {"ERROR": proc.stderr}
        ld = Path(build, "turtleboard_memmap.ld")
        out = dict(line.split("=", 1) for line in proc.stderr.splitlines() if "=" in line)
        out["LD"] = ld.read_text() if ld.exists() else None
    finally:
        os.unlink(f.name)
        shutil.rmtree(build)
    return {k: int(v) if v.isdigit() else v for k, v in out.items()}


def test_the_turtleboard_pico_board_definition_is_what_the_rp2_port_of_v1_28_reads():
    """The rp2 port of v1.28.0 reads the ROMFS and filesystem sizes only as C
    macros: the board passes both on (MICROPY_DEF_BOARD); a board also needs
    board.json. The sizes: MicroPython keeps RPI_PICO's 640 KB, the
    partition comes out of the filesystem, and the link fails if the code
    reaches the partition."""
    sizes = turtleboard_pico_sizes()
    assert (sizes["PICO_BOARD"], sizes["PICO_PLATFORM"]) == ("pico", "rp2040")
    assert sizes["ROMFS"] == 256 * 1024 and sizes["FS"] == 1152 * 1024
    assert sizes["ROMFS"] + sizes["FS"] == 1408 * 1024  # RPI_PICO's filesystem
    assert sizes["DEF"] == "MICROPY_HW_ROMFS_BYTES=262144;MICROPY_HW_FLASH_STORAGE_BYTES=1179648"
    assert 'INCLUDE "/port/memmap_mp_rp2040.ld"' in sizes["LD"]
    assert "ASSERT(__flash_binary_end <= 0x10000000 + 655360," in sizes["LD"]  # 640 KB
    assert "do not fit" in turtleboard_pico_sizes(MICROPY_HW_FLASH_STORAGE_BYTES=2000 * 1024)["ERROR"]
    smaller = turtleboard_pico_sizes(MICROPY_HW_ROMFS_BYTES=128 * 1024)
    assert smaller["FS"] == 1280 * 1024 and smaller["ROMFS"] % 4096 == 0
    header = (PICO_BOARD_DIR / "mpconfigboard.h").read_text()
    # a size defined in the header as well would be a redefinition (-Werror)
    assert "MICROPY_HW_BOARD_NAME" in header
    assert "#define MICROPY_HW_ROMFS_BYTES" not in header
    assert "#define MICROPY_HW_FLASH_STORAGE_BYTES" not in header
    meta = json.loads((PICO_BOARD_DIR / "board.json").read_text())
    assert meta["mcu"] == "rp2040" and meta["deploy"] == ["README.md"]
    assert all((PICO_BOARD_DIR / d).is_file() for d in meta["deploy"])
    assert {"deploy", "docs", "features", "images", "mcu", "product", "thumbnail", "url",
            "vendor"} <= set(meta)


def test_the_firmware_image_fits_the_turtleboard_pico_partition():
    # The MicroPython board definition the device is built from, the virtual
    # Pico's partition and the image `flash` writes must agree.
    from turtleboard.flashing.flasher import Flasher
    from turtleboard.sim.device import ROMFS_BYTES

    sizes = turtleboard_pico_sizes()
    assert sizes["ROMFS"] == ROMFS_BYTES and ROMFS_BYTES % 4096 == 0
    with Flasher("unused", str(BOARD)) as plan:
        plan.check_board()
        plan.info = {"arch": "armv6m"}  # as for the Pico
        plan.build()
        image = plan.build_image()
        staged = plan.staging
    assert not staged.exists()  # (plan.staging would make a new folder: it is made on first use)
    # a quarter of the partition kept free for the firmware to grow (132 KB of 256 KB now)
    assert image.startswith(b"\xd2\xcd\x31") and 20_000 < len(image) < ROMFS_BYTES * 3 // 4


def test_the_turtleboard_pico_keeps_the_game_log_in_a_raw_area_before_its_filesystem():
    # The board freezes its own _boot.py (the filesystem after the log area)
    # and turtleboard_log.py (the area), and the virtual Pico's area is as big.
    import ast

    from turtleboard.sim.supervisor import LOG_AREA_BYTES

    cmake = (PICO_BOARD_DIR / "mpconfigboard.cmake").read_text()
    assert "set(MICROPY_FROZEN_MANIFEST ${MICROPY_BOARD_DIR}/manifest.py)" in cmake
    manifest = (PICO_BOARD_DIR / "manifest.py").read_text()
    assert 'freeze("$(BOARD_DIR)", ("_boot.py", "turtleboard_log.py"))' in manifest
    assert 'freeze("$(PORT_DIR)/modules", ("rp2.py", "_boot_fat.py"))' in manifest  # not the port's _boot.py
    log = (PICO_BOARD_DIR / "turtleboard_log.py").read_text()
    size = next(node.value for node in ast.parse(log).body
                if isinstance(node, ast.Assign) and node.targets[0].id == "LOG_AREA_BYTES")
    area = eval(compile(ast.Expression(size), "size", "eval"))
    assert area == LOG_AREA_BYTES and area % 4096 == 0
    assert area < turtleboard_pico_sizes()["FS"]  # the storage holds the area and a filesystem
    assert "Flash(start=0, len=LOG_AREA_BYTES)" in log and "Flash(start=LOG_AREA_BYTES)" in log
    # from _rp2, not the rp2 package: its PIO assembler would sit in the heap
    assert "from _rp2 import Flash" in log and "import rp2" not in log
    boot = (PICO_BOARD_DIR / "_boot.py").read_text()
    assert "bdev = turtleboard_log.filesystem()" in boot and "rp2.Flash()" not in boot


def flash_process(*args, tmp):
    """`turtleboard flash ...` as a process of its own, unbuffered, with its
    temporary folders in `tmp` (to count what it leaves there)."""
    tmp.mkdir(exist_ok=True)
    env = dict(os.environ, TMPDIR=str(tmp), PYTHONUNBUFFERED="1", COLUMNS="120", NO_COLOR="1")
    return subprocess.Popen([sys.executable, "-m", "turtleboard", "flash", *map(str, args)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            cwd=ROOT, env=env)


def wait_for(condition, timeout=60.0, what="condition"):
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.01)


def test_flash_waits_for_a_port_busy_for_a_moment(bare_device):
    """A port held for a moment (ModemManager probing a new Pico on Linux, a
    mirror closing) is waited for, up to BUSY_WAIT, instead of failing."""
    import threading

    from turtleboard.flashing.flasher import Flasher

    flasher = Flasher(bare_device.path, str(BOARD))
    outcome = []

    def check():
        try:
            flasher.check_port_free()
            outcome.append("free")
        except Exception as e:  # noqa: BLE001 - the outcome is the test
            outcome.append(e)

    held = open_port(bare_device.path)
    checker = threading.Thread(target=check)
    try:
        checker.start()
        checker.join(0.5)  # still waiting while the port is held
        assert checker.is_alive(), outcome
    finally:
        held.close()
    checker.join(30)
    flasher.close()
    assert outcome == ["free"]


def test_flash_removes_its_staging_folder_on_success_and_on_error(bare_device, tmp_path):
    tmp = tmp_path / "tmp"
    ok = flash_process("--port", bare_device.path, "--board", BOARD, "--no-reset", tmp=tmp)
    assert ok.wait(300) == 0, ok.stderr.read()
    failed = flash_process("--port", "/dev/nope", "--board", BOARD, tmp=tmp)
    assert failed.wait(120) == 2 and "no such port" in failed.stderr.read()
    assert list(tmp.iterdir()) == []


def test_a_romfs_builder_that_gives_up_is_a_message_not_an_exit(tmp_path):
    from turtleboard.errors import UserError
    from turtleboard.flashing.flasher import romfs_image

    tree = tmp_path / "romfs"
    (tree / "turtles").mkdir(parents=True)
    (tree / "turtles" / "game.mpy").write_bytes(b"M\x06")
    (tree / "turtles" / "gone.mpy").symlink_to(tmp_path / "nowhere")  # cannot be read
    with pytest.raises(UserError, match=r"mpremote could not build the ROMFS image .*"
                                        r"Error: OSError .*Nothing was written"):
        romfs_image(tree)
    (tree / "turtles" / "gone.mpy").unlink()
    assert romfs_image(tree).startswith(b"\xd2\xcd\x31")


def test_a_power_cut_mid_copy_leaves_the_old_file_whole(bare_device, tmp_path):
    """Every file goes onto the board as NAME.tbnew, then takes its name: the
    device's power is cut (its process killed) while the board file is being
    written; the old board file is intact, and the next flash finishes and
    removes the piece left."""
    port, flash = bare_device.path, bare_device.flash
    first = turtleboard("flash", "--port", port, "--board", BOARD, "--no-reset", "--files")
    assert first.returncode == 0, first.stderr
    old = (flash / "board.json").read_bytes()
    big = tmp_path / "big.json"  # the same board, with 150 KB of JSON whitespace
    text = BOARD.read_text(encoding="utf-8")
    big.write_text(text[:-2] + " " * 150_000 + text[-2:], encoding="utf-8")
    proc = flash_process("--port", port, "--board", big, "--no-reset", "--files",
                         tmp=tmp_path / "tmp")
    part = flash / "board.json.tbnew"
    wait_for(lambda: part.exists() and part.stat().st_size > 2000, what="the copy to start")
    bare_device.child.send_signal(signal.SIGKILL)  # the power cut
    assert proc.wait(120) == 2
    err = proc.stderr.read()
    assert "Traceback" not in err  # mpremote fails, or gets no answer: either way it says
    assert "some of the firmware's files on the board are new and some old" in err
    assert "Flash again to finish" in err
    assert (flash / "board.json").read_bytes() == old
    assert part.exists() and part.stat().st_size < big.stat().st_size  # the piece, not the file
    again = turtleboard("flash", "--port", port, "--board", big, "--no-reset", "--files")
    assert again.returncode == 0, again.stderr
    assert (flash / "board.json").read_bytes() == big.read_bytes()
    assert not list(flash.rglob("*.tbnew"))


def test_ctrl_c_during_flash_says_what_the_board_holds_and_flash_again_finishes(bare_device, tmp_path):
    port, flash = bare_device.path, bare_device.flash
    tmp = tmp_path / "tmp"
    proc = flash_process("--port", port, "--board", BOARD, "--files", tmp=tmp)
    wait_for(lambda: any(flash.rglob("*.mpy*")), what="the copy to start")
    # The board pauses (as a busy USB link would) so the flash cannot finish
    # before Ctrl-C reaches it: the signal comes while the copy is under way.
    bare_device.child.send_signal(signal.SIGSTOP)
    try:
        proc.send_signal(signal.SIGINT)
    finally:
        bare_device.child.send_signal(signal.SIGCONT)
    assert proc.wait(120) == 130
    err = proc.stderr.read()
    assert "Traceback" not in err
    assert "turtleboard flash: interrupted, stopped half-way: some of the firmware's files" in err
    assert f"Flash again to finish: turtleboard flash --port {port} --board {BOARD}" in err
    assert list(tmp.iterdir()) == []  # the staging folder is gone too
    again = turtleboard("flash", "--port", port, "--board", BOARD, "--files")
    assert again.returncode == 0, again.stderr
    assert "ok: firmware" in again.stdout and "running from files" in again.stdout
