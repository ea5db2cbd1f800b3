"""`turtleboard console` and `turtleboard devices` against a scripted peer on a real pty."""

from __future__ import annotations

import pytest
from hosttools import turtleboard
from peer import Peer

from controller import frames
from turtleboard.connection.link import PROTO
from turtleboard.console.app import parse_command
from turtleboard.errors import UserError

HELLO = {"fw": "0.1.0", "proto": PROTO, "board": "Test board", "board_version": 1, "game": None, "n": 0, "hash": None}


def test_console_shows_frames_raw_lines_and_damage_and_logs_the_session(tmp_path):
    def ping(seq, payload):
        good = peer.frame("status", {"text": "put the turtles on the raft"})
        return [peer.frame("ok", {"re": seq}), b"MPY: soft reboot\r\n", good[:-6] + (b"0000" if not good.endswith(b"*0000\r\n") else b"1111") + b"\r\n"]

    peer = Peer(hello=HELLO, handlers={
        "ping": ping,
        "new": lambda s, p: [peer.frame("ok", {"re": s})],
    })
    log = tmp_path / "session.log"
    try:
        r = turtleboard("console", "--port", peer.path, "--log", log, "--linger", "2",
                        input="ping\nnew mahe 4 egg_dice=1\nbright 300\nanswer 1\nfrobnicate\nstats\n")
    finally:
        peer.close()
    assert r.returncode == 0, r.stderr
    out = r.stdout
    assert "Turtleboard console on" in out and "Test board" in out
    assert "ok" in out and '{"re":2}' in out
    assert "| MPY: soft reboot" in out
    assert "damaged line dropped (checksum mismatch" in out
    assert "use: bright N  with N from 0 to 255" in out
    assert "no question seen since this console connected" in out
    assert "unknown command 'frobnicate'; type help" in out
    assert "frames in " in out and "sequence gaps" in out  # stats (typed before the answers came)
    sent = [k for k, _ in peer.received]
    assert sent == ["hello", "ping", "new"]
    assert peer.received[2][1] == {"game": "mahe", "players": 4, "options": {"egg_dice": 1}, "dice": "electronic"}
    text = log.read_text()
    assert "> ping" in text and "< ok" in text and "| MPY: soft reboot" in text


def test_console_opens_a_device_that_is_not_ours_with_a_warning():
    peer = Peer(handlers={"hello": lambda s, p: [b">>> \r\n"]})
    try:
        r = turtleboard("console", "--port", peer.path, "--linger", "0.2", input="")
    finally:
        peer.close()
    assert r.returncode == 0
    assert "not as a Turtleboard" in r.stderr and "opening it anyway" in r.stderr


def test_typed_commands_become_protocol_frames():
    assert parse_command("diag on") == ("diag", {"on": True})
    assert parse_command("enter d3") == ("enter", {"text": "d3"})
    # choices count from 1, as the console and the mirror show them; the board's from 0
    assert parse_command("answer 2", prompt_id=7) == ("answer", {"id": 7, "choice": 1})
    with pytest.raises(UserError, match="from 1"):
        parse_command("answer 0", prompt_id=7)
    assert parse_command('send bright {"level": 9}') == ("bright", {"level": 9})
    assert parse_command("new tortuga 2 tattoo=4 physical") == (
        "new", {"game": "tortuga", "players": 2, "options": {"tattoo": 4}, "dice": "physical"})
    assert parse_command("new tortuga 2 seats=person,good") == (
        "new", {"game": "tortuga", "players": 2, "options": {}, "dice": "electronic",
                "seats": ["person", "good"]})
    assert parse_command("hint") == ("hint", {})
    for bad, why in [("diag maybe", "diag on  or  diag off"), ("send bright [1]", "JSON object"),
                     ("send bright {x", "not JSON"), ("new mahe", "new GAME PLAYERS"),
                     ("enter", "use: enter TEXT")]:
        try:
            parse_command(bad)
        except UserError as e:
            assert why in str(e)
        else:
            raise AssertionError(f"{bad!r} was accepted")


def test_devices_probe_marks_a_turtleboard_and_refuses_a_missing_path():
    peer = Peer(hello=HELLO)
    try:
        r = turtleboard("devices", "--probe", peer.path)
    finally:
        peer.close()
    assert r.returncode == 0, r.stderr
    assert f"{peer.path}  pseudo-terminal" in r.stdout
    assert "* Turtleboard: firmware 0.1.0, protocol 1, board Test board v1" in r.stdout
    r = turtleboard("devices", "/dev/nope")
    assert r.returncode == 2 and "no such port: /dev/nope" in r.stderr


def test_garbage_from_a_random_serial_device_is_not_a_turtleboard():
    noise = bytes(range(256)) * 4
    peer = Peer(handlers={"hello": lambda s, p: [noise, b"\r\n", frames.MARKER.encode() + b"junk\r\n"]})
    try:
        r = turtleboard("devices", "--probe", peer.path)
    finally:
        peer.close()
    assert r.returncode == 0
    assert "- " in r.stdout and "not as a Turtleboard" in r.stdout


