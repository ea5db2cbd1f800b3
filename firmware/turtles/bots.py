# The computer's players, by level: random, easy (one choice ahead on a
# simple evaluation), good and best (searches under a node budget, so the
# same seed gives the same moves on CPython and MicroPython). A bot sees only
# what its player may see. thinker() returns a search that runs in slices:
# call step() until it returns True, then read .action.

from .game import CHANCE, TERMINAL

LEVELS = ("random", "easy", "good", "best")
DEVICE_LEVEL = "good"  # what the board plays on its own (docs/bots.md)

# Node budgets (actions tried while searching) per game family and level.
BUDGETS = {
    "tortuga": {"good": 150, "best": 4000},
    "race": {"good": 1000, "best": 10000},
}


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


def check_level(level):
    if level not in LEVELS:
        raise ValueError("no bot level %r; the levels are: %s" % (level, ", ".join(LEVELS)))


class Chosen:
    # A choice made at once (random play, chance, a single legal action).
    def __init__(self, action):
        self.action = action
        self.nodes = 0

    def step(self):
        return True


def thinker(game, level, rng):
    # A search for the player to move (or the outcome of a chance node).
    check_level(level)
    who = game.to_move()
    if who == TERMINAL:
        raise ValueError("the game is over: nobody is to move")
    if who == CHANCE or level == "random":
        return Chosen(random_action(game, rng))
    actions = game.legal_actions()
    if len(actions) == 1:
        return Chosen(actions[0])
    name = game.name
    if name == "tortuga":
        from .alphabeta import AlphaBeta
        from .evaluate import tortuga

        if level == "easy":
            return AlphaBeta(game, rng, 1000000, tortuga, 1)
        return AlphaBeta(game, rng, BUDGETS["tortuga"][level], tortuga)
    if name == "mahe":
        if level == "best" and game.players >= 4:
            from .mahebest import MaheBest

            return MaheBest(game, rng)
        from .expectimax import Expectimax

        return Expectimax(game, rng, level == "easy", level == "good")
    if name == "race":
        if not game.dealt:
            raise ValueError(
                "the computer plays the Turtle Race only with dealt cards (mode=dealt): "
                "with real cards it holds no hand"
            )
        if level == "easy":
            return OnePly(game, rng)
        from .montecarlo import MonteCarlo
        from .sample import race_world

        return MonteCarlo(game, rng, BUDGETS["race"][level], race_world)
    raise ValueError("no bots for %r" % name)


WHOLE = 1 << 29  # a slice that never ends


def think_through(t):
    # A search thought through at once, in one slice (where nothing needs
    # to run between slices: on a PC); -> t, with t.action.
    t.slice_nodes = WHOLE
    while not t.step():
        pass
    return t


def choose(game, level, rng):
    # The bot's action, thought through at once.
    return think_through(thinker(game, level, rng)).action


class OnePly:
    # The Turtle Race's easy level: the card that leaves its own turtle best
    # placed (evaluate.race), before the next card is drawn.
    def __init__(self, game, rng):
        from .evaluate import race

        g = game
        me = g.to_move()
        best = None
        choices = []
        for a in g.legal_actions():
            token = g.try_action(a)
            v = race(g, me)
            g.take_back(token)
            if best is None or v > best:
                best = v
                choices = [a]
            elif v == best:
                choices.append(a)
        self.action = choices[0] if len(choices) == 1 else rng.choice(choices)
        self.nodes = len(g.legal_actions())

    def step(self):
        return True
