# Mahé (Alex Randolph), RULES.md §1: turtles swim round the island, ride on
# each other's backs and lay eggs whenever they reach or pass the beach.
#
# Cells: the raft (index 0), fields 1..F (the beach is one of them, 21 on the
# real board), the nest (index F + 1). Each cell holds a stack of turtles,
# bottom first; the raft never stacks (its order means nothing: shown sorted).
# Turtles are numbered 0..T-1; with 2 or 3 players each player owns two
# (turtle 2p and 2p+1, named "1a", "1b", ...), otherwise one (named "1", "2"...).
#
# A move: die 1 (chance), then the decider (owner of the top turtle of the
# mover's stack) says stop or roll; after 2 dice totalling <= 7 again stop or
# roll; a total over 7 is a bust. Egg cards turned face up are chance actions.

try:
    from micropython import const
except ImportError:

    def const(x):
        return x


from .errors import BadNotation, BadSetup
from .game import CHANCE, EMPTY, TERMINAL, UP, Game, History, parse_int

# Phases
REVEAL = const(0)  # chance: the next egg card is turned face up
CHOOSE = const(1)  # 2-3 players: which of the player's turtles moves first
DIE = const(2)  # chance: the next die
DECIDE = const(3)  # the decider: stop, roll (or play an egg card)
OVER = const(4)
PHASE_NAMES = ("reveal", "choose", "die", "decide", "over")

# Actions are small ints
EGG0 = const(10)  # 11..16: the egg card turned face up (1..6: a die face)
ROLL = const(20)
STOP = const(21)
CARD0 = const(30)  # 31..36: one of the decider's egg cards played as a die
FIRST0 = const(40)  # 40 + turtle: that turtle moves first this turn

CARDS = (0, 3, 3, 5, 5, 5, 3)  # egg cards of each value among the 24
PILE = const(20)  # cards in play; the other 4 are removed unseen
NEST_EGGS = const(7)
LIMIT = const(7)  # a dice total above this is a bust
DIE_FACES = (1, 2, 3, 4, 5, 6)
DIE_OUTCOMES = ((1, 1), (2, 1), (3, 1), (4, 1), (5, 1), (6, 1))
STOP_ROLL = (STOP, ROLL)  # the decider's choice, in legal_actions() order
# Undo tokens of the light actions, and how a move ended
U_DIE = const(-1)
U_ROLL = const(-2)
U_CARD = const(-3)
U_CHOOSE = const(-4)
U_MOVE = const(-5)  # a move: its record is on the game's list of move records
U_NEST = const(-6)  # the move that reached the nest (its record has the field too)
MOVED = const(0)
BUSTED = const(1)
NESTED = const(2)


def _entry(action, token):
    # The bytes History.add(action, token) writes for an action whose token
    # is a fixed small int: the playout loop writes them itself (and counts
    # the entries in history.n).
    h = History()
    h.add(action, token)
    return bytes(h.buf)


DIE_ENTRIES = [None] + [_entry(a, U_DIE) for a in DIE_FACES]
ROLL_ENTRY = _entry(ROLL, U_ROLL)
# indexed by the action: a die face or STOP
MOVE_ENTRIES = [_entry(a, U_MOVE) if a in DIE_FACES or a == STOP else None for a in range(STOP + 1)]
HOW = "d1..d6 (a die), e1..e6 (the egg card turned up), roll, stop, card1..card6 (egg card as a die), first-<turtle>"


