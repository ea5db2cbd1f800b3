# The Turtleboard rules engine: pure, deterministic, no I/O. The same files
# run under MicroPython on the device and under CPython on the host.

from .errors import BadNotation, BadSetup, GameError, IllegalAction  # noqa: F401
from .game import CHANCE, DOWN, EMPTY, TERMINAL, UP  # noqa: F401
from .games import GAME_NAMES, game_class, new_game  # noqa: F401


def from_record(text, geometry=None):
    from .record import read_record

    return read_record(text, geometry)
