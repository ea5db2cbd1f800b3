# Alpha-beta search with iterative deepening under a node budget (a node is
# one action tried), for games without chance or hidden parts (Tortuga and
# its variants). It thinks in slices: each step() searches one root action
# at the current depth, so a device can sense and light the board between
# slices. The game is searched in place and is as it was after every step.

from .evaluate import WIN
from .game import TERMINAL


class AlphaBeta:
    def __init__(self, game, rng, budget, evaluate, max_depth=12):
        self.game = game
        self.rng = rng
        self.budget = budget
        self.evaluate = evaluate
        self.max_depth = max_depth
        self.me = game.to_move()
        self.nodes = 0
        self.order = list(game.legal_actions())  # best first after each depth
        self.depth = 1
        self.i = 0
        self.scores = []
        self.best = None      # the best actions of the last whole depth
        self.action = None

    def step(self):
        # One slice; True when the choice is made (self.action).
        if self.action is not None:
            return True
        if len(self.order) == 1:
            return self._finish([self.order[0]])
        g = self.game
        a = self.order[self.i]
        token = g.try_action(a)
        self.nodes += 1
        alpha = -WIN * 2
        if self.scores:
            alpha = max(self.scores) - 1  # only a better action matters
        v = self._value(self.depth - 1, alpha, WIN * 2)
        g.take_back(token)
        if v is None:  # out of budget inside this action
            return self._finish(self._partial())
        self.scores.append(v)
        self.i += 1
        if self.i < len(self.order):
            return False
        # a whole depth: best first next time; stop at a won game or the limit
        ranked = sorted(range(len(self.order)), key=lambda k: (-self.scores[k], k))  # no reliance on a stable sort
        top = self.scores[ranked[0]]
        self.best = [self.order[k] for k in ranked if self.scores[k] == top]
        self.order = [self.order[k] for k in ranked]
        if top >= WIN - 100 or self.depth >= self.max_depth or self.nodes >= self.budget:
            return self._finish(self.best)
        self.depth += 1
        self.i = 0
        self.scores = []
        return False

    def _partial(self):
        # The budget ran out during a depth: its first action is the best of
        # the depth before, so an action of this depth that beat it is better.
        if self.scores and (self.best is None or max(self.scores) > self.scores[0]):
            top = max(self.scores)
            return [self.order[k] for k in range(len(self.scores)) if self.scores[k] == top]
        return self.best or [self.order[0]]

    def _finish(self, choices):
        self.action = choices[0] if len(choices) == 1 else self.rng.choice(choices)
        return True

    def _value(self, depth, alpha, beta):
        # The value for self.me; None once the budget is spent.
        g = self.game
        # at the horizon no list of actions is made: the evaluation sees a
        # won game by itself (which costs far less than the list)
        who = g.to_move() if depth > 0 else TERMINAL
        if who == TERMINAL:
            v = self.evaluate(g, self.me)
            if v >= WIN:
                v -= self.depth - depth  # a sooner win is better
            elif v <= -WIN:
                v += self.depth - depth
            return v
        if self.nodes >= self.budget:
            return None
        maximise = who == self.me
        actions = g.legal_actions()
        # jumps first: they change the most
        ordered = [a for a in actions if a[0] == 1] + [a for a in actions if a[0] != 1]
        for a in ordered:
            token = g.try_action(a)
            self.nodes += 1
            v = self._value(depth - 1, alpha, beta)
            g.take_back(token)
            if v is None:
                return None
            if maximise:
                if v > alpha:
                    alpha = v
            elif v < beta:
                beta = v
            if alpha >= beta:
                break
        return alpha if maximise else beta
