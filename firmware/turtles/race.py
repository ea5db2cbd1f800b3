# The Turtle Race (La Course des Tortues, Reiner Knizia), RULES.md section 2.
#
# Fields 0 (start) .. fields+1 (lettuce); each field holds a stack of
# turtles, bottom first. Cards are "kinds" 0..18 (see CARD_NAMES); a pile is
# a list of 19 counts, so a shuffled pile is its composition and each draw
# is a chance action weighted by what the pile still holds. The reshuffle
# therefore needs no action of its own: the played cards become the pile
# and the next draws are the chance.
#
# mode=dealt: the engine deals colours and cards and knows every hand.
# mode=physical: the players hold real cards; a play is the card shown, and
# the engine checks it against the board and against the cards the played
# pile already holds (docs/rulings.md says exactly what it can check).

from .errors import BadNotation, BadSetup
from .game import CHANCE, EMPTY, TERMINAL, UP, Game, History, parse_int
from .rng import Rng

COLOURS = ("red", "yellow", "green", "blue", "purple")

# Card kinds: colour c has c*3 ("++"), c*3+1 ("+"), c*3+2 ("-"); then rainbow.
RAINBOW_PLUS = 15
RAINBOW_MINUS = 16
ARROW = 17         # "↑": a rearmost turtle one field forward
DOUBLE_ARROW = 18  # "↑↑": a rearmost turtle two fields forward
KINDS = 19
CARD_NAMES = tuple(
    [c + s for c in COLOURS for s in ("++", "+", "-")] + ["*+", "*-", "^", "^^"]
)
DECK = (1, 5, 2) * 5 + (5, 2, 3, 2)  # how many of each kind: 52 cards
STEP = (2, 1, -1) * 5 + (1, -1, 1, 2)
HAND = 5
ORDINALS = ("first", "second", "third", "fourth", "fifth", "sixth")

# Action codes (small ints).
PLAY = 0          # kind * 5 + turtle: 0..94
DRAW = 100        # + kind: a card drawn (dealt mode; chance)
SHOW = 120        # + kind: a card of a dead hand shown (physical mode; chance)
COLOUR = 200      # + player * 5 + colour: whose turtle is which
STACK = 300       # + turtle: the next turtle on the start stack, bottom first
DISCARD = 400     # no card can be played: show the hand and take five new
# Flags of a draw's undo token
DEALING = 512      # the card was dealt
PASSING = 1024     # the turn was to pass after the draws
RESHUFFLED = 2048  # the played pile had become the draw pile first

NOTATION_HELP = (
    "expected a card like red+, red++, red-, *+blue, *-blue, ^green, ^^green, "
    "or draw red+, show red-, colour 2 red, stack red, discard"
)


def _colour(text):
    for i in range(5):
        if COLOURS[i] == text:
            return i
    raise BadNotation("%r is no turtle colour; the colours are %s" % (text, ", ".join(COLOURS)))


def _kind(text):
    for k in range(KINDS):
        if CARD_NAMES[k] == text:
            return k
    raise BadNotation(
        "%r is no card; cards are red++ red+ red- (and the other colours), *+ *- ^ ^^" % text
    )


def _is_action(a):
    # Is `a` one of the action codes above (whether legal now or not)?
    if not isinstance(a, int) or isinstance(a, bool) or a < 0:
        return False
    if a < DRAW:
        return a < KINDS * 5
    if a < SHOW:
        return a < DRAW + KINDS
    if a < COLOUR:
        return a < SHOW + KINDS
    if a < STACK:
        return a < COLOUR + 25
    if a < DISCARD:
        return a < STACK + 5
    return a == DISCARD


def _cards(counts):
    # A pile's cards in kind order: the i-th is the card that a draw
    # weighted by the counts picks for i (see rng.weighted()).
    out = []
    for k in range(KINDS):
        out.extend([k] * counts[k])
    return out


def _entry(action, token):
    # One history entry's bytes, as History.add() writes them.
    h = History()
    h.add(action, token)
    return bytes(h.buf)


def _step_tables():
    # One xorshift32 step is linear in the state's bits, so the new state
    # is the XOR of what each of its four bytes alone steps to: (high half,
    # low half) of byte 3 (the top), 2, 1, 0, each by the byte's value,
    # worked out by Rng itself. Indexed by small ints, they hand out ints
    # already made, where the shifts would make new ones.
    r = Rng()
    out = []
    for shift in (24, 16, 8, 0):
        his = []
        los = []
        for b in range(256):
            r.hi = (b << shift - 16) if shift >= 16 else 0
            r.lo = (b << shift) if shift < 16 else 0
            r._step()
            his.append(r.hi)
            los.append(r.lo)
        out.append(tuple(his))
        out.append(tuple(los))
    return tuple(out)


