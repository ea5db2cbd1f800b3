# Tortuga (and Tattoo Turtles, Hatching Day) on the board: hop by hop
# (hops=1), so a jump chain is recognised as it is made; the team a
# reactivated turtle joins is a `decide` prompt whose preview shows the
# team's colour; a placement turn ends with `done` (OK: a `hidden` prompt).

from .scenes import player_colour

CHANCE_TEXT = "what happened?"
FORCED = (("hops", 1),)
DECIDE_ALL = False
SETTLE_MS = 0  # hop by hop: each landing counts
DEVICE_ROLLS = False
TEAM = 2  # tortuga.py: (TEAM, player)


def colour_of(game, action):
    if isinstance(action, tuple) and action and action[0] == TEAM:
        return player_colour(action[1])
    return None
