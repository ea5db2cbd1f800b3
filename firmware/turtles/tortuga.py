# Tortuga (Vincent Everaert), with its variants Tattoo Turtles (option
# tattoo=N) and Hatching Day (option hatching=1). RULES.md sections 3-5;
# our rulings are in docs/rulings.md, the notation in docs/notation.md.
#
# Board cells hold: 0 empty, 1 a south turtle, 2 a north turtle, 3 a neutral
# (flipped) turtle; a parallel list holds each turtle's tattoo (0 none).
# Actions are tuples whose first item is their kind (STEP, JUMP, ...).

from .errors import BadNotation, BadSetup, IllegalAction
from .game import DOWN, EMPTY, FNV_START, TERMINAL, UP, Game, fnv_more
from .hexboard import default_geometry, hexboard, kept

try:
    from micropython import const
except ImportError:
    def const(x):
        return x

NEUTRAL = const(3)
DRAW = const(2)  # winner value of a game stopped by the turn limit

# tattoo powers
LIFE = const(1)
EXCHANGE = const(2)
IMMORTALITY = const(3)
CONTAMINATION = const(4)
POWER_LETTERS = "LEIC"
POWER_NAMES = ("Life", "Exchange", "Immortality", "Contamination")

# action kinds
STEP = const(0)     # (STEP, from, to)
JUMP = const(1)     # (JUMP, from, land, team, land, team, ...); hops=1: (JUMP, from, land)
TEAM = const(2)     # (TEAM, player): hops=1, the team a jumped neutral joins
PLACE = const(3)    # (PLACE, cell, ...): Hatching Day; hops=1: one cell
DONE = const(4)     # (DONE,): hops=1, ends a placement turn
TATTOO = const(5)   # (TATTOO, power, cell): set-up of Tattoo Turtles
POWER = const(6)    # (POWER, power, tattoo cell, target or -1)
GIVE = const(7)     # (GIVE, cell): the opponent's turtle handed over by Exchange

# phases
SETUP = const(0)    # placing tattoo turtles
PLAY = const(1)     # a normal turn
POWERS = const(2)   # resolving triggered tattoo powers
GIVING = const(3)   # the opponent picks the turtle Exchange turns over
TEAMING = const(4)  # hops=1: the jumper picks the team of a reactivated neutral
CHAIN = const(5)    # hops=1: a chain under way
PLACING = const(6)  # hops=1: a placement turn under way
PHASE_NAMES = ("setup", "play", "powers", "giving", "team", "chain", "placing")

# chain kinds: what the chain has jumped besides neutrals
FRIEND = const(1)
ENEMY = const(2)

BOARD_CHARS = ".snx"
BOARD_BYTES = BOARD_CHARS.encode()
TATTOO_CHARS = ".LEIC"
TATTOO_BYTES = TATTOO_CHARS.encode()
KEY_START = fnv_more(FNV_START, b"tortuga ")  # the state key's hash so far

# What a chain has jumped after one more hop: NEXT_KIND[p][kind << 2 | m],
# kind 0 (neutrals only so far), FRIEND or ENEMY, m the board value of the
# turtle jumped (1 south, 2 north, NEUTRAL); NO: that hop is not allowed (no
# turtle, or friends and enemies in one chain).
NO = const(255)
NEXT_KIND = (
    bytes((NO, FRIEND, ENEMY, 0, NO, FRIEND, NO, FRIEND, NO, NO, ENEMY, ENEMY)),
    bytes((NO, ENEMY, FRIEND, 0, NO, NO, FRIEND, FRIEND, NO, ENEMY, NO, ENEMY)),
)