class Mahe(Game):
    name = "mahe"
    title = "Mahé"
    min_players = 2
    max_players = 7
    OPTIONS = (("egg_dice", 0, (0, 1)),)
    DEFAULT_GEOMETRY = {"fields": 21, "beach": 21}

    # ---- setup ----------------------------------------------------------

    def setup(self):
        self.fields, self.beach = read_geometry(self.geometry)
        self.per = 2 if self.players <= 3 else 1  # turtles per player
        self.turtles = self.players * self.per
        self.stacks = [[] for _ in range(self.fields + 2)]
        self.stacks[0] = list(range(self.turtles))  # everyone on the raft
        self.pos = [0] * self.turtles  # the cell of each turtle
        self.seen = [0] * 7  # egg cards of each value turned up so far
        self.won = [[] for _ in range(self.players)]  # each player's egg cards, sorted
        self.discarded = []  # egg cards played as dice (variant)
        self.phase = REVEAL
        self.player = 0  # whose turn it is
        self.mover = -1  # the turtle moving now (-1: none yet)
        self.pending = -1  # 2-3 players: the turtle still to move this turn
        self.decider = -1  # owner of the top turtle of the mover's stack
        self.dice = ()  # the dice of this move (a played egg card counts as one)
        self.card_die = 0  # which die (2 or 3) was an egg card, 0: none
        self.first_card = 0  # 2-3 players: 1 + who played an egg card in the turn's first move
        self.faceup = 0  # value of the face-up egg card, 0: none
        self.revealed = 0  # egg cards turned up so far (at most PILE)
        self.nest_owner = -1  # who won the nest
        self.moved = []  # the records of the moves made, for their undo

    # ---- whose decision, what is legal ------------------------------------

    def to_move(self):
        ph = self.phase
        if ph == DECIDE:
            return self.decider
        if ph == CHOOSE:
            return self.player
        if ph == OVER:
            return TERMINAL
        return CHANCE

    def legal_actions(self):
        ph = self.phase
        if ph == DIE:
            return list(DIE_FACES)
        if ph == DECIDE:
            out = [STOP, ROLL]
            if self.options["egg_dice"] and not self.card_die and self.first_card != self.decider + 1:
                room = LIMIT - sum(self.dice)
                last = 0
                for v in self.won[self.decider]:
                    if v != last and v <= room:
                        out.append(CARD0 + v)
                    last = v
            return out
        if ph == REVEAL:
            return [a for a, _ in self.chance_outcomes()]
        if ph == CHOOSE:
            first = self.player * 2
            return [FIRST0 + first, FIRST0 + first + 1]
        return []

    def chance_outcomes(self):
        if self.phase == DIE:
            return list(DIE_OUTCOMES)
        if self.phase == REVEAL:
            out = []
            for v in DIE_FACES:
                left = CARDS[v] - self.seen[v]
                if left > 0:
                    out.append((EGG0 + v, left))
            return out
        return []

    def playout(self, rng, max_actions=100000):
        # Game.playout() without its generic calls for the dice and the
        # plain roll-or-stop: the same actions from the same draws of rng
        # (rng.choice(items) is items[rng.below(len(items))], and six faces
        # of weight 1 are drawn as rng.choice(DIE_FACES)), and the same
        # history. Those draws, below(6) and below(2), are worked out here on
        # rng's state; a die that does not end the move and a roll are done
        # here as _do() does them; the history entries of these and of the
        # moves (tokens of one byte) are written as their fixed bytes.
        n = 0
        hist = self.history
        buf = hist.buf
        plain = not self.options["egg_dice"]
        added = 0  # actions pushed through the history's add(); the others'
        # entries are written here and counted in history.n at the end
        hi = rng.hi
        lo = rng.lo
        try:
            while True:
                ph = self.phase
                if ph == OVER:
                    return n
                if n >= max_actions:
                    self._too_long(max_actions)
                n += 1
                if ph != DIE and (ph != DECIDE or not plain):
                    rng.hi = hi
                    rng.lo = lo
                    self._push_random(rng, self.to_move())
                    added += 1
                    hi = rng.hi
                    lo = rng.lo
                    continue
                # rng's next 32-bit output, as in Rng.below()
                hi ^= ((hi << 13) | (lo >> 3)) & 0xFFFF
                lo ^= (lo << 13) & 0xFFFF
                lo ^= hi >> 1
                hi ^= ((hi << 5) | (lo >> 11)) & 0xFFFF
                lo ^= (lo << 5) & 0xFFFF
                if ph == DECIDE:
                    if lo & 1:  # below(2) is lo % 2: STOP_ROLL[1]
                        self.phase = DIE
                        buf += ROLL_ENTRY
                        continue
                    a = STOP
                else:
                    if hi == 0xFFFF and lo >= 65532:
                        # below(6) leaves out the top 2**32 % 6 outputs: it draws again
                        rng.hi = hi
                        rng.lo = lo
                        a = rng.below(6) + 1
                        hi = rng.hi
                        lo = rng.lo
                    else:
                        a = (hi * 4 + lo) % 6 + 1  # below(6), as 2**16 % 6 == 4
                    dice = self.dice
                    if not dice or (len(dice) == 1 and dice[0] + a <= LIMIT):
                        self.dice = dice + (a,)
                        self.phase = DECIDE
                        buf += DIE_ENTRIES[a]
                        continue
                # a move: a stop, a bust or die 3
                if self._do(a) == U_MOVE:
                    buf += MOVE_ENTRIES[a]
                else:
                    hist.add(a, U_NEST)
                    added += 1
        finally:
            rng.hi = hi
            rng.lo = lo
            hist.n += n - added

    def chance_for(self):
        # Die 1 is the moving player's, the next the decider's (who rolls them).
        if self.phase != DIE:
            return -1
        return self.decider if self.dice else self.player

    def busts(self, a):
        # A die that takes the dice over 7: the turtles go back to the raft.
        dice = self.dice
        return self.phase == DIE and dice != () and type(a) is int and 0 < a < 7 and sum(dice) + a > LIMIT

    # ---- doing and undoing ----------------------------------------------
    # Undo tokens are kept for the whole game, so they are small: a negative
    # int for a die, roll, egg card or turtle choice (undone from the state
    # itself) and a packed int for a turned-up card. A move (the only action
    # that shifts turtles) has the token U_MOVE (U_NEST for the last) and
    # leaves its record on self.moved, undone last in first out as the
    # tokens are: two packed ints, the scalars and dice before and where the
    # turtles came from (then the field, for the nest). On a list they take
    # a little more heap than packed in the history (mid-game, 6.8 bytes an
    # action of undo history on a 32-bit MicroPython against 5.2), where
    # writing them as varints cost more than the move itself.

    def _do(self, a):
        ph = self.phase
        if ph == DIE:
            dice = self.dice
            if not dice or (len(dice) == 1 and dice[0] + a <= LIMIT):
                # die 1, or die 2 within the limit: the decider says what next
                self.dice = dice + (a,)
                self.phase = DECIDE
                return U_DIE
            before = self._before(0)
            total = sum(dice) + a
            self.dice = dice + (a,)
            if total > LIMIT:
                return self._bust(before)
            return self._move(total * 3, before)
        if a == ROLL:
            self.phase = DIE
            return U_ROLL
        if a == STOP:
            dice = self.dice
            return self._move(sum(dice) * len(dice), self._before(0))
        if ph == REVEAL:
            token = self.player | (self.mover + 1) << 3 | (self.pending + 1) << 8
            v = a - EGG0
            self.seen[v] += 1
            self.faceup = v
            self.revealed += 1
            if self.mover < 0:
                self._start_turn()  # the first card, at setup
            else:
                self._next_move()
            return token
        if ph == CHOOSE:
            t = a - FIRST0
            self.pending = t ^ 1  # the player's other turtle
            self._begin_move(t)
            return U_CHOOSE
        # an egg card played as a die
        v = a - CARD0
        hand = self.won[self.decider]
        if len(self.dice) == 2:
            before = self._before(v)
        hand.remove(v)
        self.discarded.append(v)
        self.dice = self.dice + (v,)
        self.card_die = len(self.dice)
        if len(self.dice) == 3:
            return self._move(sum(self.dice) * 3, before)
        self.phase = DECIDE
        return U_CARD

    def _before(self, card):
        # The scalars a move changes and the dice so far, packed in 29 bits
        # (a small int on the Pico too); `card`: an egg card played as die 3.
        # A move comes after one or two dice (die 3 or a stop ends it).
        d = self.dice
        dice = d[0] << 23 if len(d) == 1 else (d[0] | d[1] << 3) << 23
        return (
            (1 if self.phase == DECIDE else 0) | self.player << 1 | (self.mover + 1) << 4
            | (self.pending + 1) << 8 | (self.decider + 1) << 12 | self.card_die << 15
            | self.faceup << 17 | card << 20 | dice
        )

    def _undo(self, token):
        if token == U_DIE:
            self.dice = self.dice[:-1]
            self.phase = DIE
        elif token == U_ROLL:
            self.phase = DECIDE
        elif token == U_CARD:
            v = self.dice[-1]
            self.dice = self.dice[:-1]
            self.card_die = 0
            self._give_back(v)
            self.phase = DECIDE
        elif token == U_CHOOSE:
            self.phase = CHOOSE
            self.mover = self.pending = self.decider = -1
            self.dice = ()
        elif token == U_MOVE:
            where = self.moved.pop()
            self._unmove(self.moved.pop(), where, 0)
        elif token == U_NEST:
            dest = self.moved.pop()
            where = self.moved.pop()
            self._unmove(self.moved.pop(), where, dest)
        else:  # an egg card turned up
            v = self.faceup
            self.seen[v] -= 1
            self.revealed -= 1
            self.faceup = 0
            self.phase = REVEAL
            self.player = token & 7
            self.mover = (token >> 3 & 31) - 1
            self.pending = (token >> 8) - 1
            self.decider = -1
            self.dice = ()
            self.card_die = 0

    def _unmove(self, before, where, nest_field):
        self.phase = DECIDE if before & 1 else DIE
        self.player = before >> 1 & 7
        self.mover = (before >> 4 & 15) - 1
        self.pending = (before >> 8 & 15) - 1
        self.decider = (before >> 12 & 7) - 1
        self.card_die = before >> 15 & 3
        self.faceup = before >> 17 & 7
        card = before >> 20 & 7
        dice = ()
        code = before >> 23
        while code:
            dice += (code & 7,)
            code >>= 3
        self.dice = dice
        self.nest_owner = -1
        self.first_card = where >> 20 & 7
        c = where & 127
        i = where >> 7 & 15
        n = where >> 11 & 15
        how = where >> 15 & 3
        taker = (where >> 17 & 7) - 1
        if taker >= 0:
            self.won[taker].remove(self.faceup)
        if card:
            self._give_back(card)
        if how == NESTED:
            dest = nest_field
            self.stacks[dest].append(self.stacks[-1].pop())
        elif how == BUSTED:
            dest = 0
        else:
            dest = self.pos[self.mover]
        if not n:
            return  # a bust on the raft: nothing moved
        there = self.stacks[dest]
        group = there[len(there) - n:]
        while n:
            there.pop()
            n -= 1
        if c == 0 and how != BUSTED:
            self.stacks[0].insert(i, group[0])
        else:
            self.stacks[c].extend(group)
        for t in group:
            self.pos[t] = c

    def _give_back(self, v):
        # An egg card played as a die goes back to the decider's hand.
        self.discarded.pop()
        hand = self.won[self.decider]
        hand.append(v)
        hand.sort()

    def _start_turn(self):
        # The player's turn: a choice of turtle (two each) or its move.
        if self.per == 2:
            self.phase = CHOOSE
            self.mover = -1
        else:
            self._begin_move(self.player)

    def _begin_move(self, t):
        self.mover = t
        self.dice = ()
        self.card_die = 0
        c = self.pos[t]
        self.decider = (self.stacks[c][-1] if c else t) // self.per
        self.phase = DIE

    def _end_move(self):
        # The move is done: forget its dice, then turn up a card or go on.
        # An egg card played in a turn's first move is remembered for the
        # second: one card per player per turn.
        self.first_card = self.decider + 1 if self.card_die and self.pending >= 0 else 0
        self.dice = ()
        self.card_die = 0
        self.decider = -1
        if self.phase == OVER:
            return
        if self.faceup == 0 and self.revealed < PILE:
            self.phase = REVEAL
        else:
            self._next_move()

    def _next_move(self):
        # After a move: the player's other turtle, or the next player.
        if self.pending >= 0:
            t = self.pending
            self.pending = -1
            self._begin_move(t)
        else:
            self.player = (self.player + 1) % self.players
            self._start_turn()

    def _lift(self):
        # Takes the mover and everything on it off its cell: (cell, index, group).
        m = self.mover
        c = self.pos[m]
        here = self.stacks[c]
        i = here.index(m)
        if c == 0:
            here.pop(i)  # the raft never stacks
            return c, i, [m]
        group = here[i:]
        del here[i:]
        return c, i, group

    def _bust(self, before):
        # The mover and everything on it go back to the raft, separately
        # (appended in order, so undo takes them back off its end).
        where = BUSTED << 15 | self.first_card << 20
        if self.pos[self.mover]:
            c, i, group = self._lift()
            raft = self.stacks[0]
            for t in group:
                raft.append(t)
                self.pos[t] = 0
            where |= c | i << 7 | len(group) << 11
        self._end_move()
        self.moved.append(before)
        self.moved.append(where)
        return U_MOVE

    def _move(self, d, before):
        first_card = self.first_card
        c, i, group = self._lift()
        f = self.fields
        if c == 0:
            dest = (d - 1) % f + 1
            passes = d >= self.beach
        else:
            dest = (c - 1 + d) % f + 1
            passes = d >= (self.beach - c - 1) % f + 1  # a full lap from the beach passes it
        there = self.stacks[dest]
        pos = self.pos
        for t in group:
            there.append(t)
            pos[t] = dest
        how = MOVED
        taker = -1
        if passes:
            top = group[-1]
            owner = top // self.per
            if self.faceup:
                taker = owner
                hand = self.won[owner]
                hand.append(self.faceup)
                hand.sort()
                self.faceup = 0
            else:
                # No card left: the nest. Its winner's turtle sits on it; the end.
                how = NESTED
                there.pop()
                self.stacks[f + 1].append(top)
                self.pos[top] = f + 1
                self.nest_owner = owner
                self.phase = OVER
        self._end_move()
        where = c | i << 7 | len(group) << 11 | how << 15 | (taker + 1) << 17 | first_card << 20
        moved = self.moved
        moved.append(before)
        moved.append(where)
        if how == NESTED:
            moved.append(dest)
            return U_NEST
        return U_MOVE

    # ---- the end ----------------------------------------------------------

    def result(self):
        if self.phase != OVER:
            return None
        scores = []
        keys = []
        for p in range(self.players):
            eggs = sum(self.won[p]) + (NEST_EGGS if p == self.nest_owner else 0)
            scores.append(eggs)
            keys.append((eggs, len(self.won[p])))  # most eggs, then most cards
        ranking = []
        for k in sorted(set(keys), reverse=True):
            ranking.append([p for p in range(self.players) if keys[p] == k])
        return {"scores": scores, "ranking": ranking, "winners": ranking[0]}

    # ---- notation -----------------------------------------------------------

    def turtle_name(self, t):
        if self.per == 1:
            return str(t + 1)
        return "%d%s" % (t // 2 + 1, "ab"[t % 2])

    def action_text(self, a):
        if 1 <= a <= 6:
            return "d%d" % a
        if EGG0 < a <= EGG0 + 6:
            return "e%d" % (a - EGG0)
        if a == ROLL:
            return "roll"
        if a == STOP:
            return "stop"
        if CARD0 < a <= CARD0 + 6:
            return "card%d" % (a - CARD0)
        if FIRST0 <= a < FIRST0 + self.turtles:
            return "first-" + self.turtle_name(a - FIRST0)
        raise ValueError("%r is no Mahé action" % (a,))

    def parse_action(self, text):
        t = text.strip().lower()
        if t == "roll":
            return ROLL
        if t == "stop":
            return STOP
        if t.startswith("card"):
            return CARD0 + parse_int(t[4:].strip(), "egg card", 1, 6)
        if t.startswith("first"):
            name = t[5:].strip(" -")
            for turtle in range(self.turtles):
                if self.turtle_name(turtle) == name:
                    return FIRST0 + turtle
            raise BadNotation(
                "%r: no turtle %r; the turtles are %s"
                % (text, name, ", ".join(self.turtle_name(x) for x in range(self.turtles)))
            )
        if t[:1] == "d":
            return parse_int(t[1:], "die face", 1, 6)
        if t[:1] == "e":
            return EGG0 + parse_int(t[1:], "egg card", 1, 6)
        raise BadNotation("%r is no Mahé action; the actions are %s" % (text, HOW))

    def explain_illegal(self, a):
        ph = self.phase
        if ph == OVER:
            return "the game is over"
        now = self._expected()
        if 1 <= a <= 6:
            if ph == DECIDE:
                return "player %d must first say roll or stop (%s)" % (self.decider + 1, now)
            return "no die is rolled now (%s)" % now
        if EGG0 < a <= EGG0 + 6:
            if ph == REVEAL:
                return "no %d egg card is left unseen (%s)" % (a - EGG0, now)
            return "no egg card is turned up now (%s)" % now
        if a == ROLL or a == STOP:
            if ph == DIE:
                return "the die must be rolled first (%s)" % now
            return "no dice decision now (%s)" % now
        if CARD0 < a <= CARD0 + 6:
            v = a - CARD0
            if not self.options["egg_dice"]:
                return "egg cards are played as dice only in the variant (option egg_dice=1)"
            if ph != DECIDE:
                return "an egg card can replace die 2 or 3 only when the decider would roll (%s)" % now
            if self.card_die:
                return "an egg card was already played in this move"
            if self.first_card == self.decider + 1:
                return "player %d already played an egg card this turn (one card a turn)" % (
                    self.decider + 1)
            if v not in self.won[self.decider]:
                return "player %d has no %d egg card" % (self.decider + 1, v)
            return "the total would be %d, over %d" % (sum(self.dice) + v, LIMIT)
        if FIRST0 <= a < FIRST0 + self.turtles:
            if ph == CHOOSE:
                return "turtle %s is not player %d's" % (self.turtle_name(a - FIRST0), self.player + 1)
            return "no turtle is to be chosen now (%s)" % now
        return "it is not one of the legal actions now"

    def _expected(self):
        ph = self.phase
        if ph == REVEAL:
            return "turn up the next egg card: e1..e6"
        if ph == CHOOSE:
            return "player %d chooses which turtle moves first: %s" % (
                self.player + 1, " or ".join(self.legal_texts()))
        if ph == DIE:
            return "roll die %d of turtle %s: d1..d6" % (
                len(self.dice) + 1, self.turtle_name(self.mover))
        if ph == DECIDE:
            return "player %d decides for turtle %s: %s" % (
                self.decider + 1, self.turtle_name(self.mover), ", ".join(self.legal_texts()))
        return "the game is over"

    # ---- state as text and data -------------------------------------------

    def state_key(self):
        parts = [
            "mahe %d %d %d %d %d" % (self.phase, self.player, self.mover, self.pending, self.decider),
            "dice " + ",".join(str(v) for v in self.dice) + " card %d %d" % (
                self.card_die, self.first_card),
            "up %d turned %d seen %s" % (self.faceup, self.revealed, ",".join(str(v) for v in self.seen)),
            "won " + "/".join(",".join(str(v) for v in hand) for hand in self.won),
            "discarded " + ",".join(str(v) for v in self.discarded),
            "nest %d" % self.nest_owner,
            "raft " + ",".join(str(t) for t in sorted(self.stacks[0])),
            "cells " + "/".join(",".join(str(t) for t in s) for s in self.stacks[1:]),
        ]
        return "|".join(parts)

    def view(self, player):
        return self._data(player, False)

    def snapshot(self):
        return self._data(None, True)

    def _data(self, player, everything):
        names = self.cells()
        cells = {}
        for c in range(len(self.stacks)):
            if self.stacks[c]:
                on = sorted(self.stacks[c]) if c == 0 else self.stacks[c]
                cells[names[c]] = [self.turtle_name(t) for t in on]
        # Won egg cards lie face down before their owner: others see the count.
        values = []
        for p in range(self.players):
            if everything or p == player or self.phase == OVER:
                values.append(list(self.won[p]))
            else:
                values.append(None)
        return {
            "game": self.name,
            "players": self.players,
            "turn": self.player,
            "phase": PHASE_NAMES[self.phase],
            "to_move": self.to_move(),
            "mover": self.turtle_name(self.mover) if self.mover >= 0 else None,
            "decider": self.decider if self.phase in (DIE, DECIDE) else None,
            "dice": list(self.dice),
            "card_die": self.card_die,
            "faceup": self.faceup or None,
            "pile": PILE - self.revealed,
            "cells": cells,
            "cards": [len(hand) for hand in self.won],
            "card_values": values,
            "discarded": list(self.discarded),
            "nest": self.nest_owner if self.nest_owner >= 0 else None,
            "result": self.result(),
        }

    def cells(self):
        return ["raft"] + [str(i) for i in range(1, self.fields + 1)] + ["nest"]

    def image(self):
        return [UP if s else EMPTY for s in self.stacks]

    def turtles_of(self, player):
        # The turtle numbers of a player.
        return list(range(player * self.per, (player + 1) * self.per))

    # ---- snapshot (the game log's S lines; Game.resume) -------------------

    STATE = ("stacks", "pos", "seen", "won", "discarded", "phase", "player", "mover", "pending",
             "decider", "dice", "card_die", "first_card", "faceup", "revealed", "nest_owner")

    def _loaded(self):
        self.dice = tuple(self.dice)


def read_geometry(g):
    # The board's track: {"fields": F, "beach": B}; default the real board.
    if g is None:
        return 21, 21
    if not isinstance(g, dict):
        raise BadSetup("Mahé geometry must be an object like %s" % '{"fields": 21, "beach": 21}')
    for k in sorted(g):
        if k not in ("fields", "beach"):
            raise BadSetup("unknown Mahé geometry key %r; the keys are fields, beach" % (k,))
    fields = g.get("fields", 21)
    beach = g.get("beach", fields)
    if not isinstance(fields, int) or isinstance(fields, bool) or not 2 <= fields <= 99:
        raise BadSetup("Mahé geometry: fields must be a whole number 2..99, not %r" % (fields,))
    if not isinstance(beach, int) or isinstance(beach, bool) or not 1 <= beach <= fields:
        raise BadSetup("Mahé geometry: beach must be a field 1..%d, not %r" % (fields, beach))
    return fields, beach
