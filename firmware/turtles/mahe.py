# Mahé (Alex Randolph), RULES.md §1: turtles swim round the island, ride on
# each other's backs and lay eggs whenever they reach or pass the beach.
#
# Cells: the raft (index 0), fields 1..F (the beach is one of them, 21 on the
# real board), the nest (index F + 1). Each cell holds a stack of turtles,
# bottom first; the raft never stacks (its list is kept sorted).
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
from .game import CHANCE, EMPTY, TERMINAL, UP, Game, parse_int

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
        self.faceup = 0  # value of the face-up egg card, 0: none
        self.revealed = 0  # egg cards turned up so far (at most PILE)
        self.nest_owner = -1  # who won the nest
        self._saved = None

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
            if self.options["egg_dice"] and not self.card_die:
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

    # ---- doing and undoing ----------------------------------------------

    def _do(self, a):
        self._saved = saved = []  # (list, its contents before) for each list changed
        token = (
            self.phase, self.player, self.mover, self.pending, self.decider, self.dice,
            self.card_die, self.faceup, self.revealed, self.nest_owner, saved,
        )
        ph = self.phase
        if ph == DIE:
            dice = self.dice + (a,)
            self.dice = dice
            total = sum(dice)
            if len(dice) == 1:
                self.phase = DECIDE
            elif total > LIMIT:
                self._bust()
            elif len(dice) == 3:
                self._move(total * 3)
            else:
                self.phase = DECIDE
        elif a == ROLL:
            self.phase = DIE
        elif a == STOP:
            self._move(sum(self.dice) * len(self.dice))
        elif ph == REVEAL:
            v = a - EGG0
            self._keep(self.seen)
            self.seen[v] += 1
            self.faceup = v
            self.revealed += 1
            if self.mover < 0:
                self._start_turn()  # the first card, at setup
            else:
                self._next_move()
        elif ph == CHOOSE:
            t = a - FIRST0
            self.pending = t ^ 1  # the player's other turtle
            self._begin_move(t)
        else:  # an egg card played as a die
            v = a - CARD0
            hand = self.won[self.decider]
            self._keep(hand)
            hand.remove(v)
            self._keep(self.discarded)
            self.discarded.append(v)
            self.dice = self.dice + (v,)
            self.card_die = len(self.dice)
            if len(self.dice) == 3:
                self._move(sum(self.dice) * 3)
            else:
                self.phase = DECIDE
        return token

    def _undo(self, token):
        (
            self.phase, self.player, self.mover, self.pending, self.decider, self.dice,
            self.card_die, self.faceup, self.revealed, self.nest_owner, saved,
        ) = token
        i = len(saved) - 1
        while i >= 0:
            lst, before = saved[i]
            lst.clear()
            lst.extend(before)
            i -= 1

    def _keep(self, lst):
        self._saved.append((lst, list(lst)))

    def _start_turn(self):
        if self.per == 2:
            self.phase = CHOOSE
            self.mover = -1
        else:
            self._begin_move(self.player)

    def _begin_move(self, t):
        self.mover = t
        self.dice = ()
        self.card_die = 0
        self.decider = self.stacks[self.pos[t]][-1] // self.per if self.pos[t] else t // self.per
        self.phase = DIE

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
        # Takes the mover and everything on it off its cell: (cell, group).
        m = self.mover
        c = self.pos[m]
        here = self.stacks[c]
        self._keep(here)
        self._keep(self.pos)
        if c == 0:
            here.remove(m)  # the raft never stacks
            return c, [m]
        i = here.index(m)
        group = here[i:]
        while len(here) > i:
            here.pop()
        return c, group

    def _bust(self):
        # The mover and everything on it go back to the raft, separately.
        if self.pos[self.mover]:
            c, group = self._lift()
            raft = self.stacks[0]
            self._keep(raft)
            for t in group:
                raft.append(t)
                self.pos[t] = 0
            raft.sort()
        self._next_move()

    def _move(self, d):
        c, group = self._lift()
        f = self.fields
        if c == 0:
            dest = (d - 1) % f + 1
            passes = d >= self.beach
        else:
            dest = (c - 1 + d) % f + 1
            passes = d >= (self.beach - c - 1) % f + 1  # a full lap from the beach passes it
        there = self.stacks[dest]
        self._keep(there)
        for t in group:
            there.append(t)
            self.pos[t] = dest
        if passes:
            top = group[-1]
            owner = top // self.per
            if self.faceup:
                hand = self.won[owner]
                self._keep(hand)
                hand.append(self.faceup)
                hand.sort()
                self.faceup = 0
                if self.revealed < PILE:
                    self.phase = REVEAL
                    return
            else:
                # No card left: the nest. Its winner's turtle sits on it; the end.
                nest = self.stacks[f + 1]
                self._keep(nest)
                there.pop()
                nest.append(top)
                self.pos[top] = f + 1
                self.nest_owner = owner
                self.phase = OVER
                return
        self._next_move()

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
            "dice " + ",".join(str(v) for v in self.dice) + " card %d" % self.card_die,
            "up %d turned %d seen %s" % (self.faceup, self.revealed, ",".join(str(v) for v in self.seen)),
            "won " + "/".join(",".join(str(v) for v in hand) for hand in self.won),
            "discarded " + ",".join(str(v) for v in self.discarded),
            "nest %d" % self.nest_owner,
            "cells " + "/".join(",".join(str(t) for t in s) for s in self.stacks),
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
                cells[names[c]] = [self.turtle_name(t) for t in self.stacks[c]]
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
