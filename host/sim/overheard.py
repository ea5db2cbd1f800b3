"""What the virtual board says on its serial port, overheard by the table
view (`turtleboard sim --interactive`): the device's frames as they leave
the firmware, whoever listens on the pty, kept in a replica of its game.

The pieces carry names the sensors cannot see (Mahé's 1a, the Race's
colours). With the game at hand the view lifts the turtle the board means
where turtles stand side by side (the Mahé raft), so its marks stay those
of the game. The replica asks nothing: it follows the frames a host's own
sync or new game brings (`state`, `log`, `synced`) and every `action` and
`undone` after; until a host has synced, or after a frame it could not
follow, it has no game and the view goes by the pieces alone.

    heard = Overheard(board.geometry)
    supervisor.overhear = heard.feed    # bytes from the firmware, any thread
    heard.snapshot()                    # the game's snapshot, or None
"""

from __future__ import annotations

import threading

from controller import frames
from turtleboard.connection.link import Frame
from turtleboard.connection.replica import Replica
from turtleboard.connection.schema import problem


class Overheard:
    def __init__(self, geometry=None):
        self.reader = frames.LineReader()
        self.replica = Replica(geometry)
        self.lock = threading.Lock()

    def feed(self, data: bytes) -> None:
        """Bytes the firmware wrote to its serial port."""
        for line in self.reader.feed(data):
            if not line or not frames.is_frame(line):
                continue  # an overlong line, REPL output
            try:
                seq, kind, payload = frames.decode(line)
            except frames.FrameError:
                continue
            if problem(kind, payload) is None:
                with self.lock:
                    self.replica.handle(Frame(seq, kind, payload))

    def snapshot(self) -> dict | None:
        """The snapshot of the board's game as last heard (None: not known)."""
        with self.lock:
            rep = self.replica
            return rep.game.snapshot() if rep.game is not None and rep.in_sync else None
