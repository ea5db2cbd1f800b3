# The one API every game implements (in the spirit of OpenSpiel's State and
# python-chess's Board). Subclasses fill in the rules; this file holds what is
# common: checked apply, undo, state hash, records, option checking.
#
# Actions are small immutable values (ints or tuples of ints) chosen by each
# game; their text form (action_text / parse_action) is the interchange.
# Chance (a die face, a revealed card, a deal) is an action like any other.

import json
import sys

from .errors import BadNotation, BadSetup, IllegalAction

CHANCE = -1    # to_move() at a chance node
TERMINAL = -2  # to_move() when the game is over

EMPTY = 0  # image() values: what a cell's sensor should read
UP = 1     # a turtle on its feet (a stack reads like one turtle)
DOWN = 2   # a flipped turtle (a neutral Tortuga turtle)

RULES_VERSION = "1"


FNV_START = (0x811C, 0x9DC5)  # FNV-1a's offset basis, as two 16-bit halves

fnv_native = None
if sys.implementation.name == "micropython":  # (CPython may find a `micropython` that is no such thing)
    try:
        from .fnv import fnv_native  # native code: the rp2 port, the unix port
    except (ImportError, SyntaxError, ValueError):  # a port without a native emitter
        pass


def fnv1a32(text):
    hi, lo = fnv_more(FNV_START, text.encode())
    return (hi << 16) | lo


def fnv_more(state, data, table=None):
    # FNV-1a, 32 bits, on two 16-bit halves: a 32-bit MicroPython would make
    # a heap int of every step's product. h * 0x01000193 (mod 2**32) is
    # h * 0x193 + (h << 24), and h << 24 only adds h's low byte to the top.
    # -> the state (hi, lo) after the bytes of `data` (each b as table[b]
    # when there is a table).
    if fnv_native is not None:
        return fnv_native(state, data, table)
    hi, lo = state
    for b in data:
        lo ^= b if table is None else table[b]
        t = lo * 0x193
        hi = (hi * 0x193 + (t >> 16) + ((lo & 0xFF) << 8)) & 0xFFFF
        lo = t & 0xFFFF
    return hi, lo


