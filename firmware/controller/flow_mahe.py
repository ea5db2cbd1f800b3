# Mahé on the board. Decisions (roll or stop, which turtle first with 2 or 3
# players, an egg card played as a die) are `decide` prompts; dice and egg
# cards are chance outcomes the device draws itself with electronic dice.
# The board may also show `stop` itself: the turtle put on its target.
# After `stop` (or a bust) the engine moves the turtles: the controller
# lights where they go and waits for the board to show it.

CHANCE_TEXT = "which value came up (a die, an egg card)?"
FORCED = ()
DECIDE_ALL = True
SETTLE_MS = 0
DEVICE_ROLLS = True


def colour_of(game, action):
    return None
