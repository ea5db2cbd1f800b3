"""Fuzz: whatever lines a board sends, the host's parser, link and replica
never raise; they report damage and resync. A seeded sample runs here; set
TB_FUZZ_LINES (e.g. 1000000) for a long run (bench/fuzz.py does)."""

from __future__ import annotations

import json
import os
import random

from controller import frames
from turtleboard.connection.link import Frame, Link
from turtleboard.connection.replica import Mirror, Replica, hash_text
from turtles import new_game

LINES = int(os.environ.get("TB_FUZZ_LINES", "20000"))
KINDS = ["hello", "action", "undone", "state", "log", "synced", "error", "ok", "leds",
         "status", "prompt", "closed", "sense", "zz"]
KEYS = ["n", "text", "hash", "re", "game", "players", "options", "from", "actions", "c",
        "id", "code", "msg", "proto", "fw", "by", "choice", "geometry"]


def real_frames(seed):
    # What a board says over a short game: its sync, then its actions.
    r = random.Random(seed)
    name = r.choice(["mahe", "race", "tortuga"])
    g = new_game(name, 2)
    out = [("state", {"game": name, "players": g.players, "options": g.options, "n": 0,
                      "hash": hash_text(g.state_hash())}),
           ("log", {"from": 0, "actions": []}),
           ("synced", {"n": 0, "hash": hash_text(g.state_hash())})]
    for _ in range(r.randrange(12)):
        if g.is_over():
            break
        a = r.choice(g.legal_actions())
        text = g.action_text(a)
        g.push(a)
        out.append(("action", {"n": len(g.history), "text": text,
                               "hash": hash_text(g.state_hash()), "by": "sensors"}))
    if g.history and r.random() < 0.3:
        g.undo()
        out.append(("undone", {"n": len(g.history), "hash": hash_text(g.state_hash())}))
    return out


def value(r, depth=0):
    k = r.randrange(12 if depth < 3 else 7)
    if k == 0:
        return None
    if k == 1:
        return r.choice([True, False])
    if k == 2:
        return r.choice([0, 1, -1, 2**31, 10**40, r.randrange(-5, 100)])
    if k == 3:
        return r.choice(["", "d3", "roll", "\u00e9\U0001f422", "x" * 300, "mahe", "0badf00d"])
    if k == 4:
        return 1.5
    if k in (5, 6):
        return r.choice(KINDS + KEYS)
    if k in (7, 8):
        return [value(r, depth + 1) for _ in range(r.randrange(4))]
    return {r.choice(KEYS): value(r, depth + 1) for _ in range(r.randrange(4))}


def mutate(r, kind, payload):
    payload = dict(payload)
    for _ in range(r.randrange(1, 3)):
        op = r.randrange(4)
        if op == 0 and payload:
            payload[r.choice(sorted(payload))] = value(r)
        elif op == 1 and payload:
            del payload[r.choice(sorted(payload))]
        elif op == 2:
            payload[r.choice(KEYS)] = value(r)
        else:
            kind = r.choice(KINDS)
    return kind, payload


def line_for(r, kind, payload):
    # Mostly well-sealed frames (the parser's checks pass, the replica sees
    # them), some damaged or odd lines.
    k = r.randrange(20)
    if k == 0:
        depth = r.choice([10, 600, 2000, 60000])
        body = "~TB 1 %s %s" % (kind, '{"a":' + "[" * depth + "]" * depth + "}")
        return "%s *%04x" % (body, frames.crc16(body.encode()))
    if k == 1:
        return "".join(chr(r.randrange(1, 0x3000)) for _ in range(r.randrange(60)))
    seq = r.randrange(65536) if k > 5 else r.choice(["9" * r.randrange(6, 900), "-3", "x", 65535])
    text = json.dumps(payload, sort_keys=True) if k != 2 else json.dumps([payload])
    body = "~TB %s %s %s" % (seq, kind, text)
    line = "%s *%04x" % (body, frames.crc16(body.encode()))
    if k == 3 and line:
        i = r.randrange(len(line))
        line = line[:i] + chr(r.randrange(32, 127)) + line[i + 1:]
    return line


def test_fuzzed_lines_never_crash_the_host_link_or_replica():
    import types

    from turtleboard.mirror.app import MirrorApp

    r = random.Random(14)
    mirror = Mirror("/nonexistent/turtleboard-fuzz")
    link = mirror.link
    # what `play` draws its side panel from: the mirror, the seat, the screen's size class
    screen = types.SimpleNamespace(mirror=mirror, player=None,
                                   screen=types.SimpleNamespace(has_class=lambda name: False))
    sent = 0
    crashes = []
    while sent < LINES:
        script = real_frames(r.randrange(10**6))
        for kind, payload in script:
            if r.random() < 0.5:
                kind, payload = mutate(r, kind, payload)
            line = line_for(r, kind, payload)
            data = line.encode("utf-8", "surrogatepass")[:frames.MAX_LINE + 50] + b"\n"
            try:
                events = link._decode_lines(link.reader.feed(data))
                out: list = []
                mirror._apply(events, out)
                if mirror.replica.needs_sync:
                    mirror.replica.sync_sent()
                if sent % 10 == 0:
                    MirrorApp.side_text(screen)
            except Exception as e:  # noqa: BLE001 - what the fuzz is looking for
                crashes.append((line[:200], repr(e)))
            sent += 1
    assert not crashes, "%d crashes of %d lines, e.g. %s" % (len(crashes), sent, crashes[:3])
    assert link.frames_in > sent // 2  # most lines were frames the replica saw
    assert mirror.replica.resyncs > LINES // 100  # and it got back in step again and again