def test_console_reconnects_when_the_board_comes_back(tmp_path):
    import os
    import subprocess
    import sys
    import threading

    from turtleboard.sim.lock import lock_folder

    first = Peer(hello=HELLO)
    lock = lock_folder(str(tmp_path))  # as `turtleboard sim` holds its folder
    port_file = tmp_path / "pty"
    port_file.write_text(first.path)
    proc = subprocess.Popen(
        [sys.executable, "-m", "turtleboard", "console", "--port", str(port_file), "--linger", "1"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env=dict(os.environ, PYTHONUNBUFFERED="1"),
    )
    out: list[str] = []
    reader = threading.Thread(target=lambda: out.extend(proc.stdout), daemon=True)
    reader.start()

    def shown(text):
        return lambda: any(text in line for line in out)

    second = None
    try:
        wait_for(shown("Test board"), "the console to connect")
        first.unplug()
        wait_for(shown("lost the board"), "the console to see the board go")
        second = Peer(hello=dict(HELLO, board="Second board"),
                      handlers={"ping": lambda s, p: [second.frame("ok", {"re": s})]})
        port_file.write_text(second.path)
        wait_for(shown("reconnected"), "the console to reconnect")
        proc.stdin.write("ping\n")
        proc.stdin.close()
        assert proc.wait(60) == 0, proc.stderr.read()
        reader.join(10)
    finally:
        proc.kill()
        os.close(lock)
        if second:
            second.close()
    text = "".join(out)
    assert "reconnecting" in text and "Second board" in text
    assert ("ping", {}) in second.received


def wait_for(condition, what, timeout=60.0):
    import time

    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.02)


def test_piped_commands_still_show_what_the_board_sends_after_the_last_one():
    # A status comes 0.5 s after the answer, after stdin has ended: the
    # console keeps reading until the board has been quiet for --linger.
    import threading

    def ping(seq, payload):
        late = peer.frame("status", {"text": "a late status"})
        threading.Timer(0.5, peer.write, (late,)).start()  # --linger 3 leaves 2.5 s to spare
        return [peer.frame("ok", {"re": seq})]

    peer = Peer(hello=HELLO, handlers={"ping": ping})
    try:
        r = turtleboard("console", "--port", peer.path, "--linger", "3", input="ping\n")
    finally:
        peer.close()
    assert r.returncode == 0, r.stderr
    assert '{"re":' in r.stdout and "a late status" in r.stdout


def test_console_escapes_terminal_sequences_names_cells_and_keeps_accents():
    hello = dict(HELLO, board="Turtle Race reference board")

    def ping(seq, payload):
        return [peer.frame("ok", {"re": seq}),
                b"evil \x1b]0;pwned\x07 \x1b[2J\x1b[31mred\r\n",
                peer.frame("status", {"text": "Mah\u00e9: player 1 to move"}),
                peer.frame("sense", {"raw": [32768, 41000] + [32768] * 8,
                                     "image": [0, 1] + [0] * 8})]

    peer = Peer(hello=hello, handlers={"ping": ping})
    try:
        r = turtleboard("console", "--port", peer.path, "--linger", "3", input="ping\n")
    finally:
        peer.close()
    out = r.stdout
    assert "\x1b]" not in out and "\x1b[2J" not in out  # nothing reaches the terminal
    assert "| evil \\e]0;pwned\\x07 \\e[2J\\e[31mred" in out
    assert "Mahé: player 1 to move" in out and "\\u00e9" not in out
    assert "start:32768.  1:41000^  2:32768." in out  # diag: each cell by name


def test_console_says_plainly_when_the_device_is_silent():
    peer = Peer(hello=None)  # says nothing at all
    try:
        r = turtleboard("console", "--port", peer.path, "--linger", "0.2", input="")
    finally:
        peer.close()
    assert "firmware None" not in r.stdout
    assert "did not answer hello" in r.stdout


def test_the_prompt_is_drawn_again_only_while_it_waits(monkeypatch, capsys):
    # A line printed while the prompt waits clears it and draws it again; one
    # printed while a command runs (no prompt on screen) draws none, so the
    # next input() does not make it "tb> tb>".
    from rich.console import Console as RichConsole

    from turtleboard.console.app import Console

    class FakeLink:
        hello = {}

    drawn = []
    con = Console(FakeLink(), out=RichConsole(file=open("/dev/null", "w")))
    con.redraw = lambda: drawn.append("tb> ")
    con.say("an answer while a command runs")
    assert drawn == []
    con.waiting.set()
    con.say("a frame while the prompt waits")
    assert drawn == ["tb> "]


def test_console_help_fits_80_columns():
    from turtleboard.console.app import HELP

    assert max(len(line) for line in HELP.splitlines()) < 80
    assert "answer N" in HELP and "repl" in HELP
