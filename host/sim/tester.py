"""Scripted hands for `turtleboard board test` on a virtual board: they do
what the self-test asks in the board's sim world (a turtle on a cell, flipped,
taken off) and say which cell they see lit, as a person at the board would.
The pieces of the game are taken off first and put back at the end."""

from __future__ import annotations

import os
import time

from turtleboard.maker.selftest import NO_CELL, Person
from turtleboard.sim.world import World


class TesterHands(Person):
    patience_s = 5.0  # the hands are quick: a cell that does not answer by then never will

    def __init__(self, board, sim_dir: str, out=print):
        super().__init__(out=out)
        self.world = World(board, os.path.join(sim_dir, "world"))
        self.saved: dict | None = None

    def clear_board(self) -> None:
        self.saved = self.world.pieces()
        self.out("(the hands take every turtle off the board)")
        self.world.clear()

    def typed(self) -> str | None:
        return None

    def review(self) -> str:
        return ""

    def which_led(self, led: int, expected: str | None, name: str) -> str | None:
        end = time.monotonic() + 0.3  # the frame is out before the device says ok
        while True:
            lit = self.world.lit_leds()
            if lit or time.monotonic() > end:
                break
            time.sleep(0.02)
        cells = self.world.lit_cells()
        if len(cells) == 1:
            return cells[0]
        return NO_CELL if lit and not cells else None

    def put(self, cell: str) -> None:
        super().put(cell)
        self.world.take("tester")
        self.world.place(cell, up=True)

    def flip(self, cell: str) -> None:
        super().flip(cell)
        self.world.flip(cell)

    def lift(self, cell: str) -> None:
        super().lift(cell)
        if self.world.stacks[cell]:
            self.world.lift(cell)
            self.world.put_away()

    def press(self, button: str) -> None:
        super().press(button)
        self.world.press(button)

    def release(self, button: str) -> None:
        super().release(button)
        self.world.release(button)

    def done(self) -> None:
        if self.saved is not None:
            self.out("(the hands put the game's turtles back)")
            self.world.set_pieces(self.saved)
        self.world.close()