class Tortuga(Game):
    name = "tortuga"
    title = "Tortuga"
    min_players = 2
    max_players = 2
    OPTIONS = (
        ("hops", 0, (0, 1)),
        ("tattoo", 0, (0, 1, 2, 3, 4)),
        ("hatching", 0, (0, 1)),
        ("turn_limit", 0, (0, 100, 200, 500)),
    )
    DEFAULT_GEOMETRY = None  # parsed on demand: default_geometry()
    default_geometry = staticmethod(default_geometry)  # the reference board, a dict
    kept_geometry = staticmethod(kept)  # a device's games share the built board

    # ---- set-up ----------------------------------------------------------

    def setup(self):
        self.geo = hexboard(self.geometry)
        o = self.options
        if o["tattoo"] and o["hatching"]:
            raise BadSetup("tattoo and hatching cannot be combined; choose one variant")
        self.hops = o["hops"]
        self.hatching = o["hatching"]
        self.ntattoo = o["tattoo"]
        self.limit = o["turn_limit"]
        n = len(self.geo.names)
        self.board = [0] * n
        self.tat = [0] * n
        self._seek = [0] * (n + 1)  # _generate()'s copy of the board
        self.reserve = [0, 0]
        self.side = 0
        self.phase = PLAY
        self.winner = -1
        self.turns = 0
        self.pending = []   # tattoo cells whose powers the side to move resolves
        self.trig = []      # hops=1: tattoos neutralised by the chain under way
        self.at = -1        # hops=1: the jumping turtle's cell
        self.kind = 0       # hops=1: FRIEND or ENEMY once the chain has jumped one
        self.team_cell = -1  # hops=1: the reactivated neutral awaiting its team
        self.placed = 0     # hops=1: turtles placed so far this turn
        self.step_no = 0    # tattoo set-up: tattoos placed so far
        self.position = None
        self._legal = None
        self._kept_placements = [None, None]
        if o["hatching"]:
            self.reserve = [8, 8]
        else:
            for p in range(2):
                for c in self.geo.start[p]:
                    self.board[c] = p + 1
            if self.ntattoo:
                self.phase = SETUP

    @classmethod
    def from_position(cls, text, options=None, geometry=None):
        # A game starting from a position (format: docs/tortuga-board.md).
        game = cls(2, options, geometry)
        game._load(text)
        return game

    def copy(self):
        if self.position is None:
            return Game.copy(self)
        other = self.__class__.from_position(self.position, self.options, self.geometry)
        for a in self.history:
            other.push(a)
        return other

    def _load(self, text):
        geo = self.geo
        fields = text.split()
        if len(fields) < 2:
            raise BadSetup("a position is '<cells> <side> [r=S,N] [n=turns] [q=cells]', not %r" % text)
        cells = fields[0].replace("/", "")
        board = []
        tat = []
        i = 0
        while i < len(cells):
            ch = cells[i]
            i += 1
            if ch not in BOARD_CHARS:
                raise BadSetup("position: %r is not a cell mark (use . s n x)" % ch)
            board.append(BOARD_CHARS.index(ch))
            power = 0
            if i < len(cells) and cells[i] in POWER_LETTERS:
                power = POWER_LETTERS.index(cells[i]) + 1
                i += 1
                if ch == ".":
                    raise BadSetup("position: a tattoo needs a turtle, not an empty cell")
            tat.append(power)
        if len(board) != len(geo.names):
            raise BadSetup("position: %d cells given, the board has %d" % (len(board), len(geo.names)))
        if fields[1] not in geo.letters:
            raise BadSetup("position: the side to move is %s, not %r" % (" or ".join(geo.letters), fields[1]))
        self.board = board
        self.tat = tat
        self.side = geo.letters.index(fields[1])
        self.phase = PLAY
        self.step_no = 2 * self.ntattoo
        self.turns = 1
        for f in fields[2:]:
            if f.startswith("r="):
                parts = f[2:].split(",")
                self.reserve = [int(parts[0]), int(parts[1])]
                if not (0 <= self.reserve[0] <= 16 and 0 <= self.reserve[1] <= 16):
                    raise BadSetup("position: reserves are 0..16 turtles, not %r" % f)
            elif f.startswith("n="):
                self.turns = int(f[2:])
            elif f.startswith("q="):
                self.pending = sorted(self._cell(c) for c in f[2:].split(","))
                self.phase = POWERS
                for c in self.pending:
                    if board[c] != NEUTRAL or not tat[c]:
                        raise BadSetup("position: q= names %s, not a neutral tattoo" % geo.names[c])
            else:
                raise BadSetup("position: unknown field %r (r=, n=, q=)" % f)
        self.position = text
        self._legal = None

    def position_text(self):
        # This position in the from_position format (play and power phases).
        out = []
        col = ""
        for i in range(len(self.board)):
            name = self.geo.names[i]
            if col and name[0] != col:
                out.append("/")
            col = name[0]
            out.append(BOARD_CHARS[self.board[i]])
            if self.tat[i]:
                out.append(POWER_LETTERS[self.tat[i] - 1])
        text = "%s %s r=%d,%d n=%d" % (
            "".join(out), self.geo.letters[self.side], self.reserve[0], self.reserve[1], self.turns
        )
        if self.pending:
            text += " q=" + ",".join(self.geo.names[c] for c in self.pending)
        return text

    # ---- whose turn, what is legal ----------------------------------------

    def to_move(self):
        if self.winner >= 0:
            return TERMINAL
        if self.phase == PLAY and not self.legal_actions():
            return TERMINAL
        return self.side

    def legal_actions(self):
        # The cached list of legal actions (do not modify it).
        if self._legal is None:
            self._legal = self._generate()
        return self._legal

    def _generate(self):
        # A turn's steps and jumps (whole chains, or first hops with
        # hops=1), then placements; only jumps starting over an enemy if any
        # exist (the rest is listed all the same, and dropped: such jumps
        # are rare). Other phases: _phase_actions().
        if self.phase != PLAY or self.winner >= 0:
            return self._phase_actions()
        p = self.side
        b = self.board
        me = p + 1
        jt = self.geo.jumps[p]
        goal = self.geo.goal[p]
        nk = NEXT_KIND[p]
        hop = self.hops
        out = []
        forced = []
        # p's turtles in cell order: the board copied into a list kept for
        # it (no allocation), one of them after its last cell, so seeking
        # the next never fails (cheaper than counting them first).
        n = len(b)
        seek = self._seek
        seek[:n] = b
        seek[n] = me
        i = seek.index(me)
        while i < n:
            for v in jt[i]:
                over = v & 255
                m = b[over]
                if not m:
                    out.append((STEP, i, over))
                    continue
                land = v >> 8
                if b[land]:  # (off the board, land is over: taken)
                    continue
                kind = nk[m]
                target = forced if kind == ENEMY else out
                if hop:
                    target.append((JUMP, i, land))
                    continue
                # Most chains end after one hop: those are added here.
                if land != goal:
                    row = kind << 2
                    for w in jt[land]:
                        if b[w & 255] and not b[w >> 8] and nk[row + b[w & 255]] != NO:
                            break  # the chain goes on
                    else:
                        row = -1
                    if row >= 0:
                        if m == NEUTRAL:
                            self._chain(b, jt, goal, nk, land, kind, (JUMP, i, land, 0), target)
                            self._chain(b, jt, goal, nk, land, kind, (JUMP, i, land, 1), target)
                        else:
                            self._chain(b, jt, goal, nk, land, kind, (JUMP, i, land, -1), target)
                        continue
                if m == NEUTRAL:
                    target.append((JUMP, i, land, 0))
                    target.append((JUMP, i, land, 1))
                else:
                    target.append((JUMP, i, land, -1))
            i = seek.index(me, i + 1)
        if forced:
            return forced
        if self.hatching:
            self._placements(p, out)
        return out

    def _phase_actions(self):
        if self.winner >= 0:
            return []
        ph = self.phase
        p = self.side
        if ph == CHAIN:
            out = []
            self._hops(p, self.at, self.kind, out)
            return out
        if ph == TEAMING:
            return [(TEAM, 0), (TEAM, 1)]
        if ph == PLACING:
            out = [(PLACE, c) for c in self._place_cells(p)] if self._can_place_more(p) else []
            out.append((DONE,))
            return out
        if ph == SETUP:
            power = self.step_no % self.ntattoo + 1
            return [
                (TATTOO, power, c) for c in self.geo.start[p]
                if self.board[c] == p + 1 and self.tat[c] == 0
            ]
        if ph == POWERS:
            return self._power_actions(p)
        # GIVING
        return [(GIVE, c) for c in range(len(self.board)) if self.board[c] == p + 1]

    def _chain(self, b, jt, goal, nk, cur, kind, path, out):
        # The chain `path` (a tuple) has just landed on cur: it goes on
        # while it may (jt: the mover's jump table, nk: its NEXT_KIND row).
        # As in _generate(), a hop after which it ends is added here.
        go_on = False
        if cur != goal:
            row = kind << 2
            for v in jt[cur]:
                m = b[v & 255]
                if not m:
                    continue
                k = nk[row + m]
                if k == NO:
                    continue
                land = v >> 8
                if b[land]:  # land taken or off the board
                    continue
                go_on = True
                if land != goal:
                    more = k << 2
                    for w in jt[land]:
                        if b[w & 255] and not b[w >> 8] and nk[more + b[w & 255]] != NO:
                            break  # the chain goes on after this hop
                    else:
                        more = -1
                    if more >= 0:
                        if m == NEUTRAL:
                            self._chain(b, jt, goal, nk, land, k, path + (land, 0), out)
                            self._chain(b, jt, goal, nk, land, k, path + (land, 1), out)
                        else:
                            self._chain(b, jt, goal, nk, land, k, path + (land, -1), out)
                        continue
                if m == NEUTRAL:
                    out.append(path + (land, 0))
                    out.append(path + (land, 1))
                else:
                    out.append(path + (land, -1))
        if not go_on:
            out.append(path)

    def _hops(self, p, cur, kind, out):
        # hops=1: the next hops of a chain under way.
        b = self.board
        if cur == self.geo.goal[p]:
            return
        me = p + 1
        for v in self.geo.jumps[p][cur]:
            m = b[v & 255]
            land = v >> 8
            if m == 0 or b[land] or (m == me and kind == ENEMY):
                continue
            if m != me and m != NEUTRAL and kind == FRIEND:
                continue
            out.append((JUMP, cur, land))

    # ---- Hatching Day -----------------------------------------------------

    def _place_cells(self, p):
        b = self.board
        return [c for c in self.geo.hatching_cells[p] if not b[c]]

    def _place_max(self, p):
        # The most turtles p may place this turn (counting any placed already):
        # the reserve, at most 2 more than the opponent's, 2 on the first turn.
        r = self.reserve[p] + self.placed
        k = r - self.reserve[1 - p] + 2
        if k > r:
            k = r
        if k > 2 and self.turns == 0:
            k = 2
        return k

    def _can_place_more(self, p):
        return self.placed < self._place_max(p) and len(self._place_cells(p)) > 0

    def _placements(self, p, out):
        # A turn's placements (PLAY: none placed yet, so _place_max() is
        # the reserve, at most 2 more than the opponent's, 2 on the first
        # turn), on the free hatching cells.
        r = self.reserve[p]
        k = r - self.reserve[1 - p] + 2
        if k > r:
            k = r
        if k > 2 and self.turns == 0:
            k = 2
        if k <= 0:
            return
        b = self.board
        cells = [c for c in self.geo.hatching_cells[p] if not b[c]]
        if len(cells) < k:
            k = len(cells)
            if not k:
                return
        if self.hops:
            for c in cells:
                out.append((PLACE, c))
            return
        # the last list made for each player is kept (the free cells rarely change)
        kept = self._kept_placements[p]
        if kept is not None and kept[1] == k and kept[0] == cells:
            out.extend(kept[2])
            return
        made = placement_list(cells, k)
        self._kept_placements[p] = (cells, k, made)
        out.extend(made)

    # ---- Tattoo Turtles ----------------------------------------------------

    def _power_actions(self, p):
        out = []
        for c in self.pending:
            power = self.tat[c]
            if power == LIFE:
                targets = []
                if self.reserve[p] > 0:
                    targets = [s for s in self.geo.start[p] if self.board[s] == 0]
                if targets:
                    for s in targets:
                        out.append((POWER, LIFE, c, s))
                else:
                    out.append((POWER, LIFE, c, -1))
            else:
                out.append((POWER, power, c, -1))
        return out

    # ---- doing and undoing -----------------------------------------------

    # An undo token is a few small ints (they fit the Pico's heap for a whole
    # game): the packed scalars, the two cell lists (shared, never modified in
    # place) and one int per changed cell: cell << 5 | old board << 3 | old tattoo.

    def _set(self, i, v, t):
        self._changes.append((i << 5) | (self.board[i] << 3) | self.tat[i])
        self.board[i] = v
        self.tat[i] = t

    def _do(self, a):
        token = (
            self.side | (self.phase << 1) | ((self.winner + 1) << 4) | (self.kind << 6)
            | (self.placed << 8) | (self.step_no << 12) | (self.reserve[0] << 16)
            | (self.reserve[1] << 21),
            (self.at + 1) | ((self.team_cell + 1) << 8) | (self.turns << 16),
            self.pending,
            self.trig,
            [],
        )
        self._changes = token[4]
        self._legal = None
        p = self.side
        k = a[0]
        if k == STEP:
            self._set(a[2], self.board[a[1]], self.tat[a[1]])
            self._set(a[1], 0, 0)
            if a[2] == self.geo.goal[p]:
                self.winner = p
            else:
                self._end_turn()
        elif k == JUMP:
            if self.hops:
                self._hop_turn(p, a[1], a[2])
            else:
                self.trig = []
                cur = a[1]
                for j in range(2, len(a), 2):
                    self._hop(p, cur, a[j], a[j + 1])
                    cur = a[j]
                self._end_chain(p, cur)
        elif k == TEAM:
            self._set(self.team_cell, a[1] + 1, self.tat[self.team_cell])
            self.team_cell = -1
            self.phase = CHAIN
            self._chain_goes_on(p)
        elif k == PLACE:
            for c in a[1:]:
                self._set(c, p + 1, 0)
            self.reserve = self.reserve[:]
            self.reserve[p] -= len(a) - 1
            if self.hops:
                self.placed += 1
                self.phase = PLACING
                if not self._can_place_more(p):
                    self._end_turn()
            else:
                self._end_turn()
        elif k == DONE:
            self._end_turn()
        elif k == TATTOO:
            self._set(a[2], p + 1, a[1])
            self.reserve = self.reserve[:]
            self.reserve[p] += 1
            self.step_no += 1
            if self.step_no == self.ntattoo:
                self.side = 1
            elif self.step_no == 2 * self.ntattoo:
                self.side = 0
                self.phase = PLAY
        elif k == POWER:
            self._power(p, a[1], a[2], a[3])
        elif k == GIVE:
            self._set(a[1], 2 - p, self.tat[a[1]])
            self.side = 1 - p
            self.phase = POWERS if self.pending else PLAY
        return token

    def _undo(self, token):
        a, b, self.pending, self.trig, changes = token
        self.side = a & 1
        self.phase = (a >> 1) & 7
        self.winner = ((a >> 4) & 3) - 1
        self.kind = (a >> 6) & 3
        self.placed = (a >> 8) & 15
        self.step_no = (a >> 12) & 15
        self.reserve = [(a >> 16) & 31, (a >> 21) & 31]
        self.at = (b & 255) - 1
        self.team_cell = ((b >> 8) & 255) - 1
        self.turns = b >> 16
        i = len(changes) - 1
        while i >= 0:
            c = changes[i]
            self.board[c >> 5] = (c >> 3) & 3
            self.tat[c >> 5] = c & 7
            i -= 1
        self._legal = None

    def _over(self, p, cur, land):
        for v in self.geo.jumps[p][cur]:
            if v >> 8 == land and land != v & 255:
                return v & 255
        raise IllegalAction("no jump from %s to %s" % (self.geo.names[cur], self.geo.names[land]))

    def _hop(self, p, cur, land, team):
        # One jump: the jumper lands, the turtle jumped over reacts.
        over = self._over(p, cur, land)
        self._set(land, self.board[cur], self.tat[cur])
        self._set(cur, 0, 0)
        m = self.board[over]
        if m == NEUTRAL:
            self._set(over, team + 1, self.tat[over])
            return NEUTRAL
        if m != p + 1:
            self._set(over, NEUTRAL, self.tat[over])
            if self.tat[over]:
                self.trig = self.trig + [over]
            return ENEMY
        return FRIEND

    def _hop_turn(self, p, cur, land):
        # hops=1: one hop of a chain; a reactivated neutral joins the
        # jumper's team until the team choice says otherwise.
        if self.phase == PLAY:
            self.trig = []
            self.kind = 0
        got = self._hop(p, cur, land, p)
        if got != NEUTRAL:
            self.kind = got
        self.at = land
        if got == NEUTRAL:
            self.team_cell = self._over(p, cur, land)
            self.phase = TEAMING
            return
        self.phase = CHAIN
        self._chain_goes_on(p)

    def _chain_goes_on(self, p):
        out = []
        self._hops(p, self.at, self.kind, out)
        if not out:
            cur = self.at
            self.at = -1
            self.kind = 0
            self._end_chain(p, cur)

    def _end_chain(self, p, cur):
        if cur == self.geo.goal[p]:
            self.winner = p
            self.phase = PLAY
            return
        self.pending = sorted(self.trig)
        self.trig = []
        self._end_turn()

    def _end_turn(self):
        self.side = 1 - self.side
        self.turns += 1
        self.placed = 0
        self.phase = POWERS if self.pending else PLAY
        if self.limit and self.turns >= self.limit:
            self.winner = DRAW

    def _power(self, p, power, c, target):
        self.pending = [x for x in self.pending if x != c]
        after = POWERS if self.pending else PLAY
        self.reserve = self.reserve[:]
        if power == LIFE:
            if target >= 0:
                self._set(target, p + 1, 0)
                self.reserve[p] -= 1
        elif power == EXCHANGE:
            self._set(c, 0, 0)
            if (2 - p) in self.board:
                self.side = 1 - p
                after = GIVING
        elif power == IMMORTALITY:
            if self.reserve[p] > 0:
                self._set(c, p + 1, 0)
                self.reserve[p] -= 1
            else:
                self._set(c, p + 1, IMMORTALITY)
        else:
            for n in self.geo.neighbours_of(c):
                if self.board[n] == 2 - p:
                    self._set(n, 0, 0)
            self._set(c, 0, 0)
        self.phase = after

    # ---- the end ----------------------------------------------------------

    def result(self):
        w = self.winner
        if w < 0:
            if self.phase == PLAY and not self.legal_actions():
                w = 1 - self.side  # no legal move: the side to move loses
            else:
                return None
        if w == DRAW:
            return {"scores": [1, 1], "ranking": [[0, 1]], "winners": [0, 1]}
        scores = [0, 0]
        scores[w] = 1
        return {"scores": scores, "ranking": [[w], [1 - w]], "winners": [w]}

    # ---- notation ---------------------------------------------------------

    def action_text(self, a):
        names = self.geo.names
        k = a[0]
        if k == STEP:
            return "%s-%s" % (names[a[1]], names[a[2]])
        if k == JUMP:
            out = names[a[1]]
            for j in range(2, len(a), 2):
                out += "x" + names[a[j]]
                if j + 1 < len(a) and a[j + 1] >= 0:
                    out += "=" + self.geo.letters[a[j + 1]]
            return out
        if k == TEAM:
            return "=" + self.geo.letters[a[1]]
        if k == PLACE:
            return "+" + ",".join(names[c] for c in a[1:])
        if k == DONE:
            return "done"
        if k == TATTOO:
            return "%s@%s" % (POWER_LETTERS[a[1] - 1], names[a[2]])
        if k == POWER:
            out = POWER_LETTERS[a[1] - 1] + names[a[2]]
            if a[3] >= 0:
                out += "+" + names[a[3]]
            return out
        if k == GIVE:
            return "give:" + names[a[1]]
        raise BadNotation("not a Tortuga action: %r" % (a,))

    def _cell(self, text):
        name = text.strip().lower()
        if name not in self.geo.names:
            raise BadNotation(
                "%r is not a cell of this board (columns a..g west to east, "
                "numbered from the south: a1..a4, b1..b5, ..., d1..d7, ..., g1..g4)" % text
            )
        return self.geo.names.index(name)

    def _team(self, text):
        t = text.strip().upper()
        if t not in self.geo.letters:
            raise BadNotation("%r is not a team: use =%s" % (text, " or =".join(self.geo.letters)))
        return self.geo.letters.index(t)

    def parse_action(self, text):
        t = text.strip()
        if not t:
            raise BadNotation("empty action: expected e.g. d2-d3, d2xd4, +c1,e1 or done")
        if t == "done":
            return (DONE,)
        if t.startswith("give:"):
            return (GIVE, self._cell(t[5:]))
        if t[0] == "=":
            return (TEAM, self._team(t[1:]))
        if t[0] == "+":
            cells = [self._cell(c) for c in t[1:].split(",")]
            if self.hops and len(cells) != 1:
                raise BadNotation("with hops=1 place one turtle at a time (+c1), then done")
            if len(set(cells)) != len(cells):
                raise BadNotation("%r names a cell twice" % t)
            return (PLACE,) + tuple(sorted(cells))
        if len(t) > 2 and t[1] == "@" and t[0] in POWER_LETTERS:
            return (TATTOO, POWER_LETTERS.index(t[0]) + 1, self._cell(t[2:]))
        if t[0] in POWER_LETTERS and t[1:].split("+")[0].lower() in self.geo.names:
            parts = t[1:].split("+")
            if len(parts) > 2:
                raise BadNotation("a power is e.g. Ld4 or Ld4+c1, not %r" % t)
            target = self._cell(parts[1]) if len(parts) == 2 else -1
            return (POWER, POWER_LETTERS.index(t[0]) + 1, self._cell(parts[0]), target)
        low = t.lower()
        if "-" in low:
            parts = low.split("-")
            if len(parts) != 2:
                raise BadNotation("a step is from-to, e.g. d2-d3, not %r" % t)
            return (STEP, self._cell(parts[0]), self._cell(parts[1]))
        if "x" in low:
            parts = low.split("x")
            a = [JUMP, self._cell(parts[0])]
            for part in parts[1:]:
                if "=" in part:
                    if self.hops:
                        raise BadNotation("with hops=1 enter the team as its own action (=S or =N)")
                    cell, team = part.split("=", 1)
                    a.append(self._cell(cell))
                    a.append(self._team(team))
                else:
                    a.append(self._cell(part))
                    if not self.hops:
                        a.append(-1)
            if self.hops and len(a) != 3:
                raise BadNotation("with hops=1 enter one hop at a time, e.g. d2xd4")
            return tuple(a)
        raise BadNotation(
            "%r is no Tortuga action: steps d2-d3, jumps d2xd4=Sxd6, placements +c1,e1, "
            "tattoos L@c1, powers Ld4+c1 / Ed4 / Id4 / Cd4, give:e5, =S, done" % t
        )

    def explain_illegal(self, a):
        names = self.geo.names
        legal = self.legal_actions()
        ph = self.phase
        if self.winner >= 0 or (ph == PLAY and not legal):
            return "the game is over"
        k = a[0]
        due = {
            SETUP: "a tattoo placement (%s@cell)" % POWER_LETTERS[self.step_no % max(1, self.ntattoo)],
            POWERS: "a tattoo power to resolve",
            GIVING: "the turtle to give up for Exchange (give:cell)",
            TEAMING: "the team of the reactivated turtle (=S or =N)",
            CHAIN: "the next hop of the chain: it must go on while a jump is allowed",
            PLACING: "another placement (+cell) or done",
        }
        if ph != PLAY:
            return "%s is due now; legal: %s" % (due[ph], self._few(legal))
        if k == TEAM:
            return "no team choice is due: nobody jumped a neutral turtle"
        if k in (POWER, GIVE):
            return "no tattoo power is waiting to be resolved"
        if k == JUMP and not self.hops:
            text = self.action_text(a)
            longer = [self.action_text(x) for x in legal if x[0] == JUMP]
            if any(x.startswith(text + "x") for x in longer):
                return "the chain must go on while a jump is allowed: e.g. %s" % self._few(
                    [x for x in legal if self.action_text(x).startswith(text + "x")]
                )
            for x in legal:
                if x[0] == JUMP and x[1:3] == a[1:3] and len(x) == len(a) and x[3] >= 0 and a[3] < 0:
                    return "the jumped turtle on %s was neutral: say its team, e.g. %s" % (
                        names[self._over(self.side, a[1], a[2])], self.action_text(x)
                    )
        if legal and all(x[0] == JUMP for x in legal) and self._forced_enemy():
            return "a jump over an enemy turtle is compulsory: %s" % self._few(legal)
        if k in (STEP, JUMP) and self.board[a[1]] != self.side + 1:
            return "%s holds no active turtle of %s" % (names[a[1]], self.geo.player_names[self.side])
        return "legal now: %s" % self._few(legal)

    def _forced_enemy(self):
        x = self.legal_actions()[0]
        return self.board[self._over(self.side, x[1], x[2])] == 2 - self.side

    def _few(self, actions):
        texts = [self.action_text(x) for x in actions[:8]]
        if len(actions) > 8:
            texts.append("... (%d in all)" % len(actions))
        return ", ".join(texts)

    # ---- state, views, sensors -------------------------------------------

    def state_key(self):
        b = "".join(BOARD_CHARS[v] for v in self.board)
        t = "".join(TATTOO_CHARS[v] for v in self.tat) if self.ntattoo else ""
        return "tortuga %s %s%s" % (b, t, self._key_tail())

    def _key_tail(self):
        return " s%d p%d w%d r%d,%d n%d q%s g%s h%d,%d,%d,%d u%d" % (
            self.side, self.phase, self.winner, self.reserve[0], self.reserve[1],
            self.turns, _cells_text(self.pending), _cells_text(self.trig), self.at, self.kind,
            self.team_cell, self.placed, self.step_no,
        )

    def state_hash(self):
        # fnv1a32(self.state_key()), the cells hashed from their values:
        # making their text took ~3 ms of each commit on a Pico.
        h = fnv_more(KEY_START, bytes(self.board), BOARD_BYTES)
        h = fnv_more(h, b" ")
        if self.ntattoo:
            h = fnv_more(h, bytes(self.tat), TATTOO_BYTES)
        hi, lo = fnv_more(h, self._key_tail().encode())
        return (hi << 16) | lo

    def view(self, player):
        # Nothing is hidden in Tortuga: every player sees everything.
        names = self.geo.names
        turtles = {}
        for i in range(len(self.board)):
            v = self.board[i]
            if v:
                mark = "X" if v == NEUTRAL else self.geo.letters[v - 1]
                if self.tat[i]:
                    mark += POWER_LETTERS[self.tat[i] - 1]
                turtles[names[i]] = mark
        who = self.to_move()
        res = self.result()
        return {
            "game": "tortuga",
            "turtles": turtles,
            "to_move": who if who != TERMINAL else None,
            "phase": PHASE_NAMES[self.phase],
            "reserve": list(self.reserve),
            "pending": [names[c] for c in self.pending],
            "jumper": names[self.at] if self.at >= 0 else None,
            "turns": self.turns,
            "winners": res["winners"] if res else None,
        }

    def cells(self):
        return list(self.geo.names)

    def image_changes(self, a):
        # Steps, single hops, placements and the choices the board cannot
        # see, as their cells: the jumper's turtle is always on its feet, a
        # jumped neutral joins a team (UP), a jumped enemy turns over (DOWN).
        k = a[0]
        if k == STEP:
            return (a[1], EMPTY, a[2], UP)
        if k == JUMP and len(a) == 3:
            land = a[2]
            for v in self.geo.jumps[self.side][a[1]]:  # the cell jumped over
                if v >> 8 == land and v & 255 != land:
                    over = v & 255
            m = self.board[over]
            if m == NEUTRAL:
                return (a[1], EMPTY, a[2], UP, over, UP)
            if m != self.side + 1:
                return (a[1], EMPTY, a[2], UP, over, DOWN)
            return (a[1], EMPTY, a[2], UP)
        if k == PLACE:
            out = ()
            for c in a[1:]:
                out += (c, UP)
            return out
        if k == TEAM or k == DONE or k == TATTOO or k == GIVE:
            return ()  # a team, a tattoo, a turtle handed over: all still UP
        return None  # powers, whole chains: done and undone

    def image(self):
        out = []
        for v in self.board:
            out.append(EMPTY if v == 0 else (DOWN if v == NEUTRAL else UP))
        return out

    # ---- snapshot (the game log's S lines; Game.resume) -------------------

    STATE = ("board", "tat", "reserve", "side", "phase", "winner", "turns", "pending", "trig", "at",
             "kind", "team_cell", "placed", "step_no")

    def _loaded(self):
        self._legal = None
        self._kept_placements = [None, None]


