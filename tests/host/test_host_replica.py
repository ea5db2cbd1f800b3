"""The replica against frames made by the real engine (as the board makes them)."""

from __future__ import annotations

import random

from turtleboard.connection.link import Frame
from turtleboard.connection.replica import Replica, hash_text
from turtles import new_game


def board_game(name="mahe", players=3, n=30, seed=4):
    g = new_game(name, players)
    r = random.Random(seed)
    for _ in range(n):
        if g.is_over():
            break
        g.push(r.choice(g.legal_actions()))
    return g


def sync_frames(g):
    texts = [g.action_text(a) for a in g.history]
    h = hash_text(g.state_hash())
    return [
        Frame(1, "state", {"game": g.name, "players": g.players, "options": g.options,
                           "n": len(texts), "hash": h, "over": g.is_over(), "result": None}),
        Frame(2, "log", {"from": 0, "actions": texts[:10]}),
        Frame(3, "log", {"from": 10, "actions": texts[10:]}),
        Frame(4, "synced", {"n": len(texts), "hash": h}),
    ]


def feed(rep, frames):
    notes = []
    for f in frames:
        notes += rep.handle(f)
    return notes


def action_frame(g, a):
    text = g.action_text(a)
    g.push(a)
    return Frame(9, "action", {"n": len(g.history), "text": text, "hash": hash_text(g.state_hash()), "by": "sensors"})


def test_sync_rebuilds_the_game_and_actions_follow():
    g = board_game()
    rep = Replica()
    rep.sync_sent()
    notes = feed(rep, sync_frames(g))
    assert rep.in_sync and not rep.needs_sync and notes == [f"synced: mahe, 30 actions, hash {rep.hash()}"]
    assert rep.game.state_key() == g.state_key()
    r = random.Random(9)
    for _ in range(20):
        if g.is_over():
            break
        assert rep.handle(action_frame(g, r.choice(g.legal_actions()))) == []
        assert rep.hash() == hash_text(g.state_hash())
    g.undo()
    assert rep.handle(Frame(10, "undone", {"n": len(g.history), "hash": hash_text(g.state_hash())})) == []
    assert rep.in_sync and rep.game.state_key() == g.state_key()


def test_a_different_hash_asks_for_a_resync_and_says_so():
    g = board_game()
    rep = Replica()
    rep.sync_sent()
    feed(rep, sync_frames(g))
    f = action_frame(g, g.legal_actions()[0])
    bad = Frame(f.seq, f.kind, dict(f.payload, hash="00000000"))
    notes = rep.handle(bad)
    assert not rep.in_sync and rep.needs_sync
    assert "state hash is 00000000" in notes[0] and "resyncing" in notes[0]
    rep.sync_sent()
    notes = feed(rep, sync_frames(g))
    assert rep.in_sync and notes[0].startswith("resynced: mahe, 31 actions")


def test_a_gap_or_an_action_that_does_not_apply_asks_for_a_resync():
    g = board_game()
    rep = Replica()
    rep.sync_sent()
    feed(rep, sync_frames(g))
    notes = rep.handle(Frame(5, "action", {"n": 40, "text": "roll", "hash": "12345678"}))
    assert rep.needs_sync and "action 40 but the mirror is at 30" in notes[0]
    rep.sync_sent()
    feed(rep, sync_frames(g))
    notes = rep.handle(Frame(5, "action", {"n": 31, "text": "fly to the moon", "hash": "12345678"}))
    assert rep.needs_sync and "does not apply here" in notes[0]
    assert len(rep.game.history) == 30  # the replica's game is untouched


def test_a_reboot_hello_that_matches_keeps_the_game_a_different_one_resyncs():
    g = board_game()
    rep = Replica()
    rep.sync_sent()
    feed(rep, sync_frames(g))
    same = Frame(1, "hello", {"game": "mahe", "n": 30, "hash": rep.hash(), "proto": 1})
    assert rep.handle(same) == ["the board said hello again (a restart?); checking with a sync"]
    assert rep.in_sync and rep.needs_sync
    other = Frame(1, "hello", {"game": "mahe", "n": 12, "hash": "abcdef01", "proto": 1})
    notes = rep.handle(other)
    assert rep.needs_sync and "action 12" in notes[0]


def test_an_answer_to_a_sync_that_lost_its_state_line_is_asked_again_at_once():
    # The `state` that starts a sync's answer was lost on the way (its line
    # cut): the logs and `synced` that follow end the answer, and the mirror
    # asks again then rather than waiting SYNC_WAIT for an answer that came.
    g = board_game()
    rep = Replica()
    rep.sync_sent()
    notes = feed(rep, sync_frames(g)[1:])
    assert not rep.in_sync and not rep.awaiting and rep.needs_sync
    assert any("came without its start" in n for n in notes)
    rep.sync_sent()
    feed(rep, sync_frames(g))
    assert rep.in_sync and rep.game.state_hash() == g.state_hash()
    assert rep.handle(sync_frames(g)[3]) == []  # a second `synced` in step: nothing to do


