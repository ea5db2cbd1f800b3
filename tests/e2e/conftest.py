"""Virtual devices for the end-to-end tests: the real firmware under the
MicroPython unix port on a real pty, driven through the sim world."""

from __future__ import annotations

import os
import sys
import time

import pytest

sys.path.insert(0, os.path.dirname(__file__))

from turtleboard.connection.link import Link  # noqa: E402
from turtleboard.connection.replica import Mirror  # noqa: E402
from turtleboard.paths import BOARDS  # noqa: E402
from turtleboard.sim import device  # noqa: E402
from turtleboard.sim.hands import FAST, Hands  # noqa: E402
from turtleboard.sim.world import World  # noqa: E402

from small_boards import write_board  # noqa: E402


class VDev:
    """One virtual device in a test: the `turtleboard sim` process, its world, mirrors."""

    def __init__(self, sim_dir: str, board_path: str, extra: list[str] | None = None):
        self.dir = sim_dir
        self.board_path = board_path
        self.extra = extra or []
        self.board = device.prepare(self.dir, board_path, blank="--blank" in self.extra)
        self.bg = device.Background(self.dir, board_path, self.extra)
        self.world: World | None = None
        self.mirrors: list[Mirror] = []

    @property
    def path(self) -> str:
        return self.bg.path

    def open_world(self, **kw) -> World:
        self.world = World(self.board, os.path.join(self.dir, "world"), **kw)
        return self.world

    def mirror(self) -> Mirror:
        m = Mirror(self.path, geometry=self.board.geometry)
        m.start(10)
        self.mirrors.append(m)
        return m

    def new_game(self, mirror: Mirror, game: str, players: int) -> None:
        mirror.link.command("new", {"game": game, "players": players, "options": {},
                                    "dice": "electronic"}, timeout=5)
        mirror.wait_synced(10)

    def hands(self, mirror: Mirror, seed: int = 1, **kw) -> Hands:
        return Hands(self.world, mirror, seed=seed, timing=FAST, **kw)

    def device_log(self, actions: int | None = None, timeout: float = 30.0) -> list[str]:
        """The action texts in the device's power-safe game log (its flash).
        With `actions`: once it holds that many, or as it is at the deadline."""
        deadline = time.monotonic() + timeout
        while True:
            saved = device.game_log(self.dir).load()
            texts = list(saved[1]) if saved else []
            if actions is None or len(texts) >= actions or time.monotonic() > deadline:
                return texts
            time.sleep(0.05)

    def hello(self, want, timeout: float = 30.0) -> dict:
        """The board's hello to a host that acknowledges nothing (the
        console before `ack`), once `want(hello)` holds (the firmware may
        boot again first), or as it is at the deadline."""
        deadline = time.monotonic() + timeout
        while True:
            link = Link(self.path)
            try:
                hello = link.reopen(give_up_after=10)
            finally:
                link.close()
            if want(hello) or time.monotonic() > deadline:
                return hello
            time.sleep(0.1)

    def power_cut(self, want, timeout: float = 30.0) -> dict:
        """Cut the firmware's power; the hello of the board that boots again
        (a Turtleboard's, or LinkError), once `want(hello)` holds."""
        pid = self.bg.firmware_pid()
        self.bg.kill_firmware()
        return self.hello(lambda h: want(h) and self.bg.firmware_pid() not in (None, pid), timeout)

    def close(self) -> None:
        for m in self.mirrors:
            try:
                m.close()
            except Exception:
                pass
        if self.world is not None:
            self.world.close()
        self.bg.stop()


@pytest.fixture
def vdev(tmp_path):
    """A factory of virtual devices; every one is stopped after the test."""
    made: list[VDev] = []

    def make(game: str = "mahe", board: str | None = None, extra=None, **board_kw) -> VDev:
        if board is None:
            if board_kw or game == "mahe":
                board = write_board(tmp_path / ("%s.json" % game), game=game, **board_kw)
            else:
                board = str(BOARDS / ("%s.json" % game))
        v = VDev(str(tmp_path / ("vd%d" % len(made))), board, extra)
        made.append(v)
        return v

    yield make
    for v in made:
        v.close()
