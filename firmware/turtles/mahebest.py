# Mahé's best level with 4 or more players: expectimax over the bot's own
# decision (the dice as chance nodes, weighted by their odds), played for
# the chance of finishing ahead of every other player, on a score that knows
# three things the plain one (evaluate.mahe) does not:
# - the face-up card goes to the first turtle past the beach: its value
#   above (or below) a mean card counts with each player's chance of being
#   first (a race of every turtle to the beach, below), while progress round
#   the island is worth the mean card whatever lies face up;
# - the nest, when no card is left, likewise goes to the first past;
# - the top turtle of a stack rides the turtles under it whose owners move
#   before its own: it is credited with those rides.
# Small ints only, so CPython and MicroPython choose alike. A player's egg
# cards other than the bot's own count at the mean value (they lie face down).

from .evaluate import CARD_MEAN, mahe_eggs
from .game import CHANCE

PILE = 20  # mahe.PILE: the egg cards in play
NEST = 700  # the nest's eggs, in hundredths
RIDE = 70  # a ride before the top turtle's owner moves again, in hundredths
ONE = 4096  # a chance of 1
HORIZON = 6  # moves of each turtle the race looks ahead

# The spread of what the bot cannot know, as variances in hundredths of an
# egg squared: an unseen egg card's value (values 1..6 as 3,3,5,5,5,3 of
# 24 cards: variance 2.4), a card still to take and the nest (shared
# between two players).
HIDDEN_VAR = 24000
ITEM_VAR = 78000
NEST_VAR = 245000
# The normal distribution's CDF in thousandths at -3.0, -2.9, ..., 3.0.
NORMAL = (
    1, 2, 3, 3, 5, 6, 8, 11, 14, 18, 23, 29, 36, 45, 55, 67, 81, 97, 115, 136, 159,
    184, 212, 242, 274, 309, 345, 382, 421, 460, 500, 540, 579, 618, 655, 691, 726,
    758, 788, 816, 841, 864, 885, 903, 919, 933, 945, 955, 964, 971, 977, 982, 986,
    989, 992, 994, 995, 997, 997, 998, 999,
)


