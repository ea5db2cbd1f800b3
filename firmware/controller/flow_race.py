# The Turtle Race on the board: players hold real cards (mode=physical),
# unless the host asks for mode=dealt: the board then deals the colours and
# the cards itself (electronic draws) and the host shows each player their
# own hand (the web page); a card is played by the host's `enter`.
# The start stack's order, a dead hand's cards and the colours revealed at
# the end are facts of the table, never drawn by the device: they are
# entered (a `chance` prompt or the host). Which card moved a turtle is a
# `move` prompt when several fit; the preview shows the turtle's colour.

from .scenes import PLAYERS

CHANCE_TEXT = "what is on the table (the start stack bottom first, a card shown, a player's colour)?"
FORCED = (("mode", "physical"),)
ALSO = (("mode", "dealt"),)  # a forced option's other value the host may ask for
DECIDE_ALL = False
SETTLE_MS = 500  # a turtle counted along the track rests on each cell on its way
DEVICE_ROLLS = False
PLAYS = 100  # race.py: actions below this are plays, kind * 5 + turtle


def colour_of(game, action):
    if isinstance(action, int) and action < PLAYS:
        return PLAYERS[action % 5]  # red, yellow, green, blue, purple
    return None
