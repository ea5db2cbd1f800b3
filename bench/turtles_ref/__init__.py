# The rules engine as it was before the speed work of issue 15 (firmware
# turtles/ at commit 44112bf), kept unchanged: the peer that bench/engine_*.py
# time ours against in the same process (no public Python implementation of
# these games exists to compare with). Not shipped, never imported by the
# product. Only the games' files are here; the PRNG is the product's.
# The Turtleboard rules engine: pure, deterministic, no I/O. The same files
# run under MicroPython on the device and under CPython on the host.

from .errors import BadNotation, BadSetup, GameError, IllegalAction  # noqa: F401
from .game import CHANCE, DOWN, EMPTY, TERMINAL, UP  # noqa: F401

GAME_NAMES = ("mahe", "race", "tortuga")


def game_class(name):
    # Imported on demand, so the device loads only the game it plays.
    if name == "mahe":
        from .mahe import Mahe

        return Mahe
    if name == "race":
        from .race import Race

        return Race
    if name == "tortuga":
        from .tortuga import Tortuga

        return Tortuga
    raise BadSetup("unknown game %r; the games are: %s" % (name, ", ".join(GAME_NAMES)))


def new_game(name, players, options=None, geometry=None):
    return game_class(name)(players, options, geometry)


def from_record(text, geometry=None):
    from .record import read_record

    return read_record(text, geometry)
