# The searches as they were before they thought in slices of a few nodes:
# one root action (alpha-beta, expectimax) or one playout (Monte Carlo) a
# step, each searched by plain recursion. test_bot_slices.py requires the
# sliced searches to choose exactly what these choose, with the same nodes
# (the strength figures in docs/bots.md were measured with these). What the
# slicing did not change is taken from the new classes. One change:
# expectimax counts a root action once, not again for each die face.
# Since: where another player decides and may play an egg card as a die,
# the values they may play are chance (their face-down hand is not read).

from turtles.alphabeta import AlphaBeta
from turtles.evaluate import WIN
from turtles.evaluate import mahe as mahe_eval
from turtles.expectimax import ONE, Expectimax, _add, _none_of, _unseen
from turtles.game import CHANCE, TERMINAL, Game
from turtles.montecarlo import WORLD, MonteCarlo

STOP = 21  # mahe.STOP


class OldAlphaBeta(AlphaBeta):  # its _partial: unchanged
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


class OldExpectimax(Expectimax):  # its _margin and _for: unchanged
    def __init__(self, game, rng, greedy, shallow=False):
        self.game = game
        self.rng = rng
        self.me = game.to_move()
        self.greedy = greedy or (shallow and game.phase == 1)  # mahe.CHOOSE
        self.actions = list(game.legal_actions())
        self.unseen = _unseen(game, self.me)
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
        if self.part is None or self.part[1] == 0:
            self.nodes += 1  # (it counted the root action again for each die face)
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
        if not greedy and who != self.me and self.unseen and g.phase == 3:
            return self._hidden_hand(who, rolled)
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

    def _hidden_hand(self, who, rolled):
        g = self.game
        k = len(g.won[who])
        options = []
        for a in (STOP, 20):  # stop, roll
            token = g.try_action(a)
            self.nodes += 1
            options.append((self._value(rolled, False), 0))
            g.take_back(token)
        if k and not g.card_die and g.first_card != who + 1:
            for c in range(1, min(6, 7 - sum(g.dice)) + 1):
                if self.unseen[c]:
                    held = g.won[who]
                    g.won[who] = [c] * k
                    token = g.try_action(30 + c)
                    self.nodes += 1
                    options.append((self._value(rolled, False), c))
                    g.take_back(token)
                    g.won[who] = held
        n = sum(self.unseen)
        # the decider takes the best they hold: stop or roll they always do
        options = [options[i] for i in sorted(range(len(options)),
                                              key=lambda i: (-options[i][0][who], i))]
        acc = None
        out = 0
        left = ONE
        for v, c in options:
            if not c:
                acc = _add(acc, v, left)
                break
            out += self.unseen[c]
            none = _none_of(n, out, k)
            acc = _add(acc, v, left - none)
            left = none
            if not left:
                break
        return [x // ONE for x in acc]


class OldMonteCarlo(MonteCarlo):  # its own __init__ and _finish: unchanged
    def step(self):
        if self.action is not None:
            return True
        n = len(self.actions)
        if n == 1:
            self.action = self.actions[0]
            return True
        if self.nodes >= self.budget and self.i == 0:
            return self._finish()
        rng = self.rng
        world = self.sample(self.game, self.me, rng)
        world.try_action(self.actions[self.i])
        self.nodes += WORLD + 1 + playout(world, rng)  # since: a world counts as WORLD
        winners = world.result()["winners"]
        if self.me in winners:
            self.wins[self.i] += 60 // len(winners)
        self.tries[self.i] += 1
        self.i = (self.i + 1) % n
        return False


def playout(game, rng):
    # Random play to the end, by the generic calls (as before the Race's
    # own loop played them).
    return Game.random_play(game, rng, 1 << 29)


def old_thinker(game, level, rng):
    # What turtles.bots.thinker() made for a search, with the searches above.
    from turtles.bots import BUDGETS
    from turtles.evaluate import tortuga
    from turtles.sample import race_world

    if game.name == "tortuga":
        if level == "easy":
            return OldAlphaBeta(game, rng, 1000000, tortuga, 1)
        return OldAlphaBeta(game, rng, BUDGETS["tortuga"][level], tortuga)
    if game.name == "mahe":
        return OldExpectimax(game, rng, level == "easy", level == "good")
    return OldMonteCarlo(game, rng, BUDGETS["race"][level], race_world)
