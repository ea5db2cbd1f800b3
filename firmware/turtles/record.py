# Game records: header tags, then one action per line.
#
#   [Game "mahe"]
#   [Players "4"]
#   [Options "egg_dice=0"]
#   [Rules "1"]
#   [Format "2"]
#   [Result "winners=2 scores=22,17,22,20"]
#   e3
#   roll
#   ...
#
# Blank lines and lines starting with '#' are ignored (a Race record says
# after each `colour 0 red` whose it is: "# player 1 owns red"). The Result tag is
# optional; when present, replay checks it. Its winners count players from 1,
# as a person does (the API counts from 0).
#
# Format: how the record itself is written (Rules: the rules it was played
# by). Format 2 counts the Result's winners from 1; a record with no Format
# tag is format 1, as earlier releases wrote it, with winners counted from 0.
# Every format ever written is read.

from .errors import BadSetup, GameError
from .game import RULES_VERSION
from .games import new_game

FORMAT = 2
FORMATS = (1, 2)  # the formats read


class RecordError(GameError):
    def __init__(self, line, text, why):
        super().__init__("line %d: %r: %s" % (line, text, why))  # MicroPython too
        self.line = line
        self.text = text
        self.why = why


def result_text(res, fmt=FORMAT):
    if res is None:
        return "*"
    first = 1 if fmt >= 2 else 0  # the first player's number
    return "winners=%s scores=%s" % (
        ",".join(str(p + first) for p in res["winners"]),
        ",".join(str(s) for s in res["scores"]),
    )


def write_record(game, with_result=True):
    lines = [
        '[Game "%s"]' % game.name,
        '[Players "%d"]' % game.players,
        '[Options "%s"]' % game.option_text(),
        '[Rules "%s"]' % RULES_VERSION,
        '[Format "%d"]' % FORMAT,
    ]
    if with_result:
        lines.append('[Result "%s"]' % result_text(game.result()))
    for a in game.history:
        text = game.action_text(a)
        lines.append(text)
        if game.name == "race" and text.startswith("colour "):
            # the notation counts players from 0 there: said for a person
            words = text.split()
            lines.append("# player %d owns %s" % (int(words[1]) + 1, words[2]))
    return "\n".join(lines) + "\n"


def parse_options(text):
    out = {}
    text = text.strip()
    if not text:
        return out
    for part in text.split(","):
        if "=" not in part:
            raise BadSetup("option %r must look like name=value" % part)
        k, v = part.split("=", 1)
        k = k.strip()
        v = v.strip()
        try:
            out[k] = int(v)
        except ValueError:
            out[k] = v
    return out


def _tag(line):
    # '[Name "value"]' -> (name, value) or None
    if not (line.startswith("[") and line.endswith("]")):
        return None
    body = line[1:-1].strip()
    sp = body.find(" ")
    if sp < 0:
        return None
    name = body[:sp]
    value = body[sp + 1:].strip()
    if len(value) < 2 or value[0] != '"' or value[-1] != '"':
        return None
    return name, value[1:-1]


def read_record(text, geometry=None):
    # Replay a record; returns the game. Raises RecordError with the line.
    tags = {}
    moves = []
    n = 0
    for raw in text.split("\n"):
        n += 1
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("["):
            if moves:
                raise RecordError(n, line, "a header tag after the first action")
            tag = _tag(line)
            if tag is None:
                raise RecordError(n, line, 'a header tag looks like [Name "value"]')
            tags[tag[0]] = (n, tag[1])
            continue
        moves.append((n, line))
    if "Game" not in tags:
        raise RecordError(1, text.split("\n")[0][:40], 'no [Game "..."] tag: which game is this?')
    gline, gname = tags["Game"]
    pline, ptext = tags.get("Players", (gline, ""))
    try:
        players = int(ptext)
    except ValueError:
        raise RecordError(pline, ptext, 'the [Players "N"] tag needs a number')
    fline, ftext = tags.get("Format", (gline, "1"))
    try:
        fmt = int(ftext)
    except ValueError:
        raise RecordError(fline, ftext, 'the [Format "N"] tag needs a number')
    if fmt not in FORMATS:
        raise RecordError(fline, ftext, "a record of format %s; this turtleboard reads formats "
                          "%s: a newer release wrote it, so install that release to read it"
                          % (ftext, " and ".join(str(f) for f in FORMATS)))
    oline, otext = tags.get("Options", (gline, ""))
    try:
        options = parse_options(otext)
        game = new_game(gname, players, options, geometry)
    except GameError as e:
        raise RecordError(oline if "option" in str(e) else gline, gname, str(e))
    for n, line in moves:
        try:
            game.apply_text(line)
        except GameError as e:
            raise RecordError(n, line, str(e))
    if "Result" in tags:
        rline, rtext = tags["Result"]
        got = result_text(game.result(), fmt)
        if rtext != "*" and got == "*":
            raise RecordError(rline, rtext, "the record says the game ended (%s) but its %d actions "
                              "stop before the end: is the record cut off?" % (rtext, len(moves)))
        if rtext != "*" and rtext != got:
            raise RecordError(rline, rtext, "the record says %s but the actions give %s" % (rtext, got))
    return game
