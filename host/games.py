"""The games a person picks by name: the five of the box, on three rule sets.

Tattoo Turtles and Hatching Day are Tortuga's variants (options on its rule
set, on Tortuga's board). Every command that takes a game by name (`demo`,
`selfplay`, the mirror's new-game dialog) reads this one list.
"""

from __future__ import annotations

from typing import NamedTuple


class GameEntry(NamedTuple):
    key: str        # the name a person types
    rules: str      # the engine's rule set
    options: dict   # the options that make the variant
    title: str
    words: str      # one line on what the game is


GAMES = (
    GameEntry("mahe", "mahe", {}, "Mahé",
              "turtles ride round the island on each other's backs and lay eggs at the beach"),
    GameEntry("race", "race", {}, "The Turtle Race",
              "secret colours; cards move the turtles, stacks and all, to the lettuce"),
    GameEntry("tortuga", "tortuga", {}, "Tortuga",
              "two sides on a hexagon: jump the enemy's turtles to turn them, reach the far camp"),
    GameEntry("tattoo", "tortuga", {"tattoo": 4}, "Tattoo Turtles",
              "Tortuga with tattooed turtles whose powers wake when they are jumped"),
    GameEntry("hatching", "tortuga", {"hatching": 1}, "Hatching Day",
              "Tortuga on an empty board: the turtles hatch onto your camp as you play"),
)
KEYS = tuple(g.key for g in GAMES)
BY_KEY = {g.key: g for g in GAMES}

# A word on each option of a rule set: (rule set, option) -> what it does.
OPTION_WORDS = {
    ("mahe", "egg_dice"): "egg cards as dice: play a won egg card instead of die 2 or 3",
    ("race", "mode"): "dealt: the board deals the cards; physical: real cards in the players' hands",
    ("race", "open_colours"): "1: the young players' variant, colours chosen openly",
    ("race", "start"): "stacked: the start stack of the original; side_by_side: no start stack",
    ("tortuga", "hops"): "1: the board reads a jump chain hop by hop (the board always does)",
    ("tortuga", "tattoo"): "Tattoo Turtles: tattoo turtles each (Life, Exchange, Immortality, "
                           "Contamination)",
    ("tortuga", "hatching"): "1: Hatching Day",
    ("tortuga", "turn_limit"): "a draw after this many turns (0: no limit)",
}


def played(rules: str, options: dict | None) -> str:
    """Which of the five a game of `rules` with `options` is (a Tortuga
    game with tattoos is Tattoo Turtles, with hatching Hatching Day)."""
    options = options or {}
    best = rules
    most = -1
    for g in GAMES:
        if g.rules == rules and all(options.get(k) for k in g.options) and len(g.options) > most:
            best, most = g.key, len(g.options)
    return best


def entry(key: str) -> GameEntry:
    """The game of a name, or a UserError that lists the names."""
    from turtleboard.errors import UserError

    if key not in BY_KEY:
        raise UserError("there is no game %r; the games are: %s" % (key, ", ".join(KEYS)))
    return BY_KEY[key]


def rules_class(rules: str):
    from turtles import game_class

    return game_class(rules)


def players_text(cls) -> str:
    """'2 players' or '2 to 7 players' (never '2 to 2')."""
    if cls.min_players == cls.max_players:
        return "%d players" % cls.min_players
    return "%d to %d players" % (cls.min_players, cls.max_players)


def options_help(rules: str) -> str:
    """The options of a rule set in words, for --help and the new-game dialog."""
    cls = rules_class(rules)
    parts = []
    for name, default, allowed in cls.OPTIONS:
        parts.append("%s=%s (default %s): %s" % (
            name, "|".join(str(a) for a in allowed), default, OPTION_WORDS.get((rules, name), "")))
    return "; ".join(parts)


def games_help() -> str:
    return ", ".join("%s (%s)" % (g.key, g.title) for g in GAMES)
