# The speed work on Tortuga's legal-action lists and Mahé's moves changed no
# legal-action list (nor its order), action, state hash or result: digests of
# seeded random games, with undo half-way back and a playout from there,
# recorded from the engine before that work (commit c3d2e1e). Runs under
# pytest and MicroPython (mprun.py).
from turtles import new_game
from turtles.bots import random_action
from turtles.game import fnv1a32
from turtles.rng import Rng

# (game, players, options, games, digest)
CASES = [
    ("tortuga", 2, {}, 12, "49233efc"),
    ("tortuga", 2, {"hatching": 1}, 30, "f6a185d7"),
    ("tortuga", 2, {"hatching": 1, "hops": 1}, 8, "ff910565"),
    ("tortuga", 2, {"tattoo": 4}, 10, "160c92de"),
    ("mahe", 4, {}, 20, "5413bac9"),
    ("mahe", 2, {}, 10, "d707df75"),
    ("mahe", 3, {"egg_dice": 1}, 10, "e2791de8"),
    ("mahe", 7, {"egg_dice": 1}, 4, "b15c51c1"),
]


def game_digest(name, players, options, seed):
    # Folded line by line (a whole game's text would not fit the unix
    # port's heap).
    g = new_game(name, players, options)
    rng = Rng(seed)
    h = 0
    while not g.is_over():
        h = fnv1a32("%08x %r" % (h, g.legal_actions()))
        a = random_action(g, rng)
        g.push(a)
        h = fnv1a32("%08x %r %08x" % (h, a, g.state_hash()))
    h = fnv1a32("%08x %r" % (h, g.result()))
    for _ in range(len(g.history) // 2):
        g.undo()
    h = fnv1a32("%08x %08x %r" % (h, g.state_hash(), g.legal_actions()))
    n = g.playout(Rng(seed + 1000))
    return fnv1a32("%08x %d %08x %r" % (h, n, g.state_hash(), g.result()))


def digest(name, players, options, games):
    h = 0
    for seed in range(1, games + 1):
        h = fnv1a32("%08x %08x" % (h, game_digest(name, players, options, seed)))
    return "%08x" % h


def test_lists_hashes_and_results_as_before():
    for name, players, options, games, expected in CASES:
        assert digest(name, players, options, games) == expected, (name, players, options)
