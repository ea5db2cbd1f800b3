"""Power cuts and a host that goes away: the game goes on, no action lost."""

from __future__ import annotations

import os
import random
import threading
import time

import pytest

from turtleboard.connection.link import Link, LinkError
from turtleboard.sim import device

pytestmark = pytest.mark.e2e

KILLS = 20


def actions_of(game) -> list[str]:
    return [game.action_text(a) for a in game.history]


@pytest.mark.parametrize("pico", ["turtleboard", "stock"])
def test_power_cuts_at_random_moments_lose_no_action(vdev, pico):
    # The Turtleboard build's Pico keeps the log in its raw area (a page a
    # move), a stock one in a file: every action on flash before its frame.
    v = vdev("mahe", extra=["--romfs-bytes", "0"] if pico == "stock" else None, fields=8)
    v.open_world()
    m = v.mirror()
    v.new_game(m, "mahe", 2)
    hands = v.hands(m, seed=11)
    reported: dict[int, str] = {}  # n -> text, as the device announced them
    booted = threading.Event()
    booted.set()

    def watch(ev):
        kind, data = ev
        if kind == "frame" and data.kind == "action":
            reported[data.payload["n"]] = data.payload["text"]
        elif kind == "frame" and data.kind == "undone":
            for n in [n for n in reported if n > data.payload["n"]]:
                del reported[n]
        elif kind == "frame" and data.kind == "hello":
            booted.set()

    hands.on_event = watch
    kills = []
    stop = threading.Event()
    chance = random.Random(20)

    def killer():
        while len(kills) < KILLS and not stop.is_set():
            booted.wait(30)  # the device is up again
            if stop.wait(chance.uniform(0.3, 1.5)):
                return
            booted.clear()
            kills.append(max(reported) if reported else 0)
            v.bg.kill_firmware()

    thread = threading.Thread(target=killer, daemon=True)
    thread.start()
    try:
        games = 0
        while len(kills) < KILLS:
            hands.play()
            if len(kills) >= KILLS:
                break
            # The game ended before the last power cut: check it, start another.
            assert v.device_log(actions=len(m.replica.game.history)) == actions_of(m.replica.game)
            games += 1
            assert games < 5, "five games and still not %d power cuts" % KILLS
            while True:
                try:
                    v.new_game(m, "mahe", 2)
                    break
                except LinkError:
                    time.sleep(0.5)
            reported.clear()
        stop.set()
        thread.join(5)
        hands.play()  # to the end of the game
    finally:
        stop.set()
    assert len(kills) == KILLS
    game = m.replica.game
    assert game.is_over()
    log = v.device_log(actions=len(game.history))
    assert log == actions_of(game)
    # No action the device ever announced is missing from its log.
    for n, text in sorted(reported.items()):
        assert log[n - 1] == text, "action %d (%s) was lost" % (n, text)
    assert hands.boots >= KILLS
    in_file = os.path.exists(os.path.join(v.dir, "flash", "game.log"))
    assert in_file == (pico == "stock") and os.path.exists(os.path.join(v.dir, "logarea.img")) != in_file


def on_flash(v) -> int:
    # How many actions the device's log holds this moment, read as a boot
    # reads it but without repairing anything (the firmware is writing it).
    from controller import logscan

    log = device.game_log(v.dir)
    found = logscan.scan(log.area or log.path)
    return len(found[1]) if found and found[0] else 0


@pytest.mark.parametrize("pico", ["turtleboard", "stock"])
def test_every_action_is_on_flash_when_its_frame_arrives_and_a_cut_then_loses_none(vdev, pico):
    # Tortuga's moves come one after the other off the board, quicker than
    # the board is ever still; every `action` frame finds its action on the
    # device's flash already (a stock Pico's file log: all but a move the
    # pieces prove, written in the next cycle), and the power goes the
    # moment every second one is out: nothing reported is lost (a stock
    # Pico reads such a move again from the pieces when it is back).
    v = vdev("tortuga", extra=["--romfs-bytes", "0"] if pico == "stock" else None)
    v.open_world()
    m = v.mirror()
    v.new_game(m, "tortuga", 2)
    hands = v.hands(m, seed=3)
    reported: dict[int, str] = {}
    seen = []  # (n, actions on flash when frame n arrived)
    kills = []

    def watch(ev):
        kind, data = ev
        if kind == "frame" and data.kind == "action":
            n = data.payload["n"]
            reported[n] = data.payload["text"]
            seen.append((n, on_flash(v)))
            if n % 2 == 0 and len(kills) < 4 and n not in kills:
                kills.append(n)
                v.bg.kill_firmware()  # at once: the board never still

    hands.on_event = watch
    hands.play(max_actions=12)
    assert len(kills) == 4
    behind = 1 if pico == "stock" else 0
    assert all(held >= n - behind for n, held in seen), seen
    log = v.device_log(actions=max(reported))
    for n, text in sorted(reported.items()):
        assert log[n - 1] == text, "action %d (%s) was lost" % (n, text)
    assert log == actions_of(m.replica.game)