class Game:
    name = ""
    title = ""
    min_players = 2
    max_players = 2
    # ((option, default, allowed values), ...); values are ints or strings.
    OPTIONS = ()
    DEFAULT_GEOMETRY = {}  # the reference board's geometry (Tortuga: default_geometry())

    @classmethod
    def default_geometry(cls):
        # The reference board's geometry, a fresh dict.
        return dict(cls.DEFAULT_GEOMETRY)

    @classmethod
    def kept_geometry(cls, geometry):
        # The geometry as a device keeps it for its games: the same, where
        # the engine has nothing smaller (Tortuga: its built board).
        return geometry

    def __init__(self, players, options=None, geometry=None):
        if not isinstance(players, int) or isinstance(players, bool):
            raise BadSetup("players must be a whole number, not %r" % (players,))
        if players < self.min_players or players > self.max_players:
            raise BadSetup(
                "%s is for %d to %d players, not %d"
                % (self.title or self.name, self.min_players, self.max_players, players)
            )
        self.players = players
        self.options = self.check_options(options or {})
        self.geometry = geometry
        self.history = History()
        self.setup()

    # ---- to implement in each game -------------------------------------

    def setup(self):
        # Build the initial state from self.players, self.options, self.geometry.
        raise NotImplementedError

    def to_move(self):
        # The player (0-based) whose decision it is, CHANCE, or TERMINAL.
        raise NotImplementedError

    def legal_actions(self):
        # Every legal action now, in a deterministic order. At a chance node:
        # every possible outcome (so physical dice and cards can be entered).
        raise NotImplementedError

    def chance_outcomes(self):
        # At a chance node: [(action, weight), ...] with positive int weights.
        raise NotImplementedError

    def _do(self, action):
        # Apply a legal action; return a token that _undo() takes back.
        raise NotImplementedError

    def _undo(self, token):
        raise NotImplementedError

    def is_over(self):
        return self.to_move() == TERMINAL

    def result(self):
        # {"scores": [int per player], "ranking": [[players tied], ...],
        #  "winners": [players]}; None while the game runs.
        raise NotImplementedError

    def action_text(self, action):
        raise NotImplementedError

    def parse_action(self, text):
        # Text -> action; raises BadNotation saying what was expected.
        raise NotImplementedError

    def state_key(self):
        # Canonical text of the whole state (hidden parts too).
        raise NotImplementedError

    def view(self, player):
        # A dict of what `player` may know (None: an onlooker).
        raise NotImplementedError

    def snapshot(self):
        # A dict of the whole state, for rendering and debugging.
        return self.view(None)

    def cells(self):
        # Names of the board's cells, in a fixed order (board files use them).
        raise NotImplementedError

    def image(self):
        # What each cell's sensor should read now: EMPTY, UP or DOWN per cell.
        raise NotImplementedError

    def image_changes(self, action):
        # What a legal `action` changes in image(), found without doing it:
        # (cell, new value, cell, new value, ...), each cell once and only
        # cells whose value changes; or None where only doing it tells (the
        # controller's matcher then does and undoes it). A game may override
        # it for its common actions; it must agree with doing them.
        return None

    def chance_for(self):
        # At a chance node: the player the outcome is for (a die of their
        # move, a card they draw), or -1 (the table's: a deal, a card turned up).
        return -1

    def busts(self, action):
        # Does this legal action end in a bust (Mahé: the dice over 7)?
        return False

    def explain_illegal(self, action):
        # Why `action` is not legal now; subclasses say more.
        return "it is not one of the legal actions now"

    # ---- common ---------------------------------------------------------

    def check_options(self, given):
        if not given:  # the defaults (each is allowed: tests/engine/test_core.py)
            out = {}
            for name, default, _ in self.OPTIONS:
                out[name] = default
            return out
        known = {}
        for name, default, allowed in self.OPTIONS:
            known[name] = (default, allowed)
        out = {}
        for name in sorted(given):
            if name not in known:
                raise BadSetup(
                    "unknown option %r for %s; known options: %s"
                    % (name, self.name, ", ".join(sorted(known)) or "none")
                )
        for name, default, allowed in self.OPTIONS:
            value = given.get(name, default)
            if isinstance(default, int) and isinstance(value, str):
                try:
                    value = int(value)
                except ValueError:
                    pass
            if value not in allowed:
                raise BadSetup(
                    "option %s=%r is not allowed; use one of: %s"
                    % (name, value, ", ".join(str(a) for a in allowed))
                )
            out[name] = value
        return out

    def apply(self, action):
        # Checked: raises IllegalAction (state unchanged) if not legal now.
        if action not in self.legal_actions():
            raise IllegalAction(
                "%s is illegal: %s" % (self._safe_text(action), self.explain_illegal(action))
            )
        self.push(action)

    def apply_text(self, text):
        action = self.parse_action(text.strip())
        self.apply(action)
        return action

    def push(self, action):
        # Unchecked: only for actions taken from legal_actions().
        self.history.add(action, self._do(action))

    def push_held(self, action):
        # push(), its packing into the history left for later (History.pack(),
        # or the next push): for a caller that must answer at once.
        self.history.hold(action, self._do(action))

    def try_action(self, action):
        # For search: apply a legal action without recording it in the
        # history (packing it there costs more than the rules). Returns the
        # token that take_back() needs; take back in reverse order.
        return self._do(action)

    def take_back(self, token):
        self._undo(token)
    def playout(self, rng, max_actions=100000):
        # Plays random actions to the end (chance by the outcome weights) and
        # returns how many: the same actions, drawn the same way from `rng`,
        # as pushing turtles.bots.random_action() each time. A game may
        # override it with a faster loop that keeps to that.
        n = 0
        while True:
            who = self.to_move()
            if who == TERMINAL:
                return n
            if n >= max_actions:
                self._too_long(max_actions)
            self._push_random(rng, who)
            n += 1

    def random_play(self, rng, limit):
        # The actions playout() would play, at most `limit` of them, for a
        # world thrown away after (not recorded: try_action()); how many.
        # A game whose playout() is a faster loop may play them by it.
        n = 0
        while n < limit:
            who = self.to_move()
            if who == TERMINAL:
                return n
            if who == CHANCE:
                self.try_action(rng.weighted(self.chance_outcomes()))
            else:
                self.try_action(rng.choice(self.legal_actions()))
            n += 1
        return n

    def _too_long(self, max_actions):
        raise RuntimeError("%s did not end within %d actions" % (self.name, max_actions))

    def _push_random(self, rng, who):
        if who == CHANCE:
            self.push(rng.weighted(self.chance_outcomes()))
        else:
            self.push(rng.choice(self.legal_actions()))

    def undo(self):
        if not self.history:
            raise IllegalAction("nothing to undo: the game is at its start")
        if not self.history.n:
            raise IllegalAction("the actions before action %d are not held (the game was resumed "
                                "from a snapshot); replay the whole game to undo them" % (self.history.base + 1))
        action, token = self.history.take_last()
        self._undo(token)
        return action

    def state_hash(self):
        return fnv1a32(self.state_key())

    def legal_texts(self):
        return [self.action_text(a) for a in self.legal_actions()]

    def option_text(self):
        return ",".join("%s=%s" % (k, self.options[k]) for k in sorted(self.options))

    def copy(self):
        # An independent game with the same history (replayed).
        other = self.__class__(self.players, self.options, self.geometry)
        for a in self.history:
            other.push(a)
        return other

    def _safe_text(self, action):
        try:
            return self.action_text(action)
        except Exception:
            return repr(action)

    # ---- snapshots (the game log's S lines) -------------------------------
    # A game names in STATE every attribute that play changes; the others
    # come from setup() (players, options, geometry). () : no snapshots.
    STATE = ()

    def state_text(self):
        # The whole state as one line of JSON, or None for a game without.
        # (json's own dumps: in C, and no dict in it to order)
        if not self.STATE:
            return None
        return json.dumps([getattr(self, k) for k in self.STATE])

    def resume(self, n, text, want_hash):
        # A fresh game set to a snapshot taken after n actions, which its
        # history counts but does not hold (undo stops there). Raises
        # BadSetup when the snapshot does not fit this game or its hash.
        if self.history or not self.STATE:
            raise BadSetup("only a fresh %s game resumes from a snapshot" % self.name)
        try:
            values = json.loads(text)
        except ValueError:
            values = None
        if not isinstance(values, list) or len(values) != len(self.STATE):
            raise BadSetup("the snapshot is not one of %s's states" % self.name)
        for k, v in zip(self.STATE, values):
            was = getattr(self, k)  # as setup() made it: the kind and size of value
            if type(was) is tuple:
                was = list(was)
            if type(v) is not type(was) or (type(v) is list and was and len(v) != len(was)):
                raise BadSetup("the snapshot's %s does not fit this %s game" % (k, self.name))
        for k, v in zip(self.STATE, values):
            setattr(self, k, v)
        self._loaded()
        if self.state_hash() != want_hash:
            raise BadSetup("the snapshot does not give its state hash %08x" % want_hash)
        self.history.base = n

    def _loaded(self):
        # After resume() set STATE: JSON's lists back to tuples, caches reset.
        pass


