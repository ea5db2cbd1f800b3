# Expectimax over one move of Mahé: the dice are chance nodes (weighted by
# their odds), stop / roll / an egg card are the decider's choices, and the
# position the move ends in is scored for every player (evaluate.mahe). A
# decider maximises their own share. `greedy` (the easy level) looks one
# choice ahead: below the root every decider stops; `shallow` does so only
# below a choice of which turtle moves first (2-3 players), the costliest
# root. It thinks in slices of a few nodes (slices.py), so a device can
# sense and light the board between slices.
# Another player may decide inside the bot's move (2-3 players: the turtle
# moved first lies under theirs). With egg cards as dice, their cards lie
# face down: which values they may play is chance to the bot, by the cards
# it cannot see (each decision of theirs on its own), never their hand.

from .evaluate import mahe as mahe_eval
from .game import CHANCE, TERMINAL
from .mahe import CARD0, CARDS, LIMIT, ROLL, STOP
from .slices import Sliced

ONE = 4096  # a chance of 1


class Expectimax(Sliced):
    def __init__(self, game, rng, greedy, shallow=False):
        self.me = game.to_move()
        self.greedy = greedy or (shallow and game.phase == 1)  # mahe.CHOOSE
        self.actions = list(game.legal_actions())
        self.unseen = _unseen(game, self.me)
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
        if self.greedy:
            actions = g.legal_actions()
            actions = [STOP] if STOP in actions else actions[:1]
        elif who != self.me and self.unseen and g.phase == 3:  # mahe.DECIDE
            v = yield from self._hidden_hand(who, rolled)
            return v
        else:
            actions = g.legal_actions()
        best = None
        for a in actions:
            v = yield from self._child(a, rolled)
            if best is None or self._for(v, who) > self._for(best, who):
                best = v
        return best

    def _hidden_hand(self, who, rolled):
        # Every player's score where `who`, not the bot, decides and may play
        # an egg card as a die: stop, roll, and each card value they may hold
        # (tried on a stand-in hand of as many cards) weighed by the chance
        # that it is the best they hold.
        g = self.game
        k = len(g.won[who])
        options = []
        for a in (STOP, ROLL):
            v = yield from self._child(a, rolled)
            options.append((v, 0))
        if k and not g.card_die and g.first_card != who + 1:
            for c in range(1, min(6, LIMIT - sum(g.dice)) + 1):
                if self.unseen[c]:
                    stand_in = ("hand", who, [c] * k)
                    self.line.append(stand_in)
                    self.tokens.append(self.redo(stand_in))
                    v = yield from self._child(CARD0 + c, rolled)
                    self.line.pop()
                    self.undo(self.tokens.pop())
                    options.append((v, c))
        n = 0
        for c in range(1, 7):
            n += self.unseen[c]
        acc = None
        out = 0  # unseen cards of the values better than the option
        left = ONE  # the chance that they hold none of those
        while left:
            i = 0
            for j in range(1, len(options)):
                if options[j][0][who] > options[i][0][who]:
                    i = j
            v, c = options.pop(i)
            if not c:  # stop or roll: theirs whatever they hold
                acc = _add(acc, v, left)
                break
            out += self.unseen[c]
            none = _none_of(n, out, k)
            acc = _add(acc, v, left - none)
            left = none
        return [x // ONE for x in acc]

    def redo(self, action):
        if type(action) is tuple:  # a stand-in hand: ("hand", player, cards)
            g = self.game
            p = action[1]
            held = g.won[p]
            g.won[p] = list(action[2])
            return (p, held)
        return self.game.try_action(action)

    def undo(self, token):
        if type(token) is tuple:
            self.game.won[token[0]] = token[1]
        else:
            self.game.take_back(token)

    def _for(self, values, who):
        if who == self.me:
            return self._margin(values)
        return values[who]


def _unseen(game, me):
    # With egg cards as dice: the cards of each value the bot cannot see (not
    # its own, played as a die, or face up); else None.
    if not game.options["egg_dice"]:
        return None
    out = list(CARDS)
    for v in game.won[me] + game.discarded:
        out[v] -= 1
    if game.faceup:
        out[game.faceup] -= 1
    return out


def _none_of(n, out, k):
    # The chance (in ONE-ths) that k cards dealt from n hold none of `out`
    # of them.
    p = ONE
    for i in range(k):
        if n - out - i <= 0:
            return 0
        p = p * (n - out - i) // (n - i)
    return p


def _add(acc, v, w):
    # acc + v * w, element by element (acc None: a new list)
    if acc is None:
        return [x * w for x in v]
    for p in range(len(v)):
        acc[p] += v[p] * w
    return acc