def placement_list(cells, k):
    # Every placement of 1..k turtles on `cells` (in order), each one
    # before the placements it begins (the tuples' own order): (PLACE, c),
    # then c with one more of the cells after it, and so on while there is
    # room. Two turtles in a loop, more by _placements_after().
    if k == 1:
        return [(PLACE, c) for c in cells]
    out = []
    n = len(cells)
    j = 0
    if k == 2:
        for c in cells:
            j += 1
            out.append((PLACE, c))
            for d in cells[j:]:
                out.append((PLACE, c, d))
        return out
    ones = [(c,) for c in cells]  # each cell as a tuple, to add to a placement
    for c in cells:
        j += 1
        t = (PLACE, c)
        out.append(t)
        if j < n:
            _placements_after(t, ones, j, n, k - 1, out)
    return out


def _placements_after(t, ones, j, n, room, out):
    # The placement t with one more of the cells ones[j:n], each followed
    # by those it begins while room (the turtles t may still add) lasts.
    while j < n:
        u = t + ones[j]
        out.append(u)
        j += 1
        if room > 1 and j < n:
            _placements_after(u, ones, j, n, room - 1, out)


def _cells_text(cells):
    # "3,17": mostly no cells, and then no generator for join() to run
    return ",".join([str(c) for c in cells]) if cells else ""
