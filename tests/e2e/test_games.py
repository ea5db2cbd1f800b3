"""Whole games through the sensors: the hands move pieces and press buttons,
the device recognises every move, the host replica agrees after every action."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.e2e


def actions_of(game) -> list[str]:
    return [game.action_text(a) for a in game.history]


def play_and_check(v, game: str, players: int, seed: int, slides: bool = True, script=None,
                   **world_kw):
    v.open_world(**world_kw)
    m = v.mirror()
    v.new_game(m, game, players)
    reported: dict[int, str] = {}

    def watch(ev):
        kind, data = ev
        if kind == "frame" and data.kind == "action":
            reported[data.payload["n"]] = data.payload["text"]
            # The replica applied it and checked the device's hash.
            assert m.replica.in_sync, "the mirror fell out of step at action %d" % data.payload["n"]

    hands = v.hands(m, seed=seed, slides=slides, script=script)
    hands.on_event = watch
    hands.play()
    game_now = m.replica.game
    assert game_now.is_over()
    assert m.replica.mismatches == 0
    log = v.device_log(actions=len(game_now.history))
    assert log == actions_of(game_now)
    assert hands.done == log  # every action reported once, in order
    for n, text in reported.items():
        assert log[n - 1] == text
    # Every move the hands made or chose is one the device recorded.
    made = [t for t in hands.made if t != "cancel"]
    it = iter(log)
    assert all(t in it for t in made), "the device recorded another action than the hands made: %s vs %s" % (made, log)
    return hands, log


def test_mahe_through_the_buttons_and_sensors(vdev):
    v = vdev("mahe", fields=5)
    play_and_check(v, "mahe", 2, seed=5)


def test_race_through_the_sensors(vdev):
    v = vdev("race")
    # Turtles pushed along the track from cell to cell.
    hands, log = play_and_check(v, "race", 3, seed=2)
    assert any(t for t in hands.made if "+" in t), "no turtle was moved on the board"


def test_race_with_turtles_lifted_and_carried(vdev):
    # A turtle held in the air looks like a move onto a stack: the device asks
    # (a `move` prompt), the hands put it down and confirm with OK.
    v = vdev("race")
    play_and_check(v, "race", 3, seed=2, slides=False)


def test_tortuga_from_a_script_gives_exactly_that_game(vdev):
    # A game made beforehand by a bot is played on the board from its action
    # list; the device, seeing only the pieces, records the very same list.
    from controller.flows import device_options
    from turtles import game_class, new_game
    from turtles.bots import play_random
    from turtles.rng import Rng

    v = vdev("tortuga")
    cls = game_class("tortuga")
    game = new_game("tortuga", 2, device_options("tortuga", cls, {}), v.board.geometry)
    play_random(game, Rng(5))
    script = actions_of(game)
    hands, log = play_and_check(v, "tortuga", 2, seed=3, script=script)
    assert log == script
    assert any("x" in t for t in script), "no turtle was jumped (and flipped) on the board"


def test_noise_and_bounce_never_commit_a_wrong_move(vdev):
    v = vdev("tortuga")
    # The hands check each commit against the move they made (HandsError otherwise).
    play_and_check(v, "tortuga", 2, seed=7, noise=400, bounce=True)


def test_loud_noise_and_bounce_never_commit_a_wrong_move(vdev):
    # Noise at half the threshold, starting after the board booted: the board
    # measures it and smooths its readings (docs/hardware.md, "Noise").
    v = vdev("tortuga")
    play_and_check(v, "tortuga", 2, seed=3, noise=3000, bounce=True)


def test_mahe_with_physical_dice_from_a_script(vdev):
    # Dice thrown on the table: the players tell the device each value with
    # NEXT/OK (a `chance` prompt). The device records the script's own game.
    from turtles import new_game
    from turtles.bots import play_random
    from turtles.rng import Rng

    v = vdev("mahe", fields=5)
    v.open_world()
    m = v.mirror()
    m.link.command("new", {"game": "mahe", "players": 2, "options": {}, "dice": "physical"},
                   timeout=5)
    m.wait_synced(10)
    game = new_game("mahe", 2, {}, v.board.geometry)
    play_random(game, Rng(9))
    script = actions_of(game)
    hands = v.hands(m, seed=1, script=list(script))
    hands.play(max_actions=40)
    log = v.device_log(actions=40)
    assert len(log) >= 40
    assert log == script[: len(log)]
    assert m.replica.mismatches == 0


def test_race_at_a_persons_pace_counts_the_whole_move(vdev):
    from turtleboard.sim.hands import REAL

    v = vdev("race")
    v.open_world()
    m = v.mirror()
    v.new_game(m, "race", 3)
    # A position where red+ is the only move that shows red on the next cell.
    before = ["stack blue", "stack green", "stack purple", "stack red", "stack yellow",
              "*+yellow", "blue++", "yellow++", "green++", "*-green", "*-green", "*+yellow",
              "purple-", "red+", "blue+", "blue+", "^purple", "*+green", "*+purple", "red+",
              "blue-", "*+green"]
    hands = v.hands(m, seed=1, script=before + ["red++"])
    hands.play(max_actions=len(before))
    assert v.device_log(actions=len(before)) == before
    hands.timing = REAL  # red rests on the next cell on its way
    hands.play(max_actions=1)
    assert v.device_log(actions=len(before) + 1) == before + ["red++"]


def test_a_slow_link_never_makes_the_hands_press_twice(vdev):
    # A machine under load: what the board sends reaches the host seconds
    # late, at moments the hands do not know (the virtual device's process
    # that carries the serial bytes is stopped now and then). The hands wait
    # for the board's own state, so no press is lost or counted twice and
    # the game is the one they played (late frames used to make them press
    # again: "the hands made stop but the board recorded roll").
    import os
    import signal
    import threading
    import time

    v = vdev("mahe", fields=5)
    v.open_world()
    m = v.mirror()
    v.new_game(m, "mahe", 2)
    stop = threading.Event()
    stalls = [0]

    def stall():
        while not stop.wait(0.5):
            os.kill(v.bg.proc.pid, signal.SIGSTOP)
            try:
                time.sleep(3.5)  # longer than a person waits before pressing again
            finally:
                os.kill(v.bg.proc.pid, signal.SIGCONT)
            stalls[0] += 1

    t = threading.Thread(target=stall, daemon=True)
    t.start()
    hands = v.hands(m, seed=1)
    by: list[tuple[str, str]] = []
    hands.on_event = lambda ev: by.append((ev[1].payload["text"], ev[1].payload["by"])) if (
        ev[0] == "frame" and ev[1].kind == "action") else None
    try:
        hands.play(max_actions=30)
    finally:
        stop.set()
        t.join(5)
    assert stalls[0] >= 3
    hands.play(max_actions=1)  # and the board goes on
    log = v.device_log(actions=len(m.replica.game.history))
    assert hands.done == log
    # Each decision and move the hands made is one action of the board, and
    # the board recorded no other (only its own dice besides).
    assert [t for t, b in by if b != "dice"] == [t for t in hands.made if t != "cancel"]
    assert hands.boots == 0
    # Mahé's board asks every decision: the hands answer its question and
    # never move a turtle for one (a stop made on the board before it had read
    # the last turtles put right was taken as another decision).
    assert all(b != "sensors" for _, b in by), by