class History:
    # The actions played, each with its undo token, packed in one bytearray
    # (a whole game fits the Pico's heap): reads like a list of the actions
    # (len, indexing, slices, iteration, ==). An entry is the action, then
    # the token, as values: a header varint whose low 2 bits say what it is
    #   n << 2        an int n >= 0        (~n) << 2 | 2   an int n < 0
    #   k << 2 | 1    a tuple of k values  k << 3 | 7      a list of k values
    #   3             None                 i << 3 | 3      objects[i - 1]
    # (anything else: a bool, a str is kept as itself), then the entry's
    # length written backwards, so the last entry is found from the end. A
    # list comes back equal, a new one: a token's lists are never changed
    # once it is made (a list kept as itself cost ~40 bytes a move).
    # A game resumed from a snapshot counts `base` actions it does not hold
    # (before the first entry): len() counts them, indexing and iterating
    # cannot reach them.

    def __init__(self):
        self.buf = bytearray()
        self.objects = []
        self.n = 0  # entries held
        self.base = 0  # actions before them, not held
        self.held = None  # (action, token): the newest entry, not yet packed

    def hold(self, action, token):
        # A new last entry, packed later (pack()).
        if self.held is not None:
            self.pack()
        self.held = (action, token)
        self.n += 1

    def pack(self):
        # Packs the held entry, if any: True if there was one.
        held = self.held
        if held is None:
            return False
        self.held = None
        self.n -= 1
        self.add(held[0], held[1])
        return True

    def add(self, action, token):
        if self.held is not None:
            self.pack()
        buf = self.buf
        start = len(buf)
        if type(action) is int and 0 <= action < 32:
            buf.append(action << 2)
            if type(token) is int and -33 < token < 32:
                # the commonest entry: two one-byte ints and the length 2
                buf.append(token << 2 if token >= 0 else (~token) << 2 | 2)
                buf.append(2)
                self.n += 1
                return
        elif type(action) is int and action >= 0 and type(token) is int:
            # two ints (most tokens are one): their varints written here
            n = action << 2
            while n > 127:
                buf.append(n & 127 | 128)
                n >>= 7
            buf.append(n)
            n = token << 2 if token >= 0 else (~token) << 2 | 2
            while n > 127:
                buf.append(n & 127 | 128)
                n >>= 7
            buf.append(n)
            buf.append(len(buf) - start)  # (at most 12 bytes: one length byte)
            self.n += 1
            return
        else:
            self._put(action)
        self._put(token)
        n = len(buf) - start
        if n < 128:
            buf.append(n)
        else:
            _put_back(buf, n)
        self.n += 1

    def take_last(self):
        # Removes the last entry; returns (action, its undo token).
        held = self.held
        if held is not None:
            self.held = None
            self.n -= 1
            return held
        buf = self.buf
        end = len(buf)
        if buf[end - 1] == 2 and not (buf[end - 3] | buf[end - 2]) & 1:
            # two one-byte ints (the common entry)
            a = buf[end - 3]
            t = buf[end - 2]
            buf[end - 3:] = b""
            self.n -= 1
            return (~(a >> 2) if a & 2 else a >> 2), (~(t >> 2) if t & 2 else t >> 2)
        start = self._last()
        action, i = self._get(start)
        token, i = self._get(i)
        refs = self._refs(start, i)
        if refs:
            del self.objects[len(self.objects) - refs:]
        self.buf[start:] = b""
        self.n -= 1
        return action, token

    def __len__(self):
        return self.base + self.n

    def __iter__(self):
        if self.base:
            raise IndexError("the first %d actions are not held (resumed from a snapshot)" % self.base)
        return self.actions_held()

    def actions_held(self):
        # The actions held, the first base ones left out.
        held = self.held  # (as it was when the iteration began)
        i = 0
        end = len(self.buf)
        while i < end:
            action, j = self._get(i)
            j = self._skip(j)
            i = j + _back_len(j - i)
            yield action
        if held is not None:
            yield held[0]

    def __getitem__(self, k):
        if isinstance(k, slice):
            return list(self)[k]
        n = self.n
        if k < 0:
            k += n
        else:
            k -= self.base
        if k < 0 or k >= n:
            raise IndexError("history index out of range (or not held: resumed from a snapshot)")
        if k == n - 1:
            if self.held is not None:
                return self.held[0]
            return self._get(self._last())[0]
        for a in self.actions_held():
            if not k:
                return a
            k -= 1

    def __eq__(self, other):
        return list(self) == list(other)

    def __ne__(self, other):
        return not self.__eq__(other)

    def __repr__(self):
        if self.base:
            return "[<%d not held>] + %r" % (self.base, list(self.actions_held()))
        return repr(list(self))

    def _put(self, v):
        buf = self.buf
        t = type(v)
        if t is int:
            n = v << 2 if v >= 0 else (~v) << 2 | 2
        elif t is tuple:
            if len(v) < 32:
                buf.append(len(v) << 2 | 1)
            else:
                _put(buf, len(v) << 2 | 1)
            for x in v:
                if type(x) is int:  # (most are: written here, without a call)
                    n = x << 2 if x >= 0 else (~x) << 2 | 2
                    while n > 127:
                        buf.append(n & 127 | 128)
                        n >>= 7
                    buf.append(n)
                else:
                    self._put(x)
            return
        elif t is list:
            _put(buf, len(v) << 3 | 7)
            for x in v:
                self._put(x)
            return
        elif v is None:
            n = 3
        else:
            self.objects.append(v)
            n = len(self.objects) << 3 | 3
        _put(buf, n)

    def _get(self, i):
        # The value at byte i, and the byte after it.
        h, i = _read(self.buf, i)
        tag = h & 3
        if tag == 0:
            return h >> 2, i
        if tag == 2:
            return ~(h >> 2), i
        k = _count(h)
        if k >= 0:
            out = []
            for _ in range(k):
                v, i = self._get(i)
                out.append(v)
            return (tuple(out) if tag == 1 else out), i
        h >>= 3
        return (self.objects[h - 1] if h else None), i

    def _skip(self, i):
        # The byte after the value at byte i.
        h, i = _read(self.buf, i)
        if h & 1:  # (an int is even: no call for it)
            for _ in range(_count(h)):  # (None, an object: range(-1))
                i = self._skip(i)
        return i

    def _refs(self, i, end):
        # How many objects the values in bytes i..end refer to.
        buf = self.buf
        refs = 0
        while i < end:
            h, i = _read(buf, i)
            if h & 7 == 3 and h > 3:
                refs += 1
        return refs

    def _last(self):
        # The first byte of the last entry.
        buf = self.buf
        j = len(buf) - 1
        b = buf[j]
        size = b & 127
        s = 7
        while b & 128:
            j -= 1
            b = buf[j]
            size |= (b & 127) << s
            s += 7
        return j - size


