# Flat Monte Carlo for games with hidden parts and chance (the Turtle Race):
# each playout first samples what the bot cannot see (`sample`, from its own
# knowledge only), then plays one root action and random play to the end.
# The root action that won most often is chosen. The budget counts the
# work done: each action played, and each world sampled as WORLD actions
# (near the end of a race a playout is a few actions, and sampling its
# world costs more than playing it). A playout is played on a world of its
# own, so a step() does a slice of at most SLICE_NODES of that work (or one
# world, when it is more) and the next goes on from there (a device senses
# between slices).

from .game import TERMINAL
from .slices import SLICE_NODES

# What sampling a world costs, in actions played: 21 under MicroPython (the
# device), 37 under CPython (bench/bots.py worlds).
WORLD = 20


class MonteCarlo:
    def __init__(self, game, rng, budget, sample):
        self.game = game
        self.rng = rng
        self.budget = budget
        self.sample = sample
        self.me = game.to_move()
        self.actions = list(game.legal_actions())
        self.wins = [0] * len(self.actions)
        self.tries = [0] * len(self.actions)
        self.nodes = 0
        self.i = 0
        self.world = None  # the playout under way
        self.slice_nodes = SLICE_NODES
        self.action = None

    def step(self):
        if self.action is not None:
            return True
        n = len(self.actions)
        if n == 1:
            self.action = self.actions[0]
            return True
        rng = self.rng
        left = self.slice_nodes
        while left > 0:
            world = self.world
            if world is None:
                if self.nodes >= self.budget and self.i == 0:
                    return self._finish()
                world = self.world = self.sample(self.game, self.me, rng)
                world.try_action(self.actions[self.i])
                self.nodes += WORLD + 1
                left -= WORLD + 1
            if left > 0:
                played = world.random_play(rng, left)
                self.nodes += played
                left -= played
            if world.to_move() != TERMINAL:
                return False
            winners = world.result()["winners"]
            if self.me in winners:
                self.wins[self.i] += 60 // len(winners)
            self.tries[self.i] += 1
            self.i = (self.i + 1) % n
            self.world = None
        return False

    def _finish(self):
        top = max(self.wins)
        best = [self.actions[k] for k in range(len(self.actions)) if self.wins[k] == top]
        self.action = best[0] if len(best) == 1 else self.rng.choice(best)
        return True
