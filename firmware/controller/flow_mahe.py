# Mahé on the board. Decisions (roll or stop, which turtle first with 2 or 3
# players, an egg card played as a die) are `decide` prompts; dice and egg
# cards are chance outcomes the device draws itself with electronic dice.
# After `stop` (or a bust) the engine moves the turtles: the controller
# lights where they go and waits for the board to show it.

FORCED = ()
DEVICE_ROLLS = True


def colour_of(game, action):
    return None
