"""What each frame kind from the board may carry: one table, checked where a
frame is read (Link), so the replica, the mirror, the console and the host
seats only ever see fields of the types docs/protocol.md gives.

    why = problem(kind, payload)    # None when the frame is usable

A field not in the table passes (a newer board may say more); a field in it
must have its type, and a required one must be there. A kind not in the table
passes as it is (shown by the console, ignored by the mirror).
"""

from __future__ import annotations

MAX_ACTIONS = 100_000  # no game is longer; an action count beyond is not a board's
MAX_LEDS = 4096


class Field:
    """A type check: `check(value)` -> None, or what is wrong with it."""

    def __init__(self, what: str, test, optional: bool = False, null: bool = False):
        self.what = what
        self.test = test
        self.optional = optional  # the key may be missing
        self.null = null  # the value may be null

    def check(self, value) -> str | None:
        if value is None and self.null:
            return None
        return None if self.test(value) else self.what

    def maybe(self) -> Field:
        """The same, or null (or missing)."""
        return Field(self.what + " or null", self.test, True, True)

    def absent(self) -> Field:
        """The same, or missing."""
        return Field(self.what, self.test, True, self.null)


def _whole(low: int, high: int):
    return lambda v: type(v) is int and low <= v <= high


def _list_of(test):
    return lambda v: type(v) is list and all(test(x) for x in v)


def _text(v) -> bool:
    if type(v) is not str:
        return False
    try:
        v.encode()  # a lone surrogate (JSON "\ud800") is no text: no terminal can show it
    except UnicodeError:
        return False
    return True


def _hex_colour(v) -> bool:
    return type(v) is str and len(v) == 6 and not v.strip("0123456789abcdefABCDEF")


def _expect(v) -> bool:
    return type(v) is dict and all(_text(x) or _list_of(_text)(x) for x in v.values())


def _any(v) -> bool:
    return True


TEXT = Field("a text", _text)
COUNT = Field(f"a whole number 0..{MAX_ACTIONS}", _whole(0, MAX_ACTIONS))
SEQ = Field("a whole number 0..65535", _whole(0, 65535))
INDEX = Field("a whole number 0..1000", _whole(0, 1000))
PLAYERS = Field("a whole number 0..8", _whole(0, 8))
BOOL = Field("true or false", lambda v: type(v) is bool)
OBJECT = Field("a JSON object", lambda v: type(v) is dict)
TEXTS = Field("a list of texts", _list_of(_text))
NUMBERS = Field("a list of whole numbers", _list_of(lambda x: type(x) is int))
ANY = Field("anything", _any, True, True)

SCHEMA: dict[str, dict[str, Field]] = {
    # all optional: our own hello echoed by a REPL has only host and proto
    "hello": {"fw": TEXT.absent(), "proto": ANY, "board": TEXT.maybe(), "board_version": ANY,
              "game": TEXT.maybe(), "n": COUNT.absent(), "hash": TEXT.maybe(), "host": TEXT.absent(),
              "log": TEXT.maybe(), "calibration": TEXT.maybe()},
    "action": {"n": COUNT, "text": TEXT, "hash": TEXT, "by": TEXT.absent(), "bust": BOOL.absent()},
    "undone": {"n": COUNT, "hash": TEXT},
    "state": {"game": TEXT.maybe(), "players": PLAYERS, "options": OBJECT.maybe(), "dice": TEXT.maybe(),
              "seats": TEXTS.maybe(), "n": COUNT, "hash": TEXT.maybe(), "over": BOOL.absent(),
              "result": ANY, "geometry": OBJECT.maybe(), "log": TEXT.maybe(), "calibration": TEXT.maybe()},
    "log": {"from": COUNT, "actions": TEXTS},
    "synced": {"n": COUNT, "hash": TEXT.maybe()},
    "prompt": {"id": SEQ, "kind": TEXT.absent(), "text": TEXT, "choices": TEXTS, "current": INDEX.maybe()},
    "closed": {"id": SEQ, "choice": INDEX.maybe()},
    "status": {"text": TEXT, "expect": Field("a JSON object of texts or lists of texts", _expect).maybe()},
    "leds": {"from": Field(f"a whole number 0..{MAX_LEDS - 1}", _whole(0, MAX_LEDS - 1)),
             "c": Field("a list of rrggbb colours", _list_of(_hex_colour))},
    "hint": {"n": COUNT, "player": PLAYERS, "level": TEXT, "text": TEXT, "by": TEXT.absent()},
    "sense": {"raw": NUMBERS, "image": Field("a list of 0, 1 or 2", _list_of(lambda x: x in (0, 1, 2)
                                                                                and type(x) is int))},
    "channels": {"raw": NUMBERS, "held": ANY},
    "error": {"code": TEXT, "msg": TEXT, "re": SEQ.absent()},
    "ok": {"re": SEQ.absent()},
}


def problem(kind: str, payload: dict) -> str | None:
    """What makes a frame of `kind` unusable, or None."""
    fields = SCHEMA.get(kind)
    if fields is None:
        return None
    for key, field in fields.items():
        if key not in payload:
            if not field.optional:
                return f"{kind} without {key}"
            continue
        wrong = field.check(payload[key])
        if wrong is not None:
            return f"{kind} with {key} {_short(payload[key])}, not {wrong}"
    return None


def _short(value) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."
