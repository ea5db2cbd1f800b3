"""The virtual Pico's ROM partition and `turtleboard flash` into it: real
mpremote, the real firmware under the unix port, on the real pty."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from turtleboard.connection.link import Link
from turtleboard.sim.mpy import FIRMWARE
from turtleboard.sim.supervisor import PICO_DIR

ROOT = Path(__file__).resolve().parents[2]

pytestmark = [pytest.mark.e2e, pytest.mark.micropython]

PACKAGES = ("turtles", "controller", "hal")
QUERY = "ROMFS0 partition has size 262144 bytes (64 blocks of 4096 bytes each)"


def mpremote(port: str, *args: str, timeout: float = 60) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "mpremote", "connect", port, "resume", *args],
                          capture_output=True, text=True, timeout=timeout)


def flash(port: str, board: str, *args: str, timeout: float = 180) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "turtleboard", "flash", "--port", port, "--board", board, *args],
        capture_output=True, text=True, timeout=timeout, cwd=ROOT,
        env=dict(os.environ, COLUMNS="200", NO_COLOR="1"))


def on_device(port: str, code: str) -> str:
    r = mpremote(port, "exec", code)
    assert r.returncode == 0, r.stdout + r.stderr
    return r.stdout.strip()


def hello(port: str) -> dict:
    """Reset the board (Ctrl-D at the friendly REPL) and wait for the firmware's hello."""
    link = Link(port)
    try:
        return link.reopen(give_up_after=20)
    finally:
        link.close()


def rom(v) -> bytes:
    with open(os.path.join(v.dir, "romfs.img"), "rb") as f:
        return f.read()


def packages_on_flash(v) -> list[str]:
    return [p for p in PACKAGES if os.path.exists(os.path.join(v.dir, "flash", p))]


# -- the partition itself ---------------------------------------------------


