"""What a person at the table knows of a position, in words: who is to move,
what chance decides now (never its possible outcomes), dice, egg cards,
colours and hands as the viewer may see them. Used by the SVG pictures and
the live mirror."""

from __future__ import annotations

CHANCE_WORDS = {
    "d": "a die is rolled",
    "e": "an egg card is turned up",
    "draw": "a card is drawn",
    "stack": "the turtles are stacked on the start",
    "colour": "the colours are told",
    "show": "a dead hand is shown",
}


TATTOO_WORDS = {"L": "Life", "E": "Exchange", "I": "Immortality", "C": "Contamination"}
HIDDEN = ("mahe", "race")  # games with cards some players may not see


def chance_kind(game) -> str:
    """What chance decides now, as a key of CHANCE_WORDS ("" for none
    known), never its possible outcomes (they can show what a pile still holds)."""
    legal = game.legal_texts()
    first = legal[0] if legal else ""
    word = first.split()[0] if " " in first else first.rstrip("0123456789")
    return word if word in CHANCE_WORDS else ""


def chance_hint(game) -> str:
    return CHANCE_WORDS.get(chance_kind(game), "chance decides")


def _who(p) -> str:
    return f"player {p + 1}"


def choice_words(game, text: str) -> str:
    """A prompt's choice or an action (notation) in words, the notation after
    it: '=S' -> 'the turtle joins south (player 1) [=S]'; where the notation
    counts players from 0 (a Race `colour 2 green`) the words alone, which
    count from 1. Unknown forms stay as they are."""
    words = _choice_words(game, str(text))
    if not words:
        return str(text)
    return words if str(text).startswith("colour ") else f"{words} [{text}]"


def plain_words(game, text: str) -> str:
    """An action in words alone (the notation where there are none): for a
    sentence that names a move, 'the computer played the turtle joins north'."""
    return _choice_words(game, str(text)) or str(text)


def _choice_words(game, t: str) -> str:
    if t == "cancel":
        return "none of these: cancel"
    if t == "takeback":
        return "take back the last move"
    name = getattr(game, "name", "")
    if name == "mahe":
        if t == "roll":
            return "roll again"
        if t == "stop":
            return "stop: the turtle moves"
        if t.startswith("card") and t[4:].isdigit():
            return f"play the {t[4:]} egg card as a die"
        if t.startswith("first-"):
            return f"turtle {t[6:]} moves first"
        if t[:1] == "d" and t[1:].isdigit():
            return f"the die shows {t[1:]}"
        if t[:1] == "e" and t[1:].isdigit():
            return f"the egg card turned up is a {t[1:]}"
        return ""
    if name == "tortuga":
        geo = getattr(game, "geo", None)
        letters = list(getattr(geo, "letters", ["S", "N"]))
        names = list(getattr(geo, "player_names", ["south", "north"]))
        if t[:1] == "=" and t[1:] in letters:
            p = letters.index(t[1:])
            return f"the turtle joins {names[p]} ({_who(p)})"
        if t == "done":
            return "no more turtles this turn"
        power = TATTOO_WORDS.get(t[:1])
        if power and t[1:2] == "@":
            return f"the {power} tattoo on the turtle on {t[2:]}"
        if power and t[1:3].islower() and t[2:3].isdigit():
            born = t.split("+")[1] if "+" in t else ""
            return f"{power} ({t[1:3]})" + (f": a new turtle on {born}" if born else "")
        if t[:1] == "+":
            return "put turtles on " + t[1:].replace(",", ", ")
        if t.startswith("give:"):
            return f"give up the turtle on {t[5:]}"
        if "x" in t:
            hops = t.split("x")
            return f"jump from {hops[0]} to " + ", then ".join(h.split("=")[0] for h in hops[1:])
        if "-" in t:
            a, b = t.split("-", 1)
            return f"move {a} to {b}"
        return ""
    if name == "race":
        if t.startswith("colour "):
            parts = t.split()
            if len(parts) == 3 and parts[1].isdigit():
                return f"{_who(int(parts[1]))} is {parts[2]}"
        if t.startswith("stack "):
            return f"{t[6:]} next on the start stack"
        if t.startswith("draw "):
            return f"the card drawn is {race_card(t[5:])}"
        if t == "discard":
            return "no card can be played: show the hand, draw five"
        if t.startswith("show "):
            return f"the dead hand shows {race_card(t[5:])}"
        return _race_card(t)
    return ""


RACE_STEPS = {"++": "2 forward", "+": "1 forward", "-": "1 back"}
RACE_COLOURS = ("red", "yellow", "green", "blue", "purple")


def race_card(t: str) -> str:
    """A Race card in words, in a hand or played: 'red+' -> 'red 1 forward',
    '^' -> 'arrow card: the last turtle 1 forward'; the text itself where it
    is no card."""
    return _race_card(str(t)) or str(t)


def _race_card(t: str) -> str:
    if t[:1] == "*" and t[1:2] in ("+", "-") and t[2:] in RACE_COLOURS + ("",):
        return f"rainbow card: {t[2:] or 'any turtle'} {RACE_STEPS[t[1]]}"
    for arrow, steps in (("^^", "2"), ("^", "1")):
        if t.startswith(arrow) and t[len(arrow):] in RACE_COLOURS:
            return f"arrow card: {t[len(arrow):]} (at the back) {steps} forward"
        if t == arrow:
            return f"arrow card: the last turtle {steps} forward"
    for sign in ("++", "+", "-"):
        if t.endswith(sign) and t[:-len(sign)] in RACE_COLOURS:
            return f"{t[:-len(sign)]} {RACE_STEPS[sign]}"
    return ""


