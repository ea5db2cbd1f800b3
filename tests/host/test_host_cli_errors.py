"""Every host command meets a bad port or a foreign device with a message, never a traceback."""

from __future__ import annotations

import pytest
from hosttools import turtleboard
from peer import Peer

from turtleboard.connection.link import PROTO

COMMANDS = [
    ["play"],
    ["console"],
    ["record", "export"],
]


@pytest.mark.parametrize("cmd", COMMANDS, ids=lambda c: " ".join(c))
def test_a_port_that_does_not_exist(cmd):
    r = turtleboard(*cmd, "--port", "/dev/ttyNOPE9", input="")
    assert r.returncode == 2
    assert "no such port: /dev/ttyNOPE9" in r.stderr and "turtleboard devices" in r.stderr
    assert "Traceback" not in r.stderr


@pytest.mark.parametrize("cmd", [["play"], ["record", "export"]], ids=lambda c: " ".join(c))
def test_a_board_with_another_protocol_version(cmd):
    peer = Peer(hello={"fw": "9.0", "proto": PROTO + 1, "board": "x", "board_version": 1,
                       "game": None, "n": 0, "hash": None})
    try:
        r = turtleboard(*cmd, "--port", peer.path)
    finally:
        peer.close()
    assert r.returncode == 2
    assert f"speaks protocol {PROTO + 1}" in r.stderr and "turtleboard flash" in r.stderr
    assert "Traceback" not in r.stderr


def test_a_board_that_answers_hello_but_never_syncs():
    peer = Peer(hello={"fw": "0.1.0", "proto": PROTO, "board": "x", "board_version": 1,
                       "game": None, "n": 0, "hash": None})
    try:
        r = turtleboard("record", "export", "--port", peer.path)
    finally:
        peer.close()
    assert r.returncode == 2 and "did not finish a sync" in r.stderr and "Traceback" not in r.stderr


def test_an_empty_firmware_folder_is_refused_before_the_port_is_touched(tmp_path):
    empty = tmp_path / "fw"
    (empty / "turtles").mkdir(parents=True)
    (empty / "main.py").write_text("")
    r = turtleboard("flash", "--port", "/dev/ttyNOPE9", "--board", "mahe", "--firmware", empty)
    assert r.returncode == 2
    assert "incomplete" in r.stderr and "main.py, turtles, controller, hal" in r.stderr
    assert "Traceback" not in r.stderr and "/dev/ttyNOPE9" not in r.stderr
@pytest.mark.parametrize("cmd", [["play"], ["record", "export"]], ids=lambda c: " ".join(c))
def test_a_board_with_a_bad_board_file_is_named_as_such(cmd):
    # What controller/boot.py's broken() does: a hello naming no board, then
    # its board file's problems after every frame it receives.
    hello = {"fw": "0.1.0", "proto": PROTO, "board": None, "board_version": None,
             "game": None, "n": 0, "hash": None}
    errors = [{"code": "board", "msg": "board.json $.cells.a1.sensor: 99 is not a sensor; "
                                       "flash a fixed board file"},
              {"code": "board", "msg": "board.json $.leds.count: must be 1..1024"}]
    peer = Peer()

    def answer(kind):
        def fn(seq, payload):
            out = [peer.frame("hello", hello)] if kind == "hello" else []
            return out + [peer.frame("error", e) for e in errors]
        return fn

    peer.handlers = {k: answer(k) for k in ("hello", "sync", "ping")}
    try:
        r = turtleboard(*cmd, "--port", peer.path)
    finally:
        peer.close()
    assert r.returncode == 2
    assert "board file is bad" in r.stderr and "cells.a1.sensor" in r.stderr
    assert "leds.count" in r.stderr and "turtleboard flash" in r.stderr
    assert "is its firmware ours" not in r.stderr and "Traceback" not in r.stderr


def test_a_ctrl_c_dealt_with_inside_a_string_exec_keeps_the_exit_code(tmp_path):
    # A Ctrl-C that lands while a module makes a dataclass (a string exec())
    # made CPython end `python -m turtleboard` by SIGINT after the command had
    # said "interrupted" and chosen 130: a loaded run saw rc -2.
    import subprocess
    import sys

    (tmp_path / "probe.py").write_text(
        "import runpy, sys\n"
        "from turtleboard.cli import build_parser\n"
        "build_parser()  # every command imported: nothing made after the Ctrl-C\n"
        "try:\n"
        "    exec('raise KeyboardInterrupt')\n"
        "except KeyboardInterrupt:\n"
        "    pass\n"
        "sys.argv = ['turtleboard'] + sys.argv[1:]\n"
        "runpy.run_module('turtleboard', run_name='__main__')\n")
    for args, code in ((["board", "check", "no-such-board.json"], 1), (["--version"], 0)):
        r = subprocess.run([sys.executable, "-m", "probe"] + args, cwd=tmp_path,
                           capture_output=True, text=True, timeout=120)
        assert r.returncode == code, (args, r.returncode, r.stderr)


# Every command's file and folder arguments: a path that cannot be what it
# names gets one line saying what is wrong, before any work is done ({f}: a
# regular file, {d}: a folder, {m}: a folder that does not exist).
PATHS = [
    (["selfplay", "mahe", "-o", "{m}/a.txt"], "cannot write the record to {m}/a.txt: "
                                              "there is no folder {m}"),
    (["selfplay", "mahe", "-o", "{d}"], "{d} is a folder: name a file for the record"),
    (["sim", "--board", "mahe", "--dir", "{f}"], "{f} is a file, not a folder"),
    (["sim", "--board", "mahe", "--dir", "/proc/tbx"], "cannot make the folder /proc/tbx"),
    (["sim", "--board", "mahe", "--dir", "{m}", "--swap-sensors", "1"], "--swap-sensors takes"),
    (["demo", "--dir", "{f}", "--no-web"], "{f} is a file, not a folder"),
    (["demo", "--dir", "/proc/tbx", "--no-web"], "cannot make the folder /proc/tbx"),
    (["play", "--port", "{f}"], "{f} is a file, not a serial port"),
    (["play", "--port", "{d}"], "{d} is a folder, not a serial port"),
    (["console", "--port", "/dev/ttyNOPE9", "--log", "{m}/s.log"],
     "cannot write the session log to {m}/s.log: there is no folder {m}"),
    (["record", "export", "--port", "/dev/ttyNOPE9", "-o", "{m}/r.txt"],
     "cannot write the record to {m}/r.txt"),
    (["flash", "--port", "{f}", "--board", "mahe"], "{f} is a file, not a serial port"),
    (["board", "test", "--board", "mahe", "--port", "{f}", "--out-dir", "{f}"],
     "{f} is a file, not a folder"),
    (["board", "test", "--board", "mahe", "--port", "{f}", "--sim-hands", "{f}"],
     "{f} is not a virtual board's folder"),
]


@pytest.mark.parametrize("args,said", PATHS, ids=lambda a: " ".join(a) if isinstance(a, list) else "")
def test_a_path_that_cannot_be_used_is_one_line_before_any_work(tmp_path, args, said):
    f, d, m = tmp_path / "regular.txt", tmp_path / "folder", tmp_path / "missing"
    f.write_text("not a port\n")
    d.mkdir()
    given = [a.format(f=f, d=d, m=m) for a in args]
    r = turtleboard(*given, input="")
    assert r.returncode == 2, r.stderr
    assert said.format(f=f, d=d, m=m) in r.stderr and "Traceback" not in r.stderr, r.stderr
    assert len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["folder", "regular.txt"]  # nothing made
    assert f.read_text() == "not a port\n" and list(d.iterdir()) == []