def score(game, me):
    # Hundredths of eggs for every player, as `me` may know them.
    g = game
    n = g.players
    per = g.per
    out = mahe_eggs(g, me)
    if g.phase == 4:  # over
        return out
    f = g.fields
    nxt = (g.player + 1) % n if g.phase == 0 else g.player  # the next to move
    left = PILE - g.revealed + (1 if g.faceup else 0)  # cards still to take
    if not left or g.faceup:
        prize = NEST if not left else 100 * g.faceup - CARD_MEAN
        first = first_past(g, nxt)
        for p in range(n):
            out[p] += prize * first[p] // ONE
    for c in range(f + 1):
        stack = g.stacks[c]
        if not stack:
            continue
        if left:
            gap = g.beach if c == 0 else (g.beach - c - 1) % f + 1
            near = CARD_MEAN * (f - gap + 1) // f
            for t in stack:
                out[t // per] += near
        if c and len(stack) > 1:
            top = stack[-1] // per
            until = (top - nxt) % n  # moves by others before top's own
            for t in stack[:-1]:
                if (t // per - nxt) % n < until:
                    out[top] += RIDE
    return out


def win_chance(game, me, values):
    # The chance (in ten-thousandths) that `me` ends ahead of every other
    # player: each difference taken as normal around its expected value,
    # spread by what is still unknown, the differences as independent.
    g = game
    spread = 0
    if g.phase != 4:
        spread = ITEM_VAR * (PILE - g.revealed + (1 if g.faceup else 0)) + NEST_VAR
    u = 10000
    for p in range(len(values)):
        if p == me:
            continue
        sd = isqrt(spread + HIDDEN_VAR * len(g.won[p]))
        d = values[me] - values[p]
        if sd == 0:
            y = 10000 if d > 0 else (0 if d < 0 else 5000)
        else:
            x = 3000 + d * 100 // sd  # hundredths of a standard deviation, from -3
            if x <= 0:
                y = 10 * NORMAL[0]
            elif x >= 6000:
                y = 10 * NORMAL[60]
            else:
                i = x // 100
                y = (NORMAL[i] * 100 + (NORMAL[i + 1] - NORMAL[i]) * (x % 100)) // 10
        u = u * y // 10000
    return u


def isqrt(x):
    # The integer square root (Newton's method on ints).
    if x <= 0:
        return 0
    r = x
    y = (r + 1) // 2
    while y < r:
        r = y
        y = (r + x // r) // 2
    return r


class MaheBest:
    # One step() weighs one root action (stop, roll, an egg card) through
    # the rest of the move (some dozens of positions), so a slice is short.
    def __init__(self, game, rng):
        self.game = game
        self.rng = rng
        self.me = game.to_move()
        self.actions = list(game.legal_actions())
        self.scores = []
        self.nodes = 0
        self.action = None

    def step(self):
        if self.action is not None:
            return True
        g = self.game
        a = self.actions[len(self.scores)]
        token = g.try_action(a)
        self.nodes += 1
        self.scores.append(self._value())
        g.take_back(token)
        if len(self.scores) < len(self.actions):
            return False
        top = max(self.scores)
        best = [self.actions[k] for k in range(len(self.actions)) if self.scores[k] == top]
        self.action = best[0] if len(best) == 1 else self.rng.choice(best)
        return True

    def _value(self):
        # The bot's chance to win, expected over the dice, the bot (the
        # decider) choosing the best; an empty dice list: the move is over.
        g = self.game
        if not g.dice:
            return win_chance(g, self.me, score(g, self.me))
        if g.to_move() == CHANCE:
            acc = 0
            total = 0
            for a, w in g.chance_outcomes():
                token = g.try_action(a)
                self.nodes += 1
                acc += self._value() * w
                g.take_back(token)
                total += w
            return acc // total
        best = None
        for a in g.legal_actions():
            token = g.try_action(a)
            self.nodes += 1
            v = self._value()
            g.take_back(token)
            if best is None or v > best:
                best = v
        return best


# ---- the race to the beach -------------------------------------------------
# REACH[k][g]: the chance (in ONE-ths) that a turtle alone, g fields short of
# the beach (21: on the raft), passes it within k of its moves, playing each
# move for that; a bust sends it back to the raft.

_REACH = {}


def reach(fields):
    t = _REACH.get(fields)
    if t is None:
        t = [[0] * (fields + 1)]
        for _ in range(HORIZON):
            prev = t[-1]
            t.append([_one_move(g, prev, fields) for g in range(fields + 1)])
        _REACH[fields] = t
    return t


def _one_move(g, prev, fields):
    # The best chance of passing within this move or the moves after it.
    if g == 0:
        return ONE
    total = 0
    for v in range(1, 7):
        total += _after(g, (v,), prev, fields)
    return total // 6


def _after(g, dice, prev, fields):
    s = 0
    for d in dice:
        s += d
    if len(dice) > 1 and s > 7:
        return prev[fields]  # a bust: back to the raft
    d = s * len(dice)
    stop = ONE if d >= g else prev[g - d]
    if len(dice) == 3 or stop == ONE:
        return stop
    roll = 0
    for w in range(1, 7):
        roll += _after(g, dice + (w,), prev, fields)
    roll //= 6
    return stop if stop >= roll else roll


def first_past(game, nxt):
    # For each player, the chance (in ONE-ths) that one of their turtles is
    # the first to pass the beach from now on. Each turtle moves on its
    # owner's turns, in turn order from player `nxt`; the top turtle of a
    # stack also rides the turtles under it whose owners move before its
    # own, and those first moves count as its, not theirs.
    g = game
    n = g.players
    per = g.per
    f = g.fields
    table = reach(f)
    gaps = []
    times = []  # each turtle's moves, numbered from now
    for t in range(g.turtles):
        c = g.pos[t]
        gaps.append(g.beach if c == 0 else (g.beach - c - 1) % f + 1)
        o = (t // per - nxt) % n
        times.append([o + n * k for k in range(HORIZON)])
    for c in range(1, f + 1):
        stack = g.stacks[c]
        if len(stack) < 2:
            continue
        top = stack[-1]
        o = (top // per - nxt) % n
        for t in stack[:-1]:
            ot = (t // per - nxt) % n
            if ot < o:
                times[top].insert(0, ot)
                times[t].pop(0)
    for ts in times:
        ts.sort()
        while len(ts) > HORIZON:
            ts.pop()
    out = [0] * n
    for i in range(g.turtles):
        gi = gaps[i]
        chance = 0
        for k in range(1, len(times[i]) + 1):
            p = table[k][gi] - table[k - 1][gi]
            if not p:
                continue
            when = times[i][k - 1]
            none = ONE  # the chance that nobody else has passed before
            for j in range(g.turtles):
                if j != i:
                    before = 0
                    for x in times[j]:
                        if x < when:
                            before += 1
                    none = none * (ONE - table[before][gaps[j]]) // ONE
            chance += p * none // ONE
        out[i // per] += chance
    return out
