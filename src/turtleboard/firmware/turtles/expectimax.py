# Expectimax over one move of Mahé: the dice are chance nodes (weighted by
# their odds), stop / roll / an egg card are the decider's choices, and the
# position the move ends in is scored for every player (evaluate.mahe). A
# decider maximises their own share. `greedy` (the easy level) looks one
# choice ahead: below the root every decider stops.
# One step() scores one root action, so a device can sense between slices.

from .evaluate import mahe as mahe_eval
from .game import CHANCE, TERMINAL


class Expectimax:
    def __init__(self, game, rng, rich, greedy):
        self.game = game
        self.rng = rng
        self.rich = rich
        self.greedy = greedy
        self.me = game.to_move()
        self.actions = list(game.legal_actions())
        self.scores = []
        self.nodes = 0
        self.action = None

    def step(self):
        if self.action is not None:
            return True
        if len(self.actions) == 1:
            self.action = self.actions[0]
            return True
        g = self.game
        g.push(self.actions[len(self.scores)])
        self.nodes += 1
        self.scores.append(self._margin(self._value(False, self.greedy)))
        g.undo()
        if len(self.scores) < len(self.actions):
            return False
        top = max(self.scores)
        best = [self.actions[k] for k in range(len(self.actions)) if self.scores[k] == top]
        self.action = best[0] if len(best) == 1 else self.rng.choice(best)
        return True

    def _margin(self, values):
        # What the bot plays for: its eggs ahead of the best other player.
        other = -1000000
        for p in range(len(values)):
            if p != self.me and values[p] > other:
                other = values[p]
        return values[self.me] - other

    def _value(self, rolled, greedy):
        # Every player's score; a move has ended once a die was rolled and
        # the dice are cleared.
        g = self.game
        who = g.to_move()
        if who == TERMINAL or (rolled and not g.dice):
            return mahe_eval(g, self.me, self.rich)
        if who == CHANCE:
            if g.phase == 0:  # an egg card turned up: the move is over
                return mahe_eval(g, self.me, self.rich)
            total = 0
            acc = None
            for a, w in g.chance_outcomes():
                g.push(a)
                self.nodes += 1
                v = self._value(True, greedy)
                g.undo()
                total += w
                if acc is None:
                    acc = [x * w for x in v]
                else:
                    for p in range(len(v)):
                        acc[p] += v[p] * w
            return [x // total for x in acc]
        actions = g.legal_actions()
        if greedy:
            actions = [21] if 21 in actions else actions[:1]  # STOP
        best = None
        for a in actions:
            g.push(a)
            self.nodes += 1
            v = self._value(rolled, greedy)
            g.undo()
            if best is None or self._for(v, who) > self._for(best, who):
                best = v
        return best

    def _for(self, values, who):
        if who == self.me:
            return self._margin(values)
        return values[who]