def test_no_game_on_the_board():
    rep = Replica()
    rep.sync_sent()
    notes = feed(rep, [Frame(1, "state", {"game": None, "players": 0, "options": {}, "n": 0, "hash": None}),
                       Frame(2, "synced", {"n": 0, "hash": None})])
    assert rep.in_sync and rep.game is None and notes == ["no game on the board yet"]
    assert rep.handle(Frame(3, "hello", {"game": None, "n": 0, "hash": None})) == []


def _notes_until_resynced(mirror, after, seconds=60.0):
    # The mirror's notes until it says it resynced after a note saying
    # `after` (a late "resynced" of an earlier sync does not count), or
    # `seconds` pass: a wait on time, not on a number of polls, which
    # return early on events.
    import time

    notes: list = []
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        notes += [d for k, d in mirror.poll(0.05) if k == "note"]
        seen = [i for i, n in enumerate(notes) if after in n]
        if seen and any(n.startswith("resynced") for n in notes[seen[0]:]):
            break
    return notes


def test_mirror_resyncs_after_a_damaged_line_or_missing_frames():
    # link level: a scripted board on a real pty, frames made by the engine
    from peer import Peer

    from turtleboard.connection.link import PROTO
    from turtleboard.connection.replica import Mirror

    g = board_game(n=12)

    def state(seq, payload):
        return [peer.frame(f.kind, f.payload) for f in sync_frames(g)] + [peer.frame("ok", {"re": seq})]

    hello = {"fw": "0.1.0", "proto": PROTO, "board": "t", "board_version": 1, "game": "mahe",
             "n": 12, "hash": hash_text(g.state_hash())}
    peer = Peer(hello=hello, handlers={"sync": state})
    mirror = Mirror(peer.path)
    try:
        mirror.start(2)
        mirror.wait_synced(3)
        assert mirror.replica.in_sync and [k for k, _ in peer.received].count("sync") == 1
        peer.write(b"~TB 99 action {\"n\":13} *0000\r\n")  # damaged
        notes = _notes_until_resynced(mirror, "was damaged or unusable")
        assert "out of step with the board: a line from the board was damaged or unusable; resyncing" in notes
        assert [k for k, _ in peer.received].count("sync") >= 2  # (asked again when a loaded machine is slow)
        # the whole answer in (its `ok` is written after the "resynced"):
        # a frame of ours sent before it would be a second gap, or a lost one
        mirror.wait_synced(30, answered=True)
        peer.seq += 5  # five frames lost on the way
        peer.write(peer.frame("status", {"text": "x"}))
        notes = _notes_until_resynced(mirror, "frames from the board went missing")
        assert any("frames from the board went missing" in n for n in notes)
        mirror.wait_synced(30, answered=True)
        assert mirror.replica.in_sync and mirror.replica.game.state_hash() == g.state_hash()
    finally:
        mirror.close()
        peer.close()


def test_a_sync_the_board_lost_in_a_power_cut_is_asked_again_at_its_boot_hello():
    # The board took a sync and lost the power before answering; it boots
    # and says hello. The mirror asks again then, on its own clock (held
    # here short of SYNC_WAIT, after which it would give up on the answer
    # anyway), instead of waiting for an answer from a board that is gone.
    import time

    from peer import Peer

    from turtleboard.connection.link import PROTO
    from turtleboard.connection.replica import SYNC_EVERY, SYNC_WAIT, Mirror

    g = board_game(n=12)
    syncs = []

    def state(seq, payload):
        syncs.append(seq)
        if len(syncs) == 2:
            return []  # the power went before the answer
        return [peer.frame(f.kind, f.payload) for f in sync_frames(g)] + [peer.frame("ok", {"re": seq})]

    hello = {"fw": "0.1.0", "proto": PROTO, "board": "t", "board_version": 1, "game": "mahe",
             "n": 12, "hash": hash_text(g.state_hash())}
    peer = Peer(hello=hello, handlers={"sync": state})
    mirror = Mirror(peer.path)
    now = [100.0]
    mirror.clock = lambda: now[0]
    try:
        mirror.start(2)
        mirror.wait_synced(10, answered=True)
        now[0] += 1.0
        peer.seq += 3  # frames lost: the mirror asks for a sync, which the board loses
        peer.write(peer.frame("status", {"text": "x"}))
        end = time.monotonic() + 30
        while len(syncs) < 2 and time.monotonic() < end:
            mirror.poll(0.05)
        assert len(syncs) == 2 and mirror.replica.awaiting
        peer.write(peer.frame("hello", hello))  # its boot
        now[0] += SYNC_EVERY + 0.05  # past the spacing of two syncs, short of SYNC_WAIT
        assert SYNC_EVERY + 0.05 < SYNC_WAIT
        end = time.monotonic() + 30
        while not (len(syncs) >= 3 and mirror.replica.in_sync) and time.monotonic() < end:
            mirror.poll(0.05)
        assert len(syncs) >= 3, "the lost sync was waited for, not asked again at the board's boot"
        assert mirror.replica.in_sync and mirror.replica.game.state_hash() == g.state_hash()
    finally:
        mirror.close()
        peer.close()