def test_the_host_goes_away_and_comes_back_in_step(vdev):
    v = vdev("mahe", fields=6)
    v.open_world()
    m = v.mirror()
    v.new_game(m, "mahe", 2)
    hands = v.hands(m, seed=4)
    for _ in range(3):
        hands.play(max_actions=15)
        if m.replica.game.is_over():
            break
        n = m.replica.n
        m.close()  # the host is gone; the game goes on without it for a while
        hands.mirror = None
        time.sleep(0.3)
        m = v.mirror()  # a new host connects: hello, full sync
        m.wait_synced(10)
        assert m.replica.n == n
        hands.mirror = m
    hands.play()
    assert m.replica.game.is_over()
    assert m.replica.mismatches == 0
    assert v.device_log(actions=len(m.replica.game.history)) == actions_of(m.replica.game)


def test_kill_9_of_the_whole_device_then_start_it_again(vdev):
    # The supervisor and the firmware die together (kill -9 of the process
    # group); `turtleboard sim` on the same folder brings the game back.
    from turtleboard.sim.device import Background

    v = vdev("mahe", fields=6)
    v.open_world()
    m = v.mirror()
    v.new_game(m, "mahe", 2)
    hands = v.hands(m, seed=8)
    for round_ in range(3):
        hands.play(max_actions=10 + round_)
        if m.replica.game.is_over():
            break
        before = actions_of(m.replica.game)
        m.close()
        v.bg.kill()
        v.bg = Background(v.dir, v.board_path)
        m = v.mirror()
        m.wait_synced(10)
        assert actions_of(m.replica.game)[: len(before)] == before
        hands.mirror = m
    hands.play()
    assert m.replica.game.is_over()
    assert v.device_log(actions=len(m.replica.game.history)) == actions_of(m.replica.game)


def test_what_the_game_log_lost_is_said_until_acknowledged_or_a_new_game_replaces_the_log(vdev):
    v = vdev("mahe")
    m = v.mirror()
    v.new_game(m, "mahe", 2)
    m.close()
    log = os.path.join(v.dir, "flash", "game.log")

    def damage_and_boot():
        pid = v.bg.firmware_pid()
        saved = device.game_log(v.dir)
        saved.scan()
        saved.append("z9-z9")  # an action the rules refuse
        v.bg.kill_firmware()  # a power cut: the next boot finds it
        hello = v.hello(lambda h: h.get("log") and v.bg.firmware_pid() != pid)
        assert "stops making sense at action 1" in hello["log"], hello
        return hello

    # said to every host until one acknowledges it: `play`'s mirror does
    damage_and_boot()
    assert "stops making sense" in v.hello(lambda h: True)["log"]  # (not acknowledged: said again)
    m = v.mirror()
    notes = [text for kind, text in m.wait_synced(10) if kind == "note"]
    assert any("the board's game log was damaged: " in t and "action 1" in t for t in notes), notes
    m.close()  # (its `ack` went out with the note)
    assert v.hello(lambda h: h.get("log") is None)["log"] is None
    assert not os.path.exists(log + ".report") and os.path.exists(log + ".bad")
    # never acknowledged, but a new game replaces the log it spoke of
    damage_and_boot()
    link = Link(v.path)
    link.open(10)  # (a console: no acknowledgement)
    try:
        link.send("new", {"game": "mahe", "players": 2})
        state = link.wait_for("state", 5)
    finally:
        link.close()
    assert state.payload["game"] == "mahe" and state.payload["n"] == 0 and state.payload["log"] is None
    assert v.hello(lambda h: True)["log"] is None
