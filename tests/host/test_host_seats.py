"""The PC plays the board's "host" seats: once per move, only on those seats,
only while its replica is in step with the board."""

from __future__ import annotations

import pytest

from turtleboard.mirror.hostseats import HostSeats
from turtles import new_game


class FakeReplica:
    def __init__(self, game):
        self.game = game
        self.in_sync = True
        self.awaiting = False


class FakeMirror:
    def __init__(self, game, seats):
        self.replica = FakeReplica(game)
        self.seats = seats
        self.sent = []

    def send(self, kind, payload=None):
        self.sent.append((kind, payload))
        return len(self.sent)


def test_a_host_seat_is_played_once_per_move():
    g = new_game("tortuga", 2)
    m = FakeMirror(g, ["host", "person"])
    host = HostSeats(m, "good")
    text = host.poll()
    assert m.sent == [("enter", {"text": text})]
    assert g.parse_action(text) in g.legal_actions()
    assert host.poll() is None  # entered already: wait for the board
    g.apply_text(text)
    assert host.poll() is None  # a person's seat
    assert len(m.sent) == 1


def test_a_host_seat_plays_again_after_its_move_is_taken_back_or_the_board_came_back():
    # (found by the simulated table, seed 106: UNDO on the board took back
    # the PC's move; the board said "the computer on the host is thinking"
    # and the PC never moved again, the turn's number being the one it had
    # entered at)
    from turtleboard.connection.link import Frame
    from turtleboard.connection.replica import Replica

    g = new_game("tortuga", 2)
    m = FakeMirror(None, ["host", "person"])
    rep = m.replica = Replica()
    for kind, p in (("state", {"game": "tortuga", "players": 2, "options": {}, "n": 0}),
                    ("synced", {"n": 0, "hash": "%08x" % g.state_hash()})):
        rep.handle(Frame(0, kind, p))
    host = HostSeats(m, "good")
    text = host.poll()
    before = "%08x" % g.state_hash()
    g.apply_text(text)
    rep.handle(Frame(0, "action", {"n": 1, "text": text, "hash": "%08x" % g.state_hash(), "by": "host"}))
    rep.handle(Frame(0, "undone", {"n": 0, "hash": before}))
    assert rep.n == 0 and rep.in_sync
    again = host.poll()
    assert again is not None and m.sent[-1] == ("enter", {"text": again}) and len(m.sent) == 2
    assert host.poll() is None  # once
    # (seed 1008: the power went as the move was entered; the board, back,
    # had never read it, and the PC waited for it for ever)
    for kind, p in (("state", {"game": "tortuga", "players": 2, "options": {}, "n": 0}),
                    ("synced", {"n": 0, "hash": before})):
        rep.handle(Frame(0, kind, p))
    assert rep.in_sync and host.poll() is not None and len(m.sent) == 3


def test_nothing_while_out_of_step_or_without_host_seats():
    g = new_game("tortuga", 2)
    m = FakeMirror(g, ["host", "person"])
    host = HostSeats(m)
    m.replica.in_sync = False
    assert host.poll() is None
    m.replica.in_sync = True
    m.seats = None
    assert host.poll() is None
    m.seats = ["good", "person"]  # the board plays that seat itself
    assert host.poll() is None and m.sent == []


def test_a_bad_level_is_refused():
    with pytest.raises(ValueError, match="no bot level 'genius'"):
        HostSeats(FakeMirror(None, None), "genius")
