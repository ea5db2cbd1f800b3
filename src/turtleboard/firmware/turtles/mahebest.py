# Mahé's best level with 4 or more players: expectimax over the bot's own
# decision (the dice as chance nodes, weighted by their odds), ending in a
# score that knows what the plain one (evaluate.mahe) does not. Small ints
# only, so CPython and MicroPython choose alike.

from .evaluate import CARD_MEAN
from .game import CHANCE

PILE = 20
NEST = 700
P = {"ride": 70, "race": -1, "first": 0, "h": 0, "rr": 0, "obj": 0, "wide": 100}


# A lone turtle's worth, in hundredths of a card, g fields short of the
# beach, playing for the most cards in the long run (value iteration).
WORTH = (100, 86, 82, 79, 73, 68, 63, 57, 53, 49, 45, 40, 36, 31, 27, 22, 18, 14, 11, 7, 4, 0)


def score(game, me):
    # Hundredths of eggs for every player, as `me` may know them.
    g = game
    n = g.players
    per = g.per
    out = [0] * n
    for p in range(n):
        if p == me:
            out[p] = 100 * sum(g.won[p])
        else:
            out[p] = CARD_MEAN * len(g.won[p])
    if g.nest_owner >= 0:
        out[g.nest_owner] += NEST
    if g.phase == 4:
        return out
    f = g.fields
    beach = g.beach
    nxt = (g.player + 1) % n if g.phase == 0 else g.player  # the next to move
    left = PILE - g.revealed + (1 if g.faceup else 0)  # cards still to take
    if left <= P["race"]:
        # the last items, one a pass: the cards (the face-up one, the others
        # at the mean), then the nest
        for m in range(left + 1):
            if m == left:
                item = NEST
            elif m == 0 and g.faceup:
                item = 100 * g.faceup
            else:
                item = CARD_MEAN
            share = nth_pass(g, nxt, m)
            for p in range(n):
                out[p] += item * share[p] // ONE
        prize = CARD_MEAN
    elif P["first"]:
        prize = CARD_MEAN
        if g.faceup:
            share = nth_pass(g, nxt, 0)
            for p in range(n):
                out[p] += (100 * g.faceup - CARD_MEAN) * share[p] // ONE
    else:
        prize = 100 * g.faceup if g.faceup else CARD_MEAN
        if not left:
            prize = NEST
    ride = P["ride"]
    worth = P["h"]
    for c in range(f + 1):
        stack = g.stacks[c]
        if not stack:
            continue
        gap = beach if c == 0 else (beach - c - 1) % f + 1
        if left > P["race"]:
            if worth:
                near = CARD_MEAN * WORTH[gap] // 100
            else:
                near = prize * (f - gap + 1) // f
            for t in stack:
                out[t // per] += near
        if c and len(stack) > 1 and ride:
            top = stack[-1] // per
            until = (top - nxt) % n  # moves by others before top's own
            k = 0
            for t in stack[:-1]:
                q = t // per
                if (q - nxt) % n < until:
                    k += 1
            out[top] += ride * k * prize // CARD_MEAN
    return out


# The normal distribution's CDF in thousandths, at -3.0, -2.9, ... 3.0.
NORMAL = (
    1, 2, 3, 3, 5, 6, 8, 11, 14, 18, 23, 29, 36, 45, 55, 67, 81, 97, 115, 136, 159,
    184, 212, 242, 274, 309, 345, 382, 421, 460, 500, 540, 579, 618, 655, 691, 726,
    758, 788, 816, 841, 864, 885, 903, 919, 933, 945, 955, 964, 971, 977, 982, 986,
    989, 992, 994, 995, 997, 997, 998, 999,
)
HIDDEN_VAR = 24000  # an unseen egg card's value: its variance, in hundredths squared
ITEM_VAR = 78000  # a card still to take, between two players
NEST_VAR = 245000  # the nest, between two players


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

    def _utility(self):
        g = self.game
        me = self.me
        v = score(g, me)
        obj = P["obj"]
        if obj == 0:
            other = -1000000
            for p in range(len(v)):
                if p != me and v[p] > other:
                    other = v[p]
            return v[me] - other
        # the chance of finishing ahead of every other player, each
        # difference taken as normal around its expected value
        if g.phase == 4:
            spread = 0
        else:
            left = PILE - g.revealed + (1 if g.faceup else 0)
            spread = ITEM_VAR * left + NEST_VAR
        u = 10000  # in ten-thousandths
        for p in range(len(v)):
            if p == me:
                continue
            var = spread + HIDDEN_VAR * len(g.won[p])
            sd = isqrt(var) * P["wide"] // 100
            d = v[me] - v[p]
            if sd == 0:
                y = 10000 if d > 0 else (0 if d < 0 else 5000)
            else:
                x = 3000 + d * 100 // sd  # hundredths of a standard deviation
                if x <= 0:
                    y = 10 * NORMAL[0]
                elif x >= 6000:
                    y = 10 * NORMAL[60]
                else:
                    i = x // 100
                    y = (NORMAL[i] * 100 + (NORMAL[i + 1] - NORMAL[i]) * (x % 100)) // 10
            u = u * y // 10000
        return u
        return u

    def _value(self):
        # The bot's expected utility after the move: the dice are chance,
        # the decider (the bot) takes the best; an empty dice list means
        # the move is over.
        g = self.game
        if not g.dice:
            return self._utility()
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
# the beach (21: on the raft), passes it within k of its own moves, playing
# each move for that; a bust sends it back to the raft.

ONE = 4096
HORIZON = 6


def _reach_table(fields):
    table = [[0] * (fields + 1)]
    for _ in range(HORIZON):
        prev = table[-1]
        table.append([_one_move(g, prev, fields) for g in range(fields + 1)])
    return table


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
    if len(dice) == 3 or (len(dice) == 2 and s > 7) or stop == ONE:
        return stop
    roll = 0
    for w in range(1, 7):
        roll += _after(g, dice + (w,), prev, fields)
    roll //= 6
    return stop if stop >= roll else roll


_REACH = {}


def reach(fields):
    t = _REACH.get(fields)
    if t is None:
        t = _reach_table(fields)
        _REACH[fields] = t
    return t


def nth_pass(game, nxt, m):
    # For each player, the chance (in ONE-ths) that one of their turtles is
    # the (m+1)-th to pass the beach from now on (each passing at most
    # once). Each turtle moves on its owner's turns, in turn order from
    # player `nxt`; the top turtle of a stack also rides the turtles under
    # it whose owners move before its own, and those first moves are its.
    g = game
    n = g.players
    per = g.per
    f = g.fields
    table = reach(f)
    gaps = []
    times = []  # each turtle's moves, as move numbers from now
    for t in range(g.turtles):
        c = g.pos[t]
        gaps.append(g.beach if c == 0 else (g.beach - c - 1) % f + 1)
        o = (t // per - nxt) % n
        times.append([o + n * k for k in range(HORIZON)])
    if P["rr"]:
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
            # how many of the others have passed before this move: a
            # distribution over 0..m, each an independent chance
            dist = [ONE] + [0] * m
            for j in range(g.turtles):
                if j == i:
                    continue
                before = 0
                for x in times[j]:
                    if x < when:
                        before += 1
                q = table[before][gaps[j]]
                for x in range(m, 0, -1):
                    dist[x] = (dist[x] * (ONE - q) + dist[x - 1] * q) // ONE
                dist[0] = dist[0] * (ONE - q) // ONE
            chance += p * dist[m] // ONE
        out[i // per] += chance
    return out
