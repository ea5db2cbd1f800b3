# The one API every game implements (in the spirit of OpenSpiel's State and
# python-chess's Board). Subclasses fill in the rules; this file holds what is
# common: checked apply, undo, state hash, records, option checking.
#
# Actions are small immutable values (ints or tuples of ints) chosen by each
# game; their text form (action_text / parse_action) is the interchange.
# Chance (a die face, a revealed card, a deal) is an action like any other.

from .errors import BadNotation, BadSetup, IllegalAction

CHANCE = -1    # to_move() at a chance node
TERMINAL = -2  # to_move() when the game is over

EMPTY = 0  # image() values: what a cell's sensor should read
UP = 1     # a turtle on its feet (a stack reads like one turtle)
DOWN = 2   # a flipped turtle (a neutral Tortuga turtle)

RULES_VERSION = "1"


def fnv1a32(text):
    h = 0x811C9DC5
    for b in text.encode():
        h ^= b
        h = (h * 0x01000193) & 0xFFFFFFFF
    return h


class Game:
    name = ""
    title = ""
    min_players = 2
    max_players = 2
    # ((option, default, allowed values), ...); values are ints or strings.
    OPTIONS = ()

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
        self.history = []
        self._tokens = []
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

    def explain_illegal(self, action):
        # Why `action` is not legal now; subclasses say more.
        return "it is not one of the legal actions now"

    # ---- common ---------------------------------------------------------

    def check_options(self, given):
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
        self._tokens.append(self._do(action))
        self.history.append(action)

    def undo(self):
        if not self.history:
            raise IllegalAction("nothing to undo: the game is at its start")
        self._undo(self._tokens.pop())
        return self.history.pop()

    def state_hash(self):
        return fnv1a32(self.state_key())

    def legal_texts(self):
        return [self.action_text(a) for a in self.legal_actions()]

    def option_text(self):
        return ",".join("%s=%s" % (k, self.options[k]) for k in sorted(self.options))

    def record(self, result=True):
        from .record import write_record

        return write_record(self, result)

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


def parse_int(text, what, low, high):
    # A whole number in low..high from notation, or BadNotation.
    try:
        n = int(text)
    except ValueError:
        raise BadNotation("%r is not a %s (expected a number %d..%d)" % (text, what, low, high))
    if n < low or n > high:
        raise BadNotation("%s %d is out of range %d..%d" % (what, n, low, high))
    return n
