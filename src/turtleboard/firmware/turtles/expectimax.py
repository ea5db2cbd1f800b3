# Expectimax over one move of Mahé: the dice are chance nodes (weighted by
# their odds), stop / roll / an egg card are the decider's choices, and the
# position the move ends in is scored for every player (evaluate.mahe). A
# decider maximises their own share. `greedy` (the easy level) looks one
# choice ahead: below the root every decider stops; `shallow` does so only
# below a choice of which turtle moves first (2-3 players), the costliest
# root. One step() scores one root action, or one die face after it, so a
# device can sense between slices.

from .evaluate import mahe as mahe_eval
from .game import CHANCE, TERMINAL

STOP = 21  # mahe.STOP


class Expectimax:
    def __init__(self, game, rng, greedy, shallow=False):
        self.game = game
        self.rng = rng
        self.me = game.to_move()
        self.greedy = greedy or (shallow and game.phase == 1)  # mahe.CHOOSE
        self.actions = list(game.legal_actions())
        self.scores = []
        self.nodes = 0
        self.action = None
        self.part = None  # a root action's die faces: [outcomes, next, weights, sum]

    def step(self):
        if self.action is not None:
            return True
        if len(self.actions) == 1:
            self.action = self.actions[0]
            return True
        g = self.game
        a = self.actions[len(self.scores)]
        token = g.try_action(a)
        self.nodes += 1
        if self.part is None and g.to_move() == CHANCE and g.phase != 0:
            self.part = [g.chance_outcomes(), 0, None, 0]
        if self.part is None:
            self.scores.append(self._margin(self._value(False, self.greedy)))
        else:
            # one die face after the root action a
            outcomes, i, acc, total = self.part
            face, w = outcomes[i]
            t2 = g.try_action(face)
            self.nodes += 1
            v = self._value(True, self.greedy)
            g.take_back(t2)
            acc = _add(acc, v, w)
            total += w
            if i + 1 < len(outcomes):
                self.part = [outcomes, i + 1, acc, total]
            else:
                self.part = None
                self.scores.append(self._margin([x // total for x in acc]))
        g.take_back(token)
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
            return mahe_eval(g, self.me)
        if who == CHANCE:
            if g.phase == 0:  # an egg card turned up: the move is over
                return mahe_eval(g, self.me)
            total = 0
            acc = None
            for a, w in g.chance_outcomes():
                token = g.try_action(a)
                self.nodes += 1
                acc = _add(acc, self._value(True, greedy), w)
                g.take_back(token)
                total += w
            return [x // total for x in acc]
        actions = g.legal_actions()
        if greedy:
            actions = [STOP] if STOP in actions else actions[:1]
        best = None
        for a in actions:
            token = g.try_action(a)
            self.nodes += 1
            v = self._value(rolled, greedy)
            g.take_back(token)
            if best is None or self._for(v, who) > self._for(best, who):
                best = v
        return best

    def _for(self, values, who):
        if who == self.me:
            return self._margin(values)
        return values[who]


def _add(acc, v, w):
    # acc + v * w, element by element (acc None: a new list)
    if acc is None:
        return [x * w for x in v]
    for p in range(len(v)):
        acc[p] += v[p] * w
    return acc
