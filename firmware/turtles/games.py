# The games by name: each game's class, imported when first asked for.

from .errors import BadSetup

GAME_NAMES = ("mahe", "race", "tortuga")


_classes = {}  # each game's class once imported


def game_class(name):
    # Imported on demand, so the device loads only the game it plays; then
    # kept (an import statement costs more than a new game's set-up).
    cls = _classes.get(name)
    if cls is not None:
        return cls
    if name == "mahe":
        from .mahe import Mahe as cls
    elif name == "race":
        from .race import Race as cls
    elif name == "tortuga":
        from .tortuga import Tortuga as cls
    else:
        raise BadSetup("unknown game %r; the games are: %s" % (name, ", ".join(GAME_NAMES)))
    _classes[name] = cls
    return cls


def new_game(name, players, options=None, geometry=None):
    return game_class(name)(players, options, geometry)