BUST_WORDS = "a bust: the dice went over 7, the turtles go back to the raft"


def action_words(game, text: str) -> str:
    """An action as the log and the panel show it: the notation (as the
    record writes it), then its words: '^^blue — arrow card: blue (at the
    back) 2 forward'; where the notation counts players from 0 the words
    alone (a Race `colour 0 red`: 'player 1 is red')."""
    text = str(text)
    words = _choice_words(game, text)
    if not words:
        return text
    return words if text.startswith("colour ") else f"{text} — {words}"


# Who made an action (the `by` of an `action` frame), as the log says it.
BY_WORDS = {"host": "from this PC", "sensors": "seen on the board", "buttons": "NEXT/OK",
            "dice": "the board rolled", "computer": "the board's computer"}


def by_words(by) -> str:
    return BY_WORDS.get(str(by), str(by))


# The board's status sentences that name a move in notation (firmware/controller/decide.py).
MOVE_IN_STATUS = (("the computer plays ", ": make its move as lit"),
                  (" (the computer played ", ")"), ("hint for player ", ""))


def status_words(game, text: str) -> str:
    """The board's status line with the move it names in words: 'player 2 to
    move (the computer played =N)' -> '... (the computer played the turtle
    joins north (player 2))'."""
    text = str(text)
    for before, after in MOVE_IN_STATUS:
        at = text.find(before)
        if at < 0 or not text.endswith(after):
            continue
        start = at + len(before)
        if before == "hint for player ":
            start = text.find(": ", start) + 2
            if start < 2:
                continue
        end = len(text) - len(after)
        if end > start:
            return text[:start] + plain_words(game, text[start:end]) + text[end:]
    return text


def mahe_distance(dice) -> str:
    """How far the dice move a Mahé turtle: one die its value, two dice
    the sum x 2, three the sum x 3."""
    total = sum(dice)
    far = f"moves {total * len(dice)} field{'' if total * len(dice) == 1 else 's'}"
    return far if len(dice) == 1 else f"{far} ({total} x {len(dice)})"


def mahe_lines(game, view) -> list[str]:
    out = []
    dice = view.get("dice") or []
    if dice:
        thrown = f"die {dice[0]}" if len(dice) == 1 else "dice " + " + ".join(map(str, dice))
        out.append(f"turtle {view['mover']}: {thrown}, {mahe_distance(dice)}")
        out.append(f"{_who(view['decider'])} decides for it")
    faceup = view.get("faceup")
    out.append(f"egg card face up: {faceup or 'none'}, pile {view.get('pile', 0)}")
    for p in range(game.players):
        values = (view.get("card_values") or [None] * game.players)[p]
        count = (view.get("cards") or [0] * game.players)[p]
        if values is None:
            hand = f"{count} card{'' if count == 1 else 's'} face down"
        else:
            hand = ("+".join(map(str, values)) + f" = {sum(values)} eggs") if values else "no cards"
        nest = ", the nest (+7)" if view.get("nest") == p else ""
        out.append(f"{_who(p)}: {hand}{nest}")
    return out


def race_lines(game, view, player) -> list[str]:
    last = view.get("last_card")
    out = [f"last card: {race_card(last) if last else 'none yet'}"]
    out.append(f"draw pile {view.get('draw_pile', 0)}, played pile {view.get('played_pile', 0)}")
    colours = view.get("colours") or []
    known = [f"{_who(p)} {c}" for p, c in enumerate(colours) if c]
    if known:
        out.append("colours: " + ", ".join(known))
    if player is not None and view.get("hand") is not None:
        out.append(f"hand of {_who(player)}: " + (", ".join(race_card(c) for c in view["hand"]) or "empty"))
    return out


def tortuga_lines(game, view) -> list[str]:
    out = [f"phase: {view.get('phase')}, turn {view.get('turns', 0)}"]
    reserve = view.get("reserve")
    if reserve:
        out.append(f"reserve: south {reserve[0]}, north {reserve[1]}")
    if view.get("pending"):
        out.append(f"powers to resolve: {view['pending']}")
    return out


def panel_lines(game, player, everything=False):
    """The panel's lines as `player` sees the game (None: an onlooker), or
    with `everything` the whole position, hidden cards too (a record's picture)."""
    from turtles import CHANCE, TERMINAL

    n = len(game.history)
    lines = [f"{game.players} players, after {n} action{'' if n == 1 else 's'}"]
    who = game.to_move()
    if who == TERMINAL:
        res = game.result() or {}
        lines.append("game over: " + " and ".join(_who(w) for w in res.get("winners", []))
                     + (" win" if len(res.get("winners", [])) > 1 else " wins"))
        if res.get("scores"):
            lines.append("scores: " + ", ".join(f"{_who(p)} {s}" for p, s in enumerate(res["scores"])))
    elif who == CHANCE:
        lines.append("now: " + chance_hint(game))
    else:
        lines.append(f"to move: {_who(who)}")
    if game.history:
        lines.append("last action: " + action_words(game, game.action_text(game.history[-1])))
    lines.append("")
    try:
        view = game.snapshot() if everything else game.view(player)
    except Exception:  # a view is optional detail in a picture
        view = {}
    if game.name == "mahe":
        lines += mahe_lines(game, view)
    elif game.name == "race":
        lines += race_lines(game, view, player)
    elif game.name == "tortuga":
        lines += tortuga_lines(game, view)
    lines.append("")
    if everything:
        if game.name in HIDDEN:
            lines.append("everything shown, hidden cards too")
    else:
        lines.append("seen by " + (_who(player) if player is not None else "an onlooker"))
    return lines