def test_a_replica_without_a_game_survives_actions_and_takebacks():
    rep = Replica()
    for f in (Frame(1, "action", {"n": 1, "text": "d3", "hash": "0"}),
              Frame(2, "undone", {"n": 0, "hash": "0"}),
              Frame(3, "action", {"n": [1], "text": {"a": 1}})):
        rep.in_sync = True  # synced to a board with no game
        notes = rep.handle(f)
        assert notes and "out of step" in notes[0]
        assert not rep.in_sync and rep.needs_sync


def test_error_frames_with_odd_re_fields_are_refused_where_they_are_read():
    from turtleboard.connection.link import Damaged

    link = Link("/nonexistent/turtleboard-fuzz")
    link.pending_new.add(5)
    lines = [frames.encode(1, "error", {"code": "x", "msg": "m", "re": [5]}),
             frames.encode(2, "error", {"code": "x", "msg": "m", "re": {"a": 1}}),
             frames.encode(3, "error", {"code": "x", "msg": "m", "re": 5})]
    events = link._decode_lines(lines)
    assert [type(e).__name__ for e in events] == ["Damaged", "Damaged", "Frame"]
    assert "re [5], not a whole number" in events[0].why
    assert isinstance(events[1], Damaged) and link.unusable == 2
    assert link.pending_new == set()


def test_sync_with_fields_of_the_wrong_type_is_refused_not_raised():
    g = new_game("mahe", 2)
    for state in ({"game": ["mahe"], "players": 2}, {"game": "mahe", "players": "2"},
                  {"game": "mahe", "players": 2, "options": [1]}, {"game": {"a": 1}}):
        rep = Replica()
        rep.sync_sent()
        notes = []
        for f in (Frame(1, "state", state), Frame(2, "log", {"from": 0, "actions": []}),
                  Frame(3, "synced", {"n": 0, "hash": hash_text(g.state_hash())})):
            notes += rep.handle(f)
        assert not rep.in_sync and notes, (state, notes)


def test_a_flood_while_nobody_reads_keeps_a_bounded_backlog():
    import threading

    import pytest

    from turtleboard.connection.link import BACKLOG_MAX, LinkTimeout

    master, slave = os.openpty()
    link = Link(os.ttyname(slave), exclusive=False)
    link.connect()
    stop = threading.Event()

    def flood():
        seq = 0
        while not stop.is_set():
            lines = []
            for _ in range(50):
                seq = (seq + 1) & 0xFFFF
                lines.append(frames.encode(seq, "status", {"text": "x"}) + "\n")
            try:
                os.write(master, "".join(lines).encode())
            except OSError:
                return

    t = threading.Thread(target=flood, daemon=True)
    t.start()
    try:
        with pytest.raises(LinkTimeout):
            link.wait_for("ok", timeout=2.0)
        assert 0 < len(link.backlog) <= BACKLOG_MAX
        assert link.gaps > 0  # what was dropped counts as a gap: the mirror resyncs
    finally:
        stop.set()
        link.close()
        os.close(master)
        os.close(slave)
        t.join(2)


def test_the_play_pump_shows_an_unexpected_error_and_goes_on():
    import threading
    import types

    from turtleboard.mirror.app import MirrorApp

    shown = []
    calls = [0]
    stopping = threading.Event()

    def poll(timeout):
        calls[0] += 1
        if calls[0] == 1:
            raise TypeError("unhashable type: 'list'")
        stopping.set()
        return [("note", "still here")]

    mirror = types.SimpleNamespace(poll=poll, replica=Replica())
    app = types.SimpleNamespace(stopping=stopping, mirror=mirror,
                                call_from_thread=lambda fn, events: shown.extend(events),
                                on_events=None)
    app.poll_once = lambda: MirrorApp.poll_once(app)
    MirrorApp.pump(app)
    assert calls[0] == 2  # the thread went on after the error
    assert any(kind == "note" and "TypeError" in text for kind, text in shown), shown


def test_the_mirror_keeps_only_prompts_it_can_show():
    mirror = Mirror("/nonexistent/turtleboard-fuzz")
    out: list = []
    mirror._apply([Frame(1, "prompt", {"id": 1, "choices": 7, "text": "x"})], out)
    assert mirror.prompt is None
    mirror._apply([Frame(2, "prompt", {"id": 2, "choices": ["a", "b"], "text": "x"})], out)
    assert mirror.prompt["id"] == 2