def _count(h):
    # How many values follow a header: a tuple's or a list's; else -1.
    if h & 3 == 1:
        return h >> 2
    return h >> 3 if h & 7 == 7 else -1


def _put(buf, n):
    # A varint: 7 bits a byte, least significant first, 128 on all but the last.
    while n > 127:
        buf.append(n & 127 | 128)
        n >>= 7
    buf.append(n)


def _read(buf, i):
    # The varint at byte i, and the byte after it.
    h = 0
    s = 0
    while True:
        b = buf[i]
        i += 1
        h |= (b & 127) << s
        if b < 128:
            return h, i
        s += 7


def _put_back(buf, n):
    # A varint read from its end: most significant first, 128 on all but the first.
    if n > 127:
        _put_back(buf, n >> 7)
        buf.append(n & 127 | 128)
    else:
        buf.append(n)


def _back_len(n):
    # How many bytes _put_back(n) writes.
    k = 1
    while n > 127:
        n >>= 7
        k += 1
    return k


def parse_int(text, what, low, high):
    # A whole number in low..high from notation, or BadNotation.
    try:
        n = int(text)
    except ValueError:
        raise BadNotation("%r is not a %s (expected a number %d..%d)" % (text, what, low, high))
    if n < low or n > high:
        raise BadNotation("%s %d is out of range %d..%d" % (what, n, low, high))
    return n
