"""The board's "host" seats, played from the PC: on such a seat's turn the
host thinks on a copy of its replica of the game (at any level, `best`
included, which the board cannot afford) and enters the move; the board
then lights it for a person to make, as for any move entered by the host."""

from __future__ import annotations

from turtles.bots import LEVELS, choose
from turtles.rng import Rng


class HostSeats:
    def __init__(self, mirror, level: str = "best", seed: int = 1):
        if level not in LEVELS:
            raise ValueError("no bot level %r; the levels are: %s" % (level, ", ".join(LEVELS)))
        self.mirror = mirror
        self.level = level
        self.levels: dict[int, str] = {}  # a level per seat, over `level`
        self.rng = Rng(seed * 31 + 7)
        self.entered = None  # the turn (turn()) it last entered a move at

    def due(self):
        """(game, seat) when a host seat is to move now, else None."""
        m = self.mirror
        rep = m.replica
        game = rep.game
        seats = m.seats or []
        if game is None or not rep.in_sync or rep.awaiting or game.is_over():
            return None
        who = game.to_move()
        # once a move (a takeback brings the turn back, and so does a sync: a
        # board that lost power may never have read what was entered)
        if who < 0 or who >= len(seats) or seats[who] != "host" or self.turn(game) == self.entered:
            return None
        return game, who

    def turn(self, game) -> tuple:
        rep = self.mirror.replica
        return len(game.history), getattr(rep, "takebacks", 0), getattr(rep, "resyncs", 0)

    def move(self, game, who) -> str:
        """The move for seat `who`, entered on the board; returns its text."""
        action = choose(game.copy(), self.levels.get(who, self.level), self.rng)
        text = game.action_text(action)
        self.entered = self.turn(game)
        self.mirror.send("enter", {"text": text})
        return text

    def poll(self) -> str | None:
        found = self.due()
        return self.move(*found) if found else None
