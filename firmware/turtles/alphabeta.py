# Alpha-beta search with iterative deepening under a node budget (a node is
# one action tried), for games without chance or hidden parts (Tortuga and
# its variants). It thinks in slices of a few nodes (slices.py), so a device
# can sense and light the board between slices.

from .evaluate import WIN
from .game import TERMINAL
from .slices import Sliced


class AlphaBeta(Sliced):
    def __init__(self, game, rng, budget, evaluate, max_depth=12):
        self.budget = budget
        self.evaluate = evaluate
        self.max_depth = max_depth
        self.me = game.to_move()
        self.order = list(game.legal_actions())  # best first after each depth
        self.depth = 1
        self.scores = []
        self.best = None      # the best actions of the last whole depth
        Sliced.__init__(self, game, rng)

    def search(self):
        while True:  # one depth after another
            order = self.order
            if len(order) == 1:
                self.choose(order)
                return
            scores = self.scores = []
            for a in order:
                if self.nodes >= self.pause_at:
                    yield
                alpha = -WIN * 2
                if scores:
                    alpha = max(scores) - 1  # only a better action matters
                self.down(a)
                if self.depth > 1:
                    v = yield from self._value(self.depth - 1, alpha, WIN * 2)
                else:
                    v = self._score(0)
                self.up()
                if v is None:  # out of budget inside this action
                    self.choose(self._partial())
                    return
                scores.append(v)
            # a whole depth: best first next time; stop at a won game or the limit
            ranked = sorted(range(len(order)), key=lambda k: (-scores[k], k))  # no reliance on a stable sort
            top = scores[ranked[0]]
            self.best = [order[k] for k in ranked if scores[k] == top]
            self.order = [order[k] for k in ranked]
            if top >= WIN - 100 or self.depth >= self.max_depth or self.nodes >= self.budget:
                self.choose(self.best)
                return
            self.depth += 1

    def _partial(self):
        # The budget ran out during a depth: its first action is the best of
        # the depth before, so an action of this depth that beat it is better.
        if self.scores and (self.best is None or max(self.scores) > self.scores[0]):
            top = max(self.scores)
            return [self.order[k] for k in range(len(self.scores)) if self.scores[k] == top]
        return self.best or [self.order[0]]

    def _score(self, depth):
        # The evaluation for self.me; a sooner win is better.
        v = self.evaluate(self.game, self.me)
        if v >= WIN:
            v -= self.depth - depth
        elif v <= -WIN:
            v += self.depth - depth
        return v

    def _value(self, depth, alpha, beta):
        # The value for self.me (depth >= 1); None once the budget is spent.
        # (At the horizon no list of actions is made: the evaluation sees a
        # won game by itself, which costs far less than the list.)
        g = self.game
        who = g.to_move()
        if who == TERMINAL:
            return self._score(depth)
        if self.nodes >= self.budget:
            return None
        maximise = who == self.me
        actions = g.legal_actions()
        # jumps first: they change the most
        ordered = [a for a in actions if a[0] == 1] + [a for a in actions if a[0] != 1]
        for a in ordered:
            if self.nodes >= self.pause_at:
                yield
            self.down(a)
            if depth > 1:
                v = yield from self._value(depth - 1, alpha, beta)
            else:
                v = self._score(0)
            self.up()
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
