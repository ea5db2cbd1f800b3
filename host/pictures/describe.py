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


HIDDEN = ("mahe", "race")  # games with cards some players may not see


def chance_hint(game) -> str:
    # What chance decides now, never its possible outcomes (they can show
    # what a pile still holds).
    legal = game.legal_texts()
    first = legal[0] if legal else ""
    word = first.split()[0] if " " in first else first.rstrip("0123456789")
    return CHANCE_WORDS.get(word, "chance decides")


def _who(p) -> str:
    return f"player {p + 1}"


def choice_words(game, text: str) -> str:
    """A prompt's choice (action notation) in words, the notation after it:
    '=S' -> 'the turtle joins south (player 1) [=S]'. Unknown forms stay as they are."""
    words = _choice_words(game, str(text))
    return f"{words} [{text}]" if words else str(text)


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
            return f"the card drawn is {t[5:]}"
        if t == "discard":
            return "no card can be played: show the hand, draw five"
        if t.startswith("show "):
            card = _race_card(t[5:])
            return f"the dead hand shows {t[5:]}" + (f" ({card})" if card else "")
        return _race_card(t)
    return ""


RACE_STEPS = {"++": "2 forward", "+": "1 forward", "-": "1 back"}


def _race_card(t: str) -> str:
    # A Race card played, in words: 'red+' -> 'red 1 forward'.
    colours = ("red", "yellow", "green", "blue", "purple")
    if t.startswith("*") and t[2:] in colours and t[1:2] in "+-":
        return f"rainbow card: {t[2:]} {RACE_STEPS[t[1]]}"
    for arrow, steps in (("^^", "2"), ("^", "1")):
        if t.startswith(arrow) and t[len(arrow):] in colours:
            return f"arrow card: {t[len(arrow):]} (at the back) {steps} forward"
    for sign in ("++", "+", "-"):
        if t.endswith(sign) and t[:-len(sign)] in colours:
            return f"{t[:-len(sign)]} {RACE_STEPS[sign]}"
    return ""


BUST_WORDS = "a bust: the dice went over 7, the turtles go back to the raft"


def action_words(game, text: str) -> str:
    """An action as the log and the panel show it: the notation, in words
    where the notation counts from 0 (a Race `colour 0 red` is player 1's)."""
    return choice_words(game, text) if str(text).startswith("colour ") else str(text)


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
    out = [f"last card: {view.get('last_card') or 'none yet'}"]
    out.append(f"draw pile {view.get('draw_pile', 0)}, played pile {view.get('played_pile', 0)}")
    colours = view.get("colours") or []
    known = [f"{_who(p)} {c}" for p, c in enumerate(colours) if c]
    if known:
        out.append("colours: " + ", ".join(known))
    if player is not None and view.get("hand") is not None:
        out.append(f"hand of {_who(player)}: " + (" ".join(view["hand"]) or "empty"))
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
