"""Bot matches: seeded games between bot levels with the seats rotated, and
each bot's win share with a 95% confidence interval (Wilson score interval).
Used by `turtleboard match` and bench/bots.py."""

from __future__ import annotations

import math
import time

from turtles import new_game
from turtles.bots import LEVELS, random_action, think_through, thinker
from turtles.rng import Rng

# Tattoo Turtles and Hatching Day are Tortuga's variants.
RULES = {
    "mahe": ("mahe", {}),
    "race": ("race", {}),
    "tortuga": ("tortuga", {}),
    "tattoo": ("tortuga", {"tattoo": 2}),
    "hatching": ("tortuga", {"hatching": 1}),
}
# Random plies played first in the games without chance, so that two
# deterministic bots do not play the same game every time.
OPENING = {"tortuga": 2, "tattoo": 2, "hatching": 2}


def seat_bots(bots: list[str], players: int, game_no: int) -> list[int]:
    """Which entry of `bots` plays each seat in game `game_no`: the list is
    filled up with its last entry, then turned one seat per game."""
    entries = [min(i, len(bots) - 1) for i in range(players)]
    k = game_no % players
    return entries[k:] + entries[:k]


def wilson(share: float, n: int, z: float = 1.96) -> tuple[float, float]:
    if n == 0:
        return 0.0, 1.0
    d = 1 + z * z / n
    centre = (share + z * z / (2 * n)) / d
    half = z * math.sqrt(share * (1 - share) / n + z * z / (4 * n * n)) / d
    return max(0.0, centre - half), min(1.0, centre + half)


class Match:
    def __init__(self, game: str, bots: list[str], players: int, seed: int,
                 options: dict | None = None, opening: int | None = None):
        if game not in RULES:
            raise ValueError("no game %r; the games are: %s" % (game, ", ".join(RULES)))
        for b in bots:
            if b not in LEVELS:
                raise ValueError("no bot level %r; the levels are: %s" % (b, ", ".join(LEVELS)))
        if len(bots) > players:
            raise ValueError("%d bots for %d seats: give at most one bot a seat" % (len(bots), players))
        self.rules, base = RULES[game]
        self.options = dict(base, **(options or {}))
        self.game = game
        self.bots = bots
        self.players = players
        self.seed = seed
        self.opening = OPENING.get(game, 0) if opening is None else opening
        self.games = 0
        self.wins = [0.0] * len(bots)      # games won, ties shared
        self.seats = [0] * len(bots)       # seats played
        self.think = {b: [0.0, 0, 0.0, 0] for b in bots}  # seconds, moves, slowest, nodes

    def play_one(self) -> list[int]:
        """Plays the next game; returns its winners' seats."""
        n = self.games
        seats = seat_bots(self.bots, self.players, n)
        g = new_game(self.rules, self.players, self.options)
        chance = Rng(self.seed * 7919 + n * 2 + 1)
        minds = [Rng(self.seed * 104729 + n * 16 + s + 3) for s in range(self.players)]
        plies = 0
        while not g.is_over():
            who = g.to_move()
            if who < 0:
                g.push(random_action(g, chance))
                continue
            if plies < self.opening:
                g.push(random_action(g, chance))
                plies += 1
                continue
            level = self.bots[seats[who]]
            t0 = time.process_time()  # CPU time: a busy machine counts less
            t = think_through(thinker(g, level, minds[who]))
            dt = time.process_time() - t0
            rec = self.think[level]
            rec[0] += dt
            rec[1] += 1
            rec[2] = max(rec[2], dt)
            rec[3] += t.nodes
            g.push(t.action)
            plies += 1
        winners = g.result()["winners"]
        for s in range(self.players):
            self.seats[seats[s]] += 1
        for w in winners:
            self.wins[seats[w]] += 1.0 / len(winners)
        self.games += 1
        return winners

    def table(self) -> list[dict]:
        """Each bot entry: seats, fair share, win share and its 95% interval."""
        out = []
        for i, b in enumerate(self.bots):
            share = self.wins[i] / self.games if self.games else 0.0
            low, high = wilson(share, self.games)
            per_game = self.seats[i] / self.games if self.games else 0
            out.append({
                "bot": b, "seats_per_game": round(per_game, 3),
                "fair_share": round(per_game / self.players, 4),
                "wins": round(self.wins[i], 2), "games": self.games,
                "share": round(share, 4), "ci95": [round(low, 4), round(high, 4)],
            })
        return out

    def timing(self) -> dict:
        out = {}
        for b, (secs, moves, slowest, nodes) in sorted(self.think.items()):
            if moves:
                out[b] = {"moves": moves, "mean_ms": round(1000 * secs / moves, 2),
                          "max_ms": round(1000 * slowest, 1),
                          "mean_nodes": round(nodes / moves, 1)}
        return out
