# Expectimax over one move of Mahé: the dice are chance nodes (weighted by
# their odds), stop / roll / an egg card are the decider's choices, and the
# position the move ends in is scored for every player (evaluate.mahe). A
# decider maximises their own share. `greedy` (the easy level) looks one
# choice ahead: below the root every decider stops; `shallow` does so only
# below a choice of which turtle moves first (2-3 players), the costliest
# root. It thinks in slices of a few nodes (slices.py), so a device can
# sense and light the board between slices.

from .evaluate import mahe as mahe_eval
from .game import CHANCE, TERMINAL
from .slices import Sliced

STOP = 21  # mahe.STOP


class Expectimax(Sliced):
    def __init__(self, game, rng, greedy, shallow=False):
        self.me = game.to_move()
        self.greedy = greedy or (shallow and game.phase == 1)  # mahe.CHOOSE
        self.actions = list(game.legal_actions())
        Sliced.__init__(self, game, rng)

    def search(self):
        actions = self.actions
        if len(actions) == 1:
            self.action = actions[0]
            return
        scores = []
        for a in actions:
            v = yield from self._child(a, False)
            scores.append(self._margin(v))
        top = max(scores)
        self.choose([actions[k] for k in range(len(actions)) if scores[k] == top])

    def _margin(self, values):
        # What the bot plays for: its eggs ahead of the best other player.
        other = -1000000
        for p in range(len(values)):
            if p != self.me and values[p] > other:
                other = values[p]
        return values[self.me] - other

    def _child(self, a, rolled):
        # Every player's score after the action a (a pause first, once the
        # slice's nodes are spent).
        if self.nodes >= self.pause_at:
            yield
        self.down(a)
        v = self._ended(rolled)
        if v is None:
            v = yield from self._value(rolled)
        self.up()
        return v

    def _ended(self, rolled):
        # Every player's score if the move has ended here (once a die was
        # rolled and the dice are cleared, or an egg card turned up), else None.
        g = self.game
        who = g.to_move()
        if who == TERMINAL or (rolled and not g.dice) or (who == CHANCE and g.phase == 0):
            return mahe_eval(g, self.me)
        return None

    def _value(self, rolled):
        # Every player's score, the move going on from here.
        g = self.game
        who = g.to_move()
        if who == CHANCE:
            total = 0
            acc = None
            for a, w in g.chance_outcomes():
                v = yield from self._child(a, True)
                acc = _add(acc, v, w)
                total += w
            return [x // total for x in acc]
        actions = g.legal_actions()
        if self.greedy:
            actions = [STOP] if STOP in actions else actions[:1]
        best = None
        for a in actions:
            v = yield from self._child(a, rolled)
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