# The playout's tables (Race._race()), made on its first use: the board
# never plays a Race playout (its players hold real cards), so its heap
# never holds them.
_tables = None


def _playout_tables():
    global _tables
    if _tables is None:
        _tables = (
            [0] * KINDS,  # an empty hand
            bytes(_cards(DECK)),  # a full draw pile, card by card
            _step_tables(),
            tuple(65536 % c if c else 0 for c in range(53)),  # 2**16 % c (c <= 52 cards)
            tuple(k * 5 + k // 3 for k in range(15)),  # the play of colour card k
            tuple(tuple(k * 5 + t for t in range(5)) for k in range(15, KINDS)),  # *+ *- ^ ^^
            # A draw's history entry: DRAW + k as a varint (two bytes), then
            # its token's varint, whose first byte is the same (the flags and
            # the turn are above it), then the entry's length. The dealt
            # card's whole entry; the rest of a drawn card's after a play, by
            # whose turn it is.
            tuple(_entry(DRAW + k, DRAW + k)[:3] for k in range(KINDS)),
            tuple(_entry(DRAW + k, DRAW + k | DEALING) for k in range(KINDS)),
            tuple(_entry(DRAW, DRAW | PASSING | p << 12)[3:] for p in range(5)),
            # a play's entry up to its token's first byte: HEADS[a]
            tuple(_entry(a, a | 1 << 9)[:-2] for a in range(KINDS * 5)),
            # the entries of player p's colour c (p * 5 + c), then the start stack's
            tuple(_entry(a, a) for a in list(range(COLOUR, COLOUR + 25)) + list(range(STACK, STACK + 5))),
        )
    return _tables


def card_name(kind):
    return CARD_NAMES[kind].replace("^", "↑")


class Race(Game):
    name = "race"
    title = "The Turtle Race"
    min_players = 2
    max_players = 5
    OPTIONS = (
        ("mode", "dealt", ("dealt", "physical")),
        ("open_colours", 0, (0, 1)),
        ("start", "stacked", ("stacked", "side_by_side")),
    )
    DEFAULT_GEOMETRY = {"fields": 8}

    # ---- set-up ----------------------------------------------------------

    def setup(self):
        geo = self.geometry if self.geometry is not None else self.DEFAULT_GEOMETRY
        fields = geo.get("fields", 8) if isinstance(geo, dict) else None
        if not isinstance(fields, int) or isinstance(fields, bool) or not 2 <= fields <= 40:
            raise BadSetup("race geometry needs \"fields\": a whole number 2..40, got %r" % (geo,))
        self.fields = fields
        self.lettuce = fields + 1
        self.dealt = self.options["mode"] == "dealt"
        self.open = self.options["open_colours"] == 1
        self.side = self.options["start"] == "side_by_side"
        self.stacks = [[] for _ in range(fields + 2)]
        self.pos = [0] * 5
        if self.side:
            self.stacks[0] = [0, 1, 2, 3, 4]
            self.stack_left = 0
        else:
            self.stack_left = 5
        p = self.players
        self.colour_of = [-1] * p
        self.colour_next = 0       # the next player whose colour is set
        self.colours_first = self.dealt or self.open
        self.hands = [[0] * KINDS for _ in range(p)]  # dealt mode only
        self.draw = list(DECK)                        # dealt mode: composition
        # dealt: the deal is drawn as chances; physical: it happened unseen
        self.draw_n = 52 if self.dealt else 52 - HAND * p
        self.deal_left = HAND * p if self.dealt else 0
        self.played = [0] * KINDS
        self.played_n = 0
        self.turn = 0
        self.draw_left = 0     # chance draws owed by self.turn (dealt mode)
        self.passing = False   # when those draws are done, the turn passes
        self.show_left = 0     # dead-hand cards still to show (physical mode)
        self.last = -1         # the last card played (its play action)

    # ---- whose decision --------------------------------------------------

    def to_move(self):
        if self.stack_left:
            return CHANCE
        if self.colours_first and self.colour_next < self.players:
            return self.colour_next if self.open else CHANCE
        if self.deal_left:
            return CHANCE
        if self.stacks[self.lettuce]:
            return CHANCE if self.colour_next < self.players else TERMINAL
        if self.draw_left or self.show_left:
            return CHANCE
        return self.turn

    def chance_for(self):
        # A card drawn after a play, or shown from a dead hand: that player's.
        if self.to_move() != CHANCE or self.stack_left or self.deal_left \
                or (self.colour_next < self.players and (self.colours_first or self.stacks[self.lettuce])):
            return -1
        return self.turn

    def chance_outcomes(self):
        if self.to_move() != CHANCE:
            return []
        if self.stack_left:
            placed = self.stacks[0]
            return [(STACK + t, 1) for t in range(5) if t not in placed]
        if self.colour_next < self.players and (self.colours_first or self.stacks[self.lettuce]):
            return [(a, 1) for a in self._colour_actions()]
        if self.deal_left or self.draw_left:
            pile = self.draw if self.draw_n else self.played
            return [(DRAW + k, pile[k]) for k in range(KINDS) if pile[k]]
        if self.show_left:
            return [(SHOW + k, DECK[k] - self.played[k]) for k in self._dead_kinds()]
        return []

    def _colour_actions(self):
        base = COLOUR + self.colour_next * 5
        taken = self.colour_of
        return [base + c for c in range(5) if c not in taken]

    def legal_actions(self):
        who = self.to_move()
        if who == TERMINAL:
            return []
        if who == CHANCE:
            return [a for a, _ in self.chance_outcomes()]
        if self.colours_first and self.colour_next < self.players:
            return self._colour_actions()  # open colours: the player chooses
        plays = self._plays()
        if self.dealt:
            return plays if plays else [DISCARD]
        if self._dead_possible():
            plays.append(DISCARD)
        return plays

    def _plays(self):
        # Every use of a card the player to move holds (dealt) or could hold
        # (physical: the played pile does not hold all of that kind).
        if self.dealt:
            have = self.hands[self.turn]
        else:
            have = [DECK[k] - self.played[k] for k in range(KINDS)]
        pos = self.pos
        # a colour card k plays k * 5 + its colour; "-" not from the start
        out = [k * 5 + k // 3 for k in range(15) if have[k] and (k % 3 != 2 or pos[k // 3])]
        if have[RAINBOW_PLUS]:
            out.extend((75, 76, 77, 78, 79))  # RAINBOW_PLUS * 5 + turtle
        if have[RAINBOW_MINUS]:
            out.extend([RAINBOW_MINUS * 5 + t for t in range(5) if pos[t]])
        if have[ARROW] or have[DOUBLE_ARROW]:
            rear = min(pos)
            for k in (ARROW, DOUBLE_ARROW):
                if have[k]:
                    out.extend([k * 5 + t for t in range(5) if pos[t] == rear])
        return out

    def playout(self, rng, max_actions=100000):
        # Game.playout() without its generic calls (physical mode, or another
        # kind of rng: that one). The same actions from the same draws of
        # rng, the same history and the same state at the end.
        if not self.dealt or type(rng) is not Rng:
            return Game.playout(self, rng, max_actions)
        n, over = self._run(rng, max_actions)
        if not over:
            self._too_long(max_actions)
        return n

    def random_play(self, rng, limit):
        # Game.random_play() by the playout's loop (which records them: the
        # history costs it less than the calls it saves).
        if not self.dealt or type(rng) is not Rng:
            return Game.random_play(self, rng, limit)
        return self._run(rng, limit)[0]

    def _run(self, rng, limit):
        # _race() until the race ends or `limit` actions are played; a hand
        # discarded is the one step done outside it. -> (actions, ended)
        n = 0
        while True:
            n, stop = self._race(rng, n, limit)
            if stop != DISCARD:
                return n, stop == TERMINAL
            self.push(DISCARD)  # its draw is made: rng.below(1), as choice([DISCARD])
            n += 1

    def _race(self, rng, n, max_actions):
        # Dealt mode: plays random actions until the race ends (-> TERMINAL),
        # a hand must be discarded (-> DISCARD, its draw made, not done) or
        # max_actions are played (-> CHANCE). Everything in locals:
        #  - a draw is the card rng.below(cards in the pile) in `cards`, the
        #    pile card by card in kind order (what rng.weighted() picks);
        #  - a play is legal_actions()[rng.below(how many)], listed from
        #    each hand's `colours` (the plays of its colour cards, in order)
        #    and `others` (its other kinds, in order);
        #  - rng.below() and History.add() are written out here (the same
        #    numbers and the same bytes): their calls cost more than the rules.
        (NO_CARDS, DECK_CARDS, STEPS, MOD16, PLAY_OF, FIVE_PLAYS, DRAW_BYTES, DEAL_BYTES,
         PASS_TAILS, HEADS, TELLS) = _tables or _playout_tables()
        stacks = self.stacks
        pos = self.pos
        hands = self.hands
        colours = []
        others = []
        for h in hands:
            if h == NO_CARDS:
                colours.append([])
                others.append([])
            else:
                colours.append([PLAY_OF[k] for k in range(15) if h[k]])
                others.append([k for k in range(15, KINDS) if h[k]])
        lettuce = self.lettuce
        players = self.players
        side = self.side
        stack_left = self.stack_left
        colour_next = self.colour_next
        colour_of = self.colour_of
        setup = stack_left + players - colour_next
        if setup:  # the turtles not on the start stack yet, the colours not taken
            start = stacks[0]
            unplaced = [t for t in range(5) if t not in start] if start else [0, 1, 2, 3, 4]
            free = [c for c in range(5) if c not in colour_of] if colour_next else [0, 1, 2, 3, 4]
        draw = self.draw
        played = self.played
        draw_n = self.draw_n
        played_n = self.played_n
        turn = self.turn
        draw_left = self.draw_left
        passing = self.passing
        deal_left = self.deal_left
        deal_to = (HAND * players - deal_left) % players  # who is dealt the next card
        last = self.last
        cards = list(DECK_CARDS) if draw_n == 52 else _cards(draw)
        hist = self.history
        hist.pack()  # an entry held (push_held()) goes before the playout's
        buf = hist.buf
        n0 = n
        hi = rng.hi
        lo = rng.lo
        HI3, LO3, HI2, LO2, HI1, LO1, HI0, LO0 = STEPS
        for n in range(n0, max_actions):  # noqa: B007 (n: the actions so far, read after)
            if setup:  # the start stack, then the colours (as _tell())
                plays = unplaced if stack_left else free
                c = len(plays)
            elif deal_left or draw_left:
                plays = None
                c = draw_n or played_n  # empty: the played cards reshuffled
            elif stacks[lettuce]:
                stop = TERMINAL
                break
            else:  # legal_actions(): the plays of each kind held, in kind order
                plays = colours[turn]  # (only read, unless copied first)
                if stacks[0]:  # a "-" (play 16 * turtle + 10) not from the start
                    plays = []
                    for a in colours[turn]:
                        if a & 15 != 10 or pos[a >> 4]:
                            plays.append(a)
                elif others[turn]:
                    plays = plays[:]
                for k in others[turn]:
                    if k == RAINBOW_PLUS or k == RAINBOW_MINUS and not stacks[0]:
                        plays += FIVE_PLAYS[k - 15]  # any turtle; off the start
                    elif k == RAINBOW_MINUS:
                        for t in range(5):
                            if pos[t]:
                                plays.append(80 + t)
                    else:  # the turtles on the rearmost field
                        rear = stacks[min(pos)]
                        if len(rear) == 1:
                            plays.append(k * 5 + rear[0])
                        elif len(rear) == 5:
                            plays += FIVE_PLAYS[k - 15]
                        else:
                            for t in sorted(rear):
                                plays.append(k * 5 + t)
                c = len(plays) or 1
            # i = rng.below(c): xorshift32 on halves, the top 2**32 % c
            # outputs left out; c < 2**14, so hi * m + lo is a small int.
            # A step is the XOR of what each byte of the state steps to.
            m = MOD16[c]
            while True:
                b3 = hi >> 8
                b2 = hi & 255
                b1 = lo >> 8
                b0 = lo & 255
                hi = HI3[b3] ^ HI2[b2] ^ HI1[b1] ^ HI0[b0]
                lo = LO3[b3] ^ LO2[b2] ^ LO1[b1] ^ LO0[b0]
                if hi < 0xFFFF or lo < 65536 - (m * m) % c:
                    break
            i = (hi * m + lo) % c
            if plays is None:  # a card drawn (as _draw())
                if draw_n:
                    f = 3  # the token's second byte in the history: a >> 5 | flags >> 5
                else:
                    f = 67  # RESHUFFLED
                    draw = played
                    played = [0] * KINDS
                    draw_n = played_n
                    played_n = 0
                    cards = _cards(draw)
                k = cards.pop(i)
                draw[k] -= 1
                draw_n -= 1
                # History.add(DRAW + k, its token): both varints of 4 times
                # their value; the token is DRAW + k | flags | turn << 12
                if deal_left:  # (no reshuffle: 52 cards for at most 25)
                    p = deal_to
                    deal_to += 1
                    if deal_to == players:
                        deal_to = 0
                    deal_left -= 1
                    buf += DEAL_BYTES[k]
                else:
                    p = turn
                    buf += DRAW_BYTES[k]
                    if passing and f == 3:  # after a play, no reshuffle: the common draw
                        buf += PASS_TAILS[p]
                    else:
                        if passing:
                            f |= 32  # PASSING
                        if p:
                            buf.append(f | 128)
                            buf.append(p)
                            buf.append(5)
                        else:
                            buf.append(f)
                            buf.append(4)
                    draw_left -= 1
                    if not draw_left and passing:
                        turn += 1
                        if turn == players:
                            turn = 0
                        passing = False
                h = hands[p]
                if not h[k]:
                    if k < 15:
                        hand = colours[p]
                        hand.append(PLAY_OF[k])
                    else:
                        hand = others[p]
                        hand.append(k)
                    hand.sort()
                h[k] += 1
                continue
            if setup:  # its history entry whole from the table (as History.add(a, a))
                x = plays.pop(i)
                if stack_left:
                    stacks[0].append(x)
                    stack_left -= 1
                    buf += TELLS[25 + x]
                else:
                    buf += TELLS[colour_next * 5 + x]
                    colour_of[colour_next] = x
                    colour_next += 1
                setup -= 1
                continue
            elif not plays:
                stop = DISCARD
                break
            else:  # a card played (as _play_dealt() and _move())
                a = plays[i]
                k = a // 5
                t = a % 5
                h = hands[turn]
                h[k] -= 1
                if not h[k]:
                    if k < 15:
                        colours[turn].remove(a)
                    else:
                        others[turn].remove(k)
                played[k] += 1
                played_n += 1
                p = pos[t]
                stack = stacks[p]
                j = stack.index(t)
                q = p + STEP[k]
                if q > lettuce:
                    q = lettuce
                if j == len(stack) - 1:  # alone, from the top
                    stack.pop()
                    stacks[q].append(t)
                    pos[t] = q
                elif p == 0 and side:
                    del stack[j]
                    stacks[q].append(t)
                    pos[t] = q
                else:
                    moving = stack[j:]
                    del stack[j:]
                    stacks[q].extend(moving)
                    for t in moving:
                        pos[t] = q
                # History.add(a, token), token = a | (last + 1) << 9 | p << 16
                # | j << 22: the varints of 4 * a and 4 * token, 7 bits a byte,
                # then the entry's length. HEADS[a]: a's varint and the
                # token's first byte (g0); g1..g3: the token's next bytes.
                x = last + 1
                g1 = a >> 5 | (x & 7) << 4
                g2 = x >> 3 | (p & 7) << 4
                g3 = p >> 3 | j << 3
                last = a
                if q != lettuce:
                    draw_left = 1
                    passing = True
                if g3:
                    head = HEADS[a]
                    buf += head
                    buf.append(g1 | 128)
                    buf.append(g2 | 128)
                    buf.append(g3)
                    buf.append(len(head) + 3)
                elif g2:
                    head = HEADS[a]
                    buf += head
                    buf.append(g1 | 128)
                    buf.append(g2)
                    buf.append(len(head) + 2)
                elif g1:
                    head = HEADS[a]
                    buf += head
                    buf.append(g1)
                    buf.append(len(head) + 1)
                else:  # the token is a < 32 (the first play, from the start)
                    buf.append(a << 2)
                    buf.append(a << 2)
                    buf.append(2)
        else:  # max_actions played: the race may have ended with the last
            n = max(n0, max_actions)
            if not setup and not deal_left and not draw_left and stacks[lettuce]:
                stop = TERMINAL
            else:
                stop = CHANCE
        hist.n += n - n0
        rng.hi = hi
        rng.lo = lo
        self.draw = draw
        self.played = played
        self.draw_n = draw_n
        self.played_n = played_n
        self.turn = turn
        self.draw_left = draw_left
        self.passing = passing
        self.deal_left = deal_left
        self.last = last
        self.stack_left = stack_left
        self.colour_next = colour_next
        return n, stop

    def _dead_kinds(self):
        # Kinds that cannot be played now and that a hand could still hold:
        # "-" cards whose turtle is on the start ("*-" if all are there).
        out = []
        for c in range(5):
            k = c * 3 + 2
            if self.pos[c] == 0 and self.played[k] < DECK[k]:
                out.append(k)
        if max(self.pos) == 0 and self.played[RAINBOW_MINUS] < DECK[RAINBOW_MINUS]:
            out.append(RAINBOW_MINUS)
        return out

    def _dead_possible(self):
        # Physical mode: could some hand of five hold no playable card?
        n = 0
        for k in self._dead_kinds():
            n += DECK[k] - self.played[k]
        return n >= HAND

    # ---- doing and undoing -----------------------------------------------
    # Undo tokens. Most are one int below 2**30 (a small int on the Pico):
    #   a play (dealt)  a | (last before + 1) << 9 | field left << 16 | its stack index << 22
    #   a draw          a | DEALING | PASSING (before) | RESHUFFLED | turn before << 12
    #   colour, stack   a
    # The rest: (the scalars before, the action, what else changed).

    def _scalars(self):
        return (self.turn, self.draw_left, self.passing, self.show_left, self.last,
                self.draw_n, self.played_n)

    def _restore(self, s):
        (self.turn, self.draw_left, self.passing, self.show_left, self.last,
         self.draw_n, self.played_n) = s

    def _do(self, a):
        if a < DRAW and self.dealt:
            return self._play_dealt(a)
        if a < SHOW and a >= DRAW:
            return self._draw(a - DRAW)
        if a >= COLOUR and a < DISCARD:
            return self._tell(a)
        saved = self._scalars()
        if a < DRAW:
            return (saved, a, self._play(a))
        if a < COLOUR:
            return (saved, a, self._show(a - SHOW))
        return (saved, a, self._discard())

    def _undo(self, token):
        if type(token) is int:
            a = token & 511
            if a < DRAW:
                self._unplay_dealt(token)
            elif a < SHOW:
                self._undraw(token)
            elif a < STACK:
                self.colour_next -= 1
                self.colour_of[self.colour_next] = -1
            else:
                self.stacks[0].pop()
                self.stack_left += 1
            return
        saved, a, extra = token
        self._restore(saved)
        if a < DRAW:
            mv, old = extra
            self._unmove(mv)
            if old is not None:
                self.played = old
            self.played[a // 5] -= 1
        elif a < COLOUR:
            if extra is not None:
                self.played = extra
            self.played[a - SHOW] -= 1
        elif extra is not None:
            for k in range(KINDS):
                self.played[k] -= extra[k]
            self.hands[self.turn] = extra

    def _tell(self, a):
        # A player's colour, or the next turtle of the start stack.
        if a < STACK:
            self.colour_of[(a - COLOUR) // 5] = (a - COLOUR) % 5
            self.colour_next += 1
        else:
            self.stacks[0].append(a - STACK)
            self.stack_left -= 1
        return a

    def _play_dealt(self, a):
        # Before a play nothing is owed (no draw, no passing, no dead hand);
        # after it the player draws one card, then the turn passes.
        k = a // 5
        self.hands[self.turn][k] -= 1
        self.played[k] += 1
        self.played_n += 1
        token = a | (self.last + 1) << 9
        self.last = a
        mv = self._move(a % 5, STEP[k])
        if not self.stacks[self.lettuce]:
            self.draw_left = 1
            self.passing = True
        return token | mv[1] << 16 | mv[2] << 22

    def _unplay_dealt(self, token):
        a = token & 511
        k = a // 5
        t = a % 5
        p = token >> 16 & 63
        q = p + STEP[k]
        if q > self.lettuce:
            q = self.lettuce
        dest = self.stacks[q]
        self._unmove((t, p, token >> 22, q, len(dest) - dest.index(t)))
        self.draw_left = 0
        self.passing = False
        self.last = (token >> 9 & 127) - 1
        self.played_n -= 1
        self.played[k] -= 1
        self.hands[self.turn][k] += 1

    def _play(self, a):
        # Physical mode: the card shown; the unseen draw is counted.
        self.played[a // 5] += 1
        self.played_n += 1
        self.last = a
        mv = self._move(a % 5, STEP[a // 5])
        old_played = None
        if not self.stacks[self.lettuce]:
            old_played = self._count_draws(1)
            self.turn = (self.turn + 1) % self.players
        return (mv, old_played)

    def _count_draws(self, n):
        # Physical mode: the draws we cannot see, counted. Returns the played
        # counts before a reshuffle (for undo), or None.
        old = None
        for _ in range(n):
            if self.draw_n == 0:
                old = self.played
                self.played = [0] * KINDS
                self.draw_n = self.played_n
                self.played_n = 0
            self.draw_n -= 1
        return old

    def _draw(self, k):
        # Dealt mode: card k comes off the draw pile (reshuffled if empty:
        # the played cards become the pile, and the empty pile's counts, all
        # 0, are the new played pile).
        token = DRAW + k
        if self.draw_n == 0:
            token |= RESHUFFLED
            self.draw = self.played
            self.played = [0] * KINDS
            self.draw_n = self.played_n
            self.played_n = 0
        self.draw[k] -= 1
        self.draw_n -= 1
        if self.deal_left:
            self.hands[(HAND * self.players - self.deal_left) % self.players][k] += 1
            self.deal_left -= 1
            return token | DEALING
        token |= (PASSING if self.passing else 0) | self.turn << 12
        self.hands[self.turn][k] += 1
        self.draw_left -= 1
        if self.draw_left == 0 and self.passing:
            self.turn = (self.turn + 1) % self.players
            self.passing = False
        return token

    def _undraw(self, token):
        k = (token & 511) - DRAW
        self.draw[k] += 1
        self.draw_n += 1
        if token & DEALING:
            self.deal_left += 1
            self.hands[(HAND * self.players - self.deal_left) % self.players][k] -= 1
        else:
            self.passing = (token & PASSING) != 0
            self.turn = token >> 12 & 7
            self.draw_left += 1
            self.hands[self.turn][k] -= 1
        if token & RESHUFFLED:
            self.played = self.draw
            self.draw = [0] * KINDS
            self.played_n = self.draw_n
            self.draw_n = 0

    def _show(self, k):
        self.played[k] += 1
        self.played_n += 1
        self.show_left -= 1
        if self.show_left == 0:
            return self._count_draws(HAND)
        return None

    def _discard(self):
        if not self.dealt:
            self.show_left = HAND
            return None
        hand = self.hands[self.turn]
        for k in range(KINDS):
            self.played[k] += hand[k]
        self.played_n += HAND
        self.hands[self.turn] = [0] * KINDS
        self.draw_left = HAND
        self.passing = False
        return hand

    def _move(self, t, step):
        # Moves turtle t with the turtles above it (alone off a side-by-side
        # start); they land on top of the field they reach.
        p = self.pos[t]
        stack = self.stacks[p]
        i = stack.index(t)
        q = p + step
        if q > self.lettuce:
            q = self.lettuce
        if p == 0 and self.side:
            moving = [t]
            del stack[i]
        else:
            moving = stack[i:]
            del stack[i:]
        self.stacks[q].extend(moving)
        for m in moving:
            self.pos[m] = q
        return (t, p, i, q, len(moving))

    def _unmove(self, mv):
        t, p, i, q, n = mv
        dest = self.stacks[q]
        moving = dest[len(dest) - n:]
        del dest[len(dest) - n:]
        if p == 0 and self.side:
            self.stacks[0].insert(i, t)
        else:
            self.stacks[p].extend(moving)
        for m in moving:
            self.pos[m] = p

    # ---- the end -----------------------------------------------------------

    def order(self):
        # Turtles from first to last: further first, lower in a stack first.
        out = []
        f = self.lettuce
        while f >= 0:
            out.extend(self.stacks[f])
            f -= 1
        return out

    def result(self):
        if self.to_move() != TERMINAL:
            return None
        order = self.order()
        places = [0] * 5
        for i in range(5):
            t = order[i]
            # side by side on the start nobody is ahead of another
            places[t] = 5 - len(self.stacks[0]) if (self.side and self.pos[t] == 0) else i
        scores = [5 - places[self.colour_of[p]] for p in range(self.players)]
        ranking = []
        for s in range(5, 0, -1):
            group = [p for p in range(self.players) if scores[p] == s]
            if group:
                ranking.append(group)
        return {"scores": scores, "ranking": ranking, "winners": ranking[0]}

    # ---- notation ------------------------------------------------------------

    def action_text(self, a):
        if not _is_action(a):
            raise BadNotation("%r is no Turtle Race action" % (a,))
        if a < DRAW:
            k = a // 5
            if k < 15:
                return CARD_NAMES[k]
            return CARD_NAMES[k] + COLOURS[a % 5]
        if a < SHOW:
            return "draw " + CARD_NAMES[a - DRAW]
        if a < COLOUR:
            return "show " + CARD_NAMES[a - SHOW]
        if a < STACK:
            return "colour %d %s" % ((a - COLOUR) // 5, COLOURS[(a - COLOUR) % 5])
        if a < DISCARD:
            return "stack " + COLOURS[a - STACK]
        return "discard"

    def parse_action(self, text):
        t = text.strip().lower().replace("↑", "^")
        words = t.split()
        if not words:
            raise BadNotation("an empty action; " + NOTATION_HELP)
        w = words[0]
        if w in ("draw", "show") and len(words) == 2:
            return (DRAW if w == "draw" else SHOW) + _kind(words[1])
        if w in ("colour", "color") and len(words) == 3:
            p = parse_int(words[1], "player", 0, self.players - 1)
            return COLOUR + p * 5 + _colour(words[2])
        if w == "stack" and len(words) == 2:
            return STACK + _colour(words[1])
        if w == "discard" and len(words) == 1:
            return DISCARD
        if len(words) != 1:
            raise BadNotation("%r: %s" % (text, NOTATION_HELP))
        for prefix, k in (("^^", DOUBLE_ARROW), ("^", ARROW), ("*+", RAINBOW_PLUS),
                          ("*-", RAINBOW_MINUS)):
            if w.startswith(prefix):
                rest = w[len(prefix):]
                if not rest:
                    raise BadNotation(
                        "%r: say which turtle the card moves, e.g. %sred" % (text, prefix)
                    )
                return k * 5 + _colour(rest)
        for suffix, s in (("++", 0), ("+", 1), ("-", 2)):
            if w.endswith(suffix):
                c = _colour(w[:len(w) - len(suffix)])
                return (c * 3 + s) * 5 + c
        raise BadNotation("%r: %s" % (text, NOTATION_HELP))

    def explain_illegal(self, a):
        who = self.to_move()
        if who == TERMINAL:
            return "the race is over"
        if not _is_action(a):
            return "it is no Turtle Race action"
        if who == CHANCE:
            if self.stack_left:
                return "first the turtles are stacked on the start: 'stack <colour>' for each"
            if self.colour_next < self.players and (self.colours_first or self.stacks[self.lettuce]):
                return "now player %d's colour is told: 'colour %d <colour>' (not one taken)" % (
                    self.colour_next, self.colour_next)
            if self.show_left:
                return ("now the dead hand is shown: 'show <card>' for %d more cards, each a "
                        "'-' card whose turtle is on the start" % self.show_left)
            return "now a card is drawn: 'draw <card>', a card the draw pile still holds"
        if self.colours_first and self.colour_next < self.players:
            return "player %d chooses a colour first: 'colour %d <colour>' (not one taken)" % (
                who, who)
        if a == DISCARD:
            if self.dealt:
                return "you can play a card, so you keep your hand"
            return "no hand of five could be without a playable card now"
        if a >= DRAW:
            return "it is player %d's turn to play a card" % who
        k = a // 5
        t = a % 5
        name = card_name(k)
        if self.dealt and self.hands[who][k] == 0:
            return "you have no %s in hand" % name
        if not self.dealt and self.played[k] >= DECK[k]:
            return ("no deck holds a %s %s: all %d are on the played pile since the last "
                    "reshuffle" % (ORDINALS[DECK[k]], name, DECK[k]))
        if STEP[k] < 0 and self.pos[t] == 0:
            return "'-' cannot move a turtle on the start (%s is there)" % COLOURS[t]
        if k >= ARROW:
            rear = min(self.pos)
            return "%s is not on the rearmost field (field %d): %s moves one of %s" % (
                COLOURS[t], rear, name,
                ", ".join(COLOURS[u] for u in range(5) if self.pos[u] == rear))
        return "it is not one of the legal actions now"

    # ---- what can be seen ----------------------------------------------------

    def state_key(self):
        start = self.stacks[0]
        if self.side:
            start = sorted(start)
        track = "/".join(
            "".join(str(t) for t in s) for s in [start] + self.stacks[1:]
        )
        return "race%d|%s|%s|%s|s%d c%s|d%d %s|p%d %s|h%s|t%d %d %d %d %d" % (
            self.fields, self.option_text(), track,
            "s%d" % self.stack_left, self.colour_next,
            ",".join(str(c) for c in self.colour_of),
            self.draw_n, ",".join(str(n) for n in self.draw) if self.dealt else "",
            self.played_n, ",".join(str(n) for n in self.played),
            ";".join(",".join(str(n) for n in h) for h in self.hands) if self.dealt else "",
            self.turn, self.deal_left, self.draw_left, 1 if self.passing else 0,
            self.show_left,
        ) + "|l%d" % self.last

    def _hand_list(self, p):
        h = self.hands[p]
        out = []
        for k in range(KINDS):
            out.extend([card_name(k)] * h[k])
        return out

    def colour_known(self, p, viewer):
        # May `viewer` (None: an onlooker) know player p's colour?
        if self.colour_of[p] < 0:
            return False
        return (not self.dealt or self.open or p == viewer
                or self.to_move() == TERMINAL)

    def view(self, player):
        who = self.to_move()
        v = {
            "game": self.name,
            "players": self.players,
            "options": {"mode": self.options["mode"], "open_colours": self.options["open_colours"],
                        "start": self.options["start"]},
            "fields": self.fields,
            "track": [[COLOURS[t] for t in s] for s in self.stacks],
            "to_move": who,
            "turn": self.turn,
            "colours": [COLOURS[self.colour_of[p]] if self.colour_known(p, player) else None
                        for p in range(self.players)],
            "last_card": self.action_text(self.last) if self.last >= 0 else None,
            "played": [[card_name(k), self.played[k]] for k in range(KINDS) if self.played[k]],
            "played_pile": self.played_n,
            "draw_pile": self.draw_n,
            "over": who == TERMINAL,
            "result": self.result(),
            "viewer": player,
        }
        if self.dealt:
            v["hand_sizes"] = [sum(h) for h in self.hands]
            v["hand"] = self._hand_list(player) if player is not None else None
        return v

    def snapshot(self):
        # Everything, hidden parts too (for debugging and replays of records).
        v = self.view(None)
        v["colours"] = [COLOURS[c] if c >= 0 else None for c in self.colour_of]
        if self.dealt:
            v["hands"] = [self._hand_list(p) for p in range(self.players)]
            v["draw"] = [[card_name(k), self.draw[k]] for k in range(KINDS) if self.draw[k]]
        return v

    # ---- the board -------------------------------------------------------------

    def cells(self):
        return ["start"] + [str(i) for i in range(1, self.fields + 1)] + ["lettuce"]

    def image(self):
        # While the start stack is being told, all five are on the start.
        out = [UP if s else EMPTY for s in self.stacks]
        if self.stack_left:
            out[0] = UP
        return out

    # ---- snapshot (the game log's S lines; Game.resume) -------------------

    STATE = ("stacks", "pos", "stack_left", "colour_of", "colour_next", "colours_first", "hands",
             "draw", "draw_n", "deal_left", "played", "played_n", "turn", "draw_left", "passing",
             "show_left", "last")