@pytest.mark.parametrize("content", ["blank", "zeros", "huge size", "no header"])
def test_a_partition_without_a_valid_image_is_skipped_at_boot(tmp_path, content):
    image = {
        "blank": b"\xff" * 8192,
        "zeros": bytes(8192),
        "huge size": b"\xd2\xcd\x31\xff\xff\xff\x7f" + b"\xff" * 8185,
        "no header": b"\xd2\xcd" + b"\x00" * 8190,
    }[content]
    part = tmp_path / "romfs.img"
    part.write_bytes(image)
    env = dict(os.environ, TURTLEBOARD_ROMFS=str(part), MICROPYPATH=PICO_DIR + ":.frozen:lib")
    code = ("__import__('pico_boot').power_on(0)\nimport sys, vfs\n"
            "print(sys.path, vfs.rom_ioctl(1), len(vfs.rom_ioctl(2, 0)))")
    from turtleboard.sim.mpy import micropython_command

    r = subprocess.run(micropython_command() + ["-c", code], env=env, capture_output=True,
                       text=True, timeout=30, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "['', '.frozen', 'lib'] 1 8192"


def test_the_partition_behaves_as_the_picos_flash(tmp_path):
    part = tmp_path / "romfs.img"
    part.write_bytes(b"\xff" * 8192)
    env = dict(os.environ, TURTLEBOARD_ROMFS=str(part), MICROPYPATH=PICO_DIR + ":.frozen:lib")
    code = """__import__('pico_boot').power_on(0)
import vfs
d = vfs.rom_ioctl(2, 0)
print(vfs.rom_ioctl(1), d.ioctl(4, 0), d.ioctl(5, 0), vfs.rom_ioctl(3, 0, 0, 4096))
d.writeblocks(1, b'\\xf0' * 256, 0)
d.writeblocks(1, b'\\x3c' * 256, 0)   # no erase between: only bits cleared
print(d[4096], d[4096 + 256])
for bad in ((1, b'x' * 100, 0), (1, b'x' * 256, 8), (2, b'x' * 256, 0)):
    try:
        d.writeblocks(*bad)
        print('wrote', bad[1][:1], bad[2])
    except ValueError:
        print('refused')
d.writeblocks(0, b'\\x01' * 4096)     # no offset: the block is erased first
d.ioctl(6, 1)
"""
    from turtleboard.sim.mpy import micropython_command

    r = subprocess.run(micropython_command() + ["-c", code], env=env, capture_output=True,
                       text=True, timeout=30, cwd=tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout.split("\n")[:5] == ["1 2 4096 -22", "48 255", "refused", "refused", "refused"]
    assert part.read_bytes() == b"\x01" * 4096 + b"\xff" * 4096  # on the file at once
    part.write_bytes(b"\xff" * 4096 + b"\x30" * 256 + b"\xff" * 3840)
    code = "__import__('pico_boot').power_on(0)\nimport vfs\nprint(bytes(vfs.rom_ioctl(2, 0)[4096:4098]))"
    r = subprocess.run(micropython_command() + ["-c", code], env=env, capture_output=True,
                       text=True, timeout=30, cwd=tmp_path)
    assert r.stdout.strip() == "b'00'"  # what was written is read back after a reboot


def test_mpremote_romfs_query_and_deploy_work_on_the_virtual_pico(vdev, tmp_path):
    v = vdev("mahe", fields=5, extra=["--blank"])
    assert rom(v) == b"\xff" * 262144  # a new partition is erased flash
    r = mpremote(v.path, "romfs", "query")
    assert r.returncode == 0, r.stderr
    assert QUERY in r.stdout and "Not a valid ROMFS" in r.stdout
    app = tmp_path / "app"
    (app / "lib").mkdir(parents=True)
    (app / "turtle.py").write_text("SHELL = 'green'\n")
    (app / "lib" / "lettuce.py").write_text("LEAVES = 3\n")
    r = mpremote(v.path, "romfs", "deploy", str(app))
    assert r.returncode == 0 and "ROMFS image deployed" in r.stdout, r.stdout + r.stderr
    r = mpremote(v.path, "romfs", "query")
    assert "ROMFS image size:" in r.stdout and "Not a valid" not in r.stdout
    # a soft reset mounts the new image at /rom; the path is the rp2 port's
    r = mpremote(v.path, "soft-reset", "exec",
                 "import sys, turtle, lettuce\nprint(sys.path, turtle.__file__, lettuce.LEAVES)")
    assert r.returncode == 0, r.stderr
    assert r.stdout.split("] ")[0] + "]" == "['', '.frozen', '/rom', '/rom/lib', 'lib']"
    assert r.stdout.split("] ")[1].split() == ["/rom/turtle.mpy", "3"]
    # the flash folder looks as a Pico's: nothing of the partition in it
    assert sorted(os.listdir(os.path.join(v.dir, "flash"))) == []
    # the partition is the board's: it survives a power cut
    before = rom(v)
    was = v.bg.firmware_pid()
    v.bg.kill_firmware()
    end = time.monotonic() + 60
    while v.bg.firmware_pid() in (None, was):  # the supervisor powers it on again
        assert time.monotonic() < end, "the virtual Pico never came back"
        time.sleep(0.02)
    assert rom(v) == before
    assert on_device(v.path, "import turtle\nprint(turtle.SHELL)") == "green"


# -- turtleboard flash --------------------------------------------------------


def test_flash_deploys_into_romfs_skips_an_unchanged_image_and_can_go_back_to_files(vdev, tmp_path):
    v = vdev("mahe", fields=5, extra=["--blank"])
    first = flash(v.path, v.board_path)
    assert first.returncode == 0, first.stdout + first.stderr
    assert "into the ROMFS partition: image " in first.stdout and " of 262144 (" in first.stdout
    assert "running from ROMFS (/rom)" in first.stdout
    assert {"board.json", "main.py"} <= set(os.listdir(os.path.join(v.dir, "flash")))
    assert packages_on_flash(v) == []
    r = mpremote(v.path, "romfs", "query")
    assert QUERY in r.stdout and "ROMFS image size:" in r.stdout
    where = on_device(v.path, "import controller.boot, turtles.game\n"
                               "print(controller.boot.__file__, turtles.game.__file__)")
    assert where.split() == ["/rom/controller/boot.mpy", "/rom/turtles/game.mpy"]

    # the same firmware again: nothing written, nothing copied
    image = rom(v)
    again = flash(v.path, v.board_path)
    assert again.returncode == 0, again.stdout + again.stderr
    assert "holds this image already: nothing written" in again.stdout
    assert "0 changed" in again.stdout
    assert rom(v) == image

    # one firmware file changed: a new image
    changed = tmp_path / "firmware"
    shutil.copytree(FIRMWARE, changed, ignore=shutil.ignore_patterns("__pycache__"))
    with open(changed / "turtles" / "rng.py", "a") as f:
        f.write("\nCHANGED = 1\n")
    third = flash(v.path, v.board_path, "--firmware", str(changed))
    assert third.returncode == 0, third.stdout + third.stderr
    assert "writing the image" in third.stdout and "nothing written" not in third.stdout
    assert rom(v) != image
    assert on_device(v.path, "import turtles.rng\nprint(turtles.rng.CHANGED)") == "1"

    # --files: the packages are files again, the old image erased, it still boots
    files = flash(v.path, v.board_path, "--files")
    assert files.returncode == 0, files.stdout + files.stderr
    assert "running from files" in files.stdout and "erased the old ROMFS image" in files.stdout
    assert packages_on_flash(v) == list(PACKAGES)
    assert "Not a valid ROMFS" in mpremote(v.path, "romfs", "query").stdout
    assert on_device(v.path, "import controller.boot\nprint(controller.boot.__file__)") \
        == "controller/boot.mpy"

    # and back into ROMFS (--romfs): the files go, the image is written again
    back = flash(v.path, v.board_path, "--romfs")
    assert back.returncode == 0, back.stdout + back.stderr
    assert "removed controller/, hal/, turtles/ from the filesystem" in back.stdout
    assert packages_on_flash(v) == [] and rom(v)[:len(image)] == image

    # a power cut after the deploy: the board boots the image and says hello
    v.bg.kill_firmware()
    assert hello(v.path)["board"] == v.board.name


def test_flash_on_a_stock_pico_without_a_partition(vdev):
    v = vdev("mahe", fields=5, extra=["--blank", "--romfs-bytes", "0"])
    assert not os.path.exists(os.path.join(v.dir, "romfs.img"))
    assert "ROMFS is not enabled on this device" in mpremote(v.path, "romfs", "query").stdout
    r = flash(v.path, v.board_path, "--romfs")
    assert r.returncode == 2
    assert "has no ROMFS partition" in r.stderr and "flash without --romfs" in r.stderr
    assert "Traceback" not in r.stderr
    assert not os.path.exists(os.path.join(v.dir, "flash", "main.py"))  # nothing touched
    r = flash(v.path, v.board_path, "--no-reset")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "has no ROMFS partition, so the firmware runs from RAM" in r.stdout
    assert packages_on_flash(v) == list(PACKAGES)


def test_an_image_too_big_for_the_partition_is_refused_before_writing(vdev):
    v = vdev("mahe", fields=5, extra=["--blank", "--romfs-bytes", "8192"])
    for args in ((), ("--romfs",)):
        r = flash(v.path, v.board_path, *args)
        assert r.returncode == 2, r.stdout + r.stderr
        assert "ROMFS partition on %s holds 8192; nothing was written" % v.path in r.stderr
        assert "--files" in r.stderr and "Traceback" not in r.stderr
    assert rom(v) == b"\xff" * 8192
    assert not os.path.exists(os.path.join(v.dir, "flash", "main.py"))


def test_a_power_cut_while_the_image_is_written_leaves_no_half_image(vdev, tmp_path):
    v = vdev("mahe", fields=5, extra=["--blank"])
    assert flash(v.path, v.board_path).returncode == 0
    image = rom(v)
    # --force writes the same image again: cut the power once the old one is
    # erased, while the new one is being written (the killed flash's staging
    # folder left in a temporary folder of the test's)
    proc = subprocess.Popen(
        [sys.executable, "-m", "turtleboard", "flash", "--port", v.path, "--board",
         v.board_path, "--force"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        cwd=ROOT, start_new_session=True, env=dict(os.environ, TMPDIR=str(tmp_path)))
    try:
        end = time.monotonic() + 60
        while rom(v)[:3] == image[:3]:
            assert time.monotonic() < end and proc.poll() is None, "the image was never erased"
            time.sleep(0.005)
        time.sleep(0.3)  # some blocks written
        v.bg.kill_firmware()
        os.killpg(proc.pid, signal.SIGKILL)  # the board unplugged: the host gives up too
    finally:
        proc.wait()
    cut = rom(v)
    assert cut[:3] == b"\xff\xff\xff" and cut != image  # no header: not a valid image
    # it boots back: MicroPython without the firmware's packages, /rom not mounted
    out = on_device(v.path, "import sys\nprint('/rom' in sys.path)\n"
                            "try:\n import controller\nexcept ImportError:\n print('none')")
    assert out.split() == ["False", "none"]
    # and a new flash brings it all back
    r = flash(v.path, v.board_path)
    assert r.returncode == 0, r.stdout + r.stderr
    assert rom(v) == image and "running from ROMFS (/rom)" in r.stdout
