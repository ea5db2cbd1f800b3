"""The serial link against a scripted peer on a real pty (real pyserial)."""

from __future__ import annotations

import os
import time

import pytest
from peer import Peer

from controller import frames
from turtleboard.connection.link import (
    PROTO,
    Damaged,
    DeviceError,
    Disconnected,
    Frame,
    Link,
    NotOurDevice,
    Overlong,
    PortError,
    Raw,
    VersionMismatch,
)
from turtleboard.sim.lock import lock_folder

HELLO = {"fw": "1.0", "proto": PROTO, "board": "test", "board_version": 1, "game": None, "n": 0, "hash": ""}


def collect(link, want, timeout=10.0):
    """What the link reads until it has `want` events, or `timeout` s passed."""
    got = []
    end = time.monotonic() + timeout
    while len(got) < want and time.monotonic() < end:
        got.extend(link.read(0.05))
    return got


def read_until_lost(link, timeout=10.0):
    """Read until the link finds the port gone (Disconnected), at most `timeout` s."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        link.read(0.05)


def test_hello_handshake_and_versions():
    peer = Peer(hello=HELLO)
    try:
        with Link(peer.path) as link:
            hello = link.open(timeout=2)
            assert hello["board"] == "test"
            kinds = [k for k, _ in peer.received]
            assert kinds[0] == "hello"
            assert peer.received[0][1]["proto"] == PROTO
    finally:
        peer.close()


def test_the_handshake_waits_on_the_links_clock_with_a_cap_in_real_time():
    # A simulated table's clock stands still while its board boots: the
    # hello that comes after 0.6 s of real time is waited for by a 0.3 s
    # handshake on that clock; a board that never answers still ends the
    # handshake, after REAL_WAIT_MAX times its timeout.
    import threading

    from turtleboard.connection.link import REAL_WAIT_MAX

    def late(seq, payload):
        threading.Timer(0.6, lambda: peer.write(peer.frame("hello", HELLO))).start()
        return []

    peer = Peer(handlers={"hello": late})
    try:
        with Link(peer.path) as link:
            link.clock = lambda: 5.0
            assert link.open(timeout=0.3)["board"] == "test"
    finally:
        peer.close()
    silent = Peer(hello=None)
    try:
        with Link(silent.path) as link:
            link.clock = lambda: 5.0
            start = time.monotonic()
            with pytest.raises(NotOurDevice):
                link.open(timeout=0.05)
            assert time.monotonic() - start >= 0.05 * REAL_WAIT_MAX * 0.9
    finally:
        silent.close()


def test_port_that_does_not_exist():
    with pytest.raises(PortError, match="no such port: /dev/nope.*turtleboard devices"):
        Link("/dev/nope").open()


def test_busy_port_gets_a_clear_message():
    peer = Peer(hello=HELLO)
    try:
        first = Link(peer.path)
        first.open(timeout=2)
        with pytest.raises(PortError, match="busy.*Close that one first"):
            Link(peer.path).open(timeout=1)
        first.close()
        second = Link(peer.path)
        second.open(timeout=2)  # free again once the first lets go
        second.close()
    finally:
        peer.close()


def test_silent_device_is_not_ours():
    peer = Peer(hello=None)
    try:
        with pytest.raises(NotOurDevice, match="no Turtleboard answers.*devices --probe"):
            Link(peer.path).open(timeout=0.6)
    finally:
        peer.close()


def test_plain_micropython_repl_is_not_ours():
    # A Pico without our firmware echoes and prints its REPL prompt.
    peer = Peer(handlers={"hello": lambda s, p: [b"Traceback (most recent call last):\r\n",
                                                 b"SyntaxError: invalid syntax\r\n>>> \r\n"]})
    try:
        with pytest.raises(NotOurDevice, match="not as a Turtleboard.*SyntaxError.*turtleboard flash"):
            Link(peer.path).open(timeout=0.8)
    finally:
        peer.close()


def test_other_protocol_version():
    peer = Peer(hello=dict(HELLO, proto=PROTO + 1, fw="9.9"))
    try:
        with pytest.raises(VersionMismatch, match="protocol 2.*firmware '9.9'.*turtleboard flash"):
            Link(peer.path).open(timeout=1)
    finally:
        peer.close()


def test_garbage_half_lines_and_damaged_frames_are_told_apart():
    peer = Peer(hello=HELLO)
    try:
        link = Link(peer.path)
        link.open(timeout=2)
        link.read(0.05)
        good = frames.encode(7, "status", {"text": "ok"})
        bad = good[:-1] + ("0" if good[-1] != "0" else "1")
        peer.write(b"MPY: soft reboot\r\n")
        peer.write(b"\xff\xfe garbage \x00\r\n")
        peer.write(bad.encode() + b"\n")
        peer.write(b"x" * (frames.MAX_LINE + 10) + b"\n")
        peer.write(good[:10].encode())  # half a line now, the rest later
        got = collect(link, 4)
        peer.write(good[10:].encode() + b"\n")
        got += collect(link, 1)
        assert got[0] == Raw("MPY: soft reboot")
        assert isinstance(got[1], Raw)
        assert isinstance(got[2], Damaged) and "checksum" in got[2].why
        assert isinstance(got[3], Overlong)
        assert got[4] == Frame(7, "status", {"text": "ok"})
        assert link.damaged == 1 and link.overlong == 1
        link.close()
    finally:
        peer.close()


def test_command_ok_and_error():
    def bright(seq, p):
        if p["level"] > 255:
            return [peer.frame("error", {"code": "bad", "msg": "level 0..255", "re": seq})]
        return [peer.frame("ok", {"re": seq})]

    peer = Peer(hello=HELLO, handlers={"bright": bright})
    try:
        link = Link(peer.path)
        link.open(timeout=2)
        assert link.command("bright", {"level": 10}).kind == "ok"
        with pytest.raises(DeviceError, match="level 0..255"):
            link.command("bright", {"level": 999})
        link.close()
    finally:
        peer.close()


def test_a_sensor_error_meanwhile_is_not_the_commands_answer():
    # The device reports a sensor fault, or a line it could not read (no
    # `re`), just before it answers: the command still gets its own `ok`;
    # an error answers a command only when its `re` names it.
    def new(seq, p):
        return [peer.frame("error", {"code": "sensor", "msg": "the sensor of cell a1: dead"}),
                peer.frame("error", {"code": "bad-frame", "msg": "dropped a damaged frame"}),
                peer.frame("ok", {"re": seq})]

    def refused(seq, p):
        return [peer.frame("error", {"code": "bad-frame", "msg": "dropped a damaged frame"}),
                peer.frame("error", {"code": "bad-payload", "msg": "level must be 0..255", "re": seq})]

    peer = Peer(hello=HELLO, handlers={"new": new, "bright": refused})
    try:
        link = Link(peer.path)
        link.open(timeout=2)
        assert link.command("new", {"game": "tortuga"}).kind == "ok"
        with pytest.raises(DeviceError, match="level must be"):
            link.command("bright", {"level": 999})
        link.close()
    finally:
        peer.close()


def test_a_partial_line_left_by_a_previous_host_does_not_spoil_the_next_ones_first_command():
    peer = Peer(hello=HELLO, handlers={"ping": lambda seq, p: [peer.frame("ok", {"re": seq})]})
    try:
        # a host that went away mid-frame: its half line waits in the board's reader
        fd = os.open(peer.path, os.O_RDWR | os.O_NOCTTY)
        os.write(fd, b"~TB 7 sy")
        os.close(fd)
        with Link(peer.path) as link:
            link.open(timeout=2)
            assert link.command("ping").kind == "ok"
        kinds = [k for k, _ in peer.received]
        assert kinds[:3] == ["bad", "hello", "ping"]  # the half line ended alone, apart from the hello
    finally:
        peer.close()


def test_unplug_is_a_disconnect_and_reopen_finds_it_again():
    peer = Peer(hello=HELLO)
    try:
        link = Link(peer.path)
        link.open(timeout=2)
        peer.unplug()
        with pytest.raises(Disconnected):
            read_until_lost(link)
        assert not link.is_open
        with pytest.raises(Disconnected, match="did not come back"):
            link.reopen(give_up_after=0.3)
    finally:
        peer.close()


def test_a_port_file_is_read_again_at_every_reopen(tmp_path):
    # the virtual board writes its pty path to <dir>/pty; after a restart on
    # another pty, the link finds it again through the same file
    first = Peer(hello=HELLO)
    lock = lock_folder(str(tmp_path))  # as `turtleboard sim` holds its folder
    port_file = tmp_path / "pty"
    port_file.write_text(first.path + "\n")
    link = Link(str(port_file))
    link.open(timeout=2)
    first.unplug()
    second = Peer(hello=dict(HELLO, board="second"))
    try:
        port_file.write_text(second.path + "\n")
        with pytest.raises(Disconnected):
            read_until_lost(link)
        assert link.reopen(give_up_after=5)["board"] == "second"
        link.close()
    finally:
        second.close()
        os.close(lock)


def test_a_port_file_left_by_a_stopped_virtual_board_is_refused(tmp_path):
    # Its pty number may belong to another program by now: here a peer that
    # answers like a board. Only a folder a `turtleboard sim` holds is live.
    other = Peer(hello=HELLO)
    port_file = tmp_path / "pty"
    port_file.write_text(other.path + "\n")
    try:
        for lock_file in (False, True):
            if lock_file:
                os.close(lock_folder(str(tmp_path)))  # held once, let go: stale again
            with pytest.raises(PortError, match="is not running"):
                Link(str(port_file)).open(timeout=2)
        assert not [r for r in other.received if r[0] == "hello"]
    finally:
        other.close()
