# Simple bots: a uniform random player, and chance by the outcome weights.

from .game import CHANCE, TERMINAL


def random_action(game, rng):
    if game.to_move() == CHANCE:
        return rng.weighted(game.chance_outcomes())
    return rng.choice(game.legal_actions())


def play_random(game, rng, max_actions=100000):
    # Plays to the end; returns the number of actions taken.
    n = 0
    while game.to_move() != TERMINAL:
        if n >= max_actions:
            raise RuntimeError("%s did not end within %d actions" % (game.name, max_actions))
        game.push(random_action(game, rng))
        n += 1
    return n
