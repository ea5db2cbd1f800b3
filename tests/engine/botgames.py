# Seeded games between bot levels written out: every action, the nodes each
# bot searched and the state hash. Run under CPython and MicroPython, the
# two outputs must be byte-identical (node budgets, never wall time).
#   micropython tests/engine/botgames.py tortuga 2 "" best,good 0 2
import sys

from turtles import CHANCE, TERMINAL, new_game
from turtles.bots import random_action, thinker
from turtles.record import parse_options
from turtles.rng import Rng


def botgame(name, players, options, levels, seed, out):
    game = new_game(name, players, options)
    chance = Rng(seed * 7919 + 1)
    minds = [Rng(seed * 31 + p + 5) for p in range(players)]
    out("game %s players=%d options=%s bots=%s seed=%d" % (
        name, players, game.option_text(), ",".join(levels), seed))
    while game.to_move() != TERMINAL:
        who = game.to_move()
        if who == CHANCE:
            a = random_action(game, chance)
            nodes = 0
        else:
            t = thinker(game, levels[who % len(levels)], minds[who])
            slices = 1
            while not t.step():
                slices += 1
            a = t.action
            nodes = t.nodes
        game.push(a)
        out("%s %s n%d h%08x" % (who, game.action_text(a), nodes, game.state_hash()))
    out("winners %s" % (game.result()["winners"],))


def main(argv):
    name = argv[1]
    players = int(argv[2])
    options = parse_options(argv[3])
    levels = argv[4].split(",")
    first = int(argv[5])
    for seed in range(first, first + int(argv[6])):
        botgame(name, players, options, levels, seed, print)


if __name__ == "__main__":
    main(sys.argv)
