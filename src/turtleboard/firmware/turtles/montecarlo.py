# Flat Monte Carlo for games with hidden parts and chance (the Turtle Race):
# each playout first samples what the bot cannot see (`sample`, from its own
# knowledge only), then plays one root action and random play to the end.
# The root action that won most often is chosen. The budget counts the
# actions played; one step() is one playout, so a device can sense between.

from .game import CHANCE, TERMINAL


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
        self.action = None

    def step(self):
        if self.action is not None:
            return True
        n = len(self.actions)
        if n == 1:
            self.action = self.actions[0]
            return True
        if self.nodes >= self.budget and self.i == 0:
            return self._finish()
        rng = self.rng
        world = self.sample(self.game, self.me, rng)
        world.try_action(self.actions[self.i])
        self.nodes += 1 + playout(world, rng)
        winners = world.result()["winners"]
        if self.me in winners:
            self.wins[self.i] += 60 // len(winners)
        self.tries[self.i] += 1
        self.i = (self.i + 1) % n
        return False

    def _finish(self):
        top = max(self.wins)
        best = [self.actions[k] for k in range(len(self.actions)) if self.wins[k] == top]
        self.action = best[0] if len(best) == 1 else self.rng.choice(best)
        return True


def playout(game, rng):
    # Random play to the end (the world is thrown away: nothing is
    # recorded); the number of actions played.
    n = 0
    while True:
        who = game.to_move()
        if who == TERMINAL:
            return n
        if who == CHANCE:
            game.try_action(rng.weighted(game.chance_outcomes()))
        else:
            game.try_action(rng.choice(game.legal_actions()))
        n += 1


class Rollouts:
    # Flat Monte Carlo for Mahé's best level with 4 or more players: each
    # step() samples a world as the bot may know it (`sample`), then plays
    # every root action in it followed by the same dice and egg cards (one
    # seed a world, so the actions are compared on equal luck), every player
    # playing the easy level, for `horizon` turns; the bot's score margin
    # (evaluate.mahe, its eggs ahead of the best other player) is summed. A
    # finished game counts its result: a win far above any margin.
    def __init__(self, game, rng, worlds, horizon, sample):
        self.game = game
        self.rng = rng
        self.worlds = worlds
        self.horizon = horizon
        self.sample = sample
        self.me = game.to_move()
        self.actions = list(game.legal_actions())
        self.totals = [0] * len(self.actions)
        self.nodes = 0
        self.done = 0
        self.action = None

    def step(self):
        if self.action is not None:
            return True
        if len(self.actions) == 1 or self.done >= self.worlds:
            top = max(self.totals)
            best = [self.actions[k] for k in range(len(self.actions)) if self.totals[k] == top]
            self.action = best[0] if len(best) == 1 else self.rng.choice(best)
            return True
        from .rng import Rng

        seed = self.rng.next16()
        for k in range(len(self.actions)):
            world = self.sample(self.game, self.me, Rng(seed + 1))
            world.try_action(self.actions[k])
            self.nodes += 1
            self.totals[k] += self._rollout(world, Rng(seed + 7))
        self.done += 1
        return False

    def _rollout(self, g, rng):
        from .evaluate import WIN, mahe
        from .expectimax import Expectimax

        me = self.me
        turns = 0
        last = g.player
        while turns < self.horizon:
            who = g.to_move()
            if who == TERMINAL:
                winners = g.result()["winners"]
                return WIN // len(winners) if me in winners else -WIN
            if who == CHANCE:
                g.try_action(rng.weighted(g.chance_outcomes()))
            else:
                e = Expectimax(g, rng, True)
                while not e.step():
                    pass
                self.nodes += e.nodes
                g.try_action(e.action)
            if g.player != last:
                last = g.player
                turns += 1
        values = mahe(g, me)
        other = -1000000
        for p in range(len(values)):
            if p != me and values[p] > other:
                other = values[p]
        return values[me] - other
