# Seeded random games written out in full: every legal-action list, every
# action and every state hash. Run under CPython and MicroPython, the two
# outputs must be byte-identical.
#   micropython tests/engine/transcript.py mahe 4 "" 0 200
import sys

from turtles import CHANCE, TERMINAL, new_game
from turtles.bots import random_action
from turtles.record import parse_options
from turtles.rng import Rng


def transcript(name, players, options, seed, out):
    game = new_game(name, players, options)
    rng = Rng(seed * 7919 + 1)
    out("game %s players=%d options=%s seed=%d" % (name, players, game.option_text(), seed))
    steps = 0
    while game.to_move() != TERMINAL:
        who = game.to_move()
        legal = game.legal_texts()
        if who == CHANCE:
            weights = ",".join("%s:%d" % (game.action_text(a), w) for a, w in game.chance_outcomes())
            out("chance %s" % weights)
        out("legal %s %s" % (who, " ".join(legal)))
        action = random_action(game, rng)
        game.push(action)
        out("do %s hash %08x" % (game.action_text(action), game.state_hash()))
        steps += 1
        if steps > 20000:
            raise RuntimeError("game did not end")
    res = game.result()
    out("result winners=%s scores=%s" % (res["winners"], res["scores"]))


def main(argv):
    name = argv[1]
    players = int(argv[2])
    options = parse_options(argv[3])
    first = int(argv[4])
    count = int(argv[5])
    for seed in range(first, first + count):
        transcript(name, players, options, seed, print)


if __name__ == "__main__":
    main(sys.argv)
