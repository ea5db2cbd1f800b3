"""What each page may see of the game on the board: the state sent to one
viewer, built from the host's replica (a Mirror) and the engine's player view.

    page_state(mirror, board_def, seat, lang) -> dict   # seat None: the table, spectators

A seat outside the game on the board (seat 4 of a 2-player game) sees what
the table sees, marked `seat_out`, and answers nothing.

Only `game.view(seat)` and what every player at the table sees go out: the
board's turtles, whose turn, the public moves, the result. In a game with
hidden cards (the Race dealt by the board, Mahé's won egg cards) a card drawn
is never named, and an open question whose choices are the hand of the player
to move (which card moved the turtle) goes to that player's page only.
"""

from __future__ import annotations

import hashlib
from xml.sax.saxutils import escape

from turtleboard.mirror.app import led_of_cells
from turtleboard.pictures.describe import chance_kind
from turtleboard.pictures.svg import (
    INK,
    WATER,
    board_ground,
    board_pieces,
    layout_of,
    picture_title,
    turtle_shapes,
)
from turtles import CHANCE, TERMINAL

MOVES_SHOWN = 8
WIDTH, HEIGHT = 680, 560
VIEW_BOX = {"race": (0, 150, WIDTH, 290)}  # the track alone: a phone shows it larger
# A phone held upright: the board alone, as large as it goes (the Race's
# track in two rows, Tortuga's hexagon, Mahé's island without the sea).
NARROW_BOX = {"race": (14, 60, 356, 362), "tortuga": (108, 8, 444, 510), "mahe": (28, 34, 604, 514)}


def race_two_rows(game) -> dict:
    """The Race's cells in two rows of five, the second coming back (start at
    the top left, the lettuce at the bottom left): twice as large on a phone."""
    pos = {}
    for i, name in enumerate(game.cells()):
        row, col = divmod(i, 5)
        pos[name] = (60 + (col if row == 0 else 4 - col) * 66, 200 + row * 140)
    return pos

# The board's few words in French (the page says the rest itself).
FRENCH = {
    "raft": "radeau", "nest": "nid", "start": "départ", "lettuce": "salade",
    "south: player 1": "sud : joueur 1", "north: player 2": "nord : joueur 2",
}


def say_fr(text: str) -> str:
    if text.endswith(" in the pile"):
        n = text.split()[0]
        return "%s carte%s œuf dans la pioche" % (n, "" if n == "1" else "s")
    return FRENCH.get(text, text)


def hidden_cards(game) -> bool:
    """Has the game cards some players may not see?"""
    return game.name == "mahe" or (game.name == "race" and getattr(game, "dealt", False))


def private_choices(game) -> bool:
    """Are an open question's choices the hand of the player to move?"""
    return game.name == "race" and getattr(game, "dealt", False)


def public_text(game, text: str) -> str | None:
    """An action as every player saw it: None where it names a hidden card
    (the page then says a card was drawn, the colours were dealt)."""
    if game.name == "race" and getattr(game, "dealt", False) and text.startswith(("draw ", "colour ")):
        return None
    if game.name == "mahe" and text[:1] == "e" and text[1:].isdigit():
        return None  # an egg card won: it lies face down before its owner
    return text


def last_moves(game) -> list[dict]:
    """The last few actions, newest last: n, who made it (-1: chance), and the
    public text (None: a hidden card; `kind` says which)."""
    if not game.history:
        return []
    copy = game.copy()
    out = []
    for _ in range(min(MOVES_SHOWN, len(game.history))):
        n = len(copy.history)
        action = copy.undo()
        who = copy.to_move()
        text = copy.action_text(action)
        shown = public_text(game, text)
        out.append({"n": n, "who": who if who >= 0 else -1, "text": shown,
                    "kind": text.split()[0] if shown is None else None, "bust": copy.busts(action)})
    out.reverse()
    return out


def takeback_owner(game, dice) -> int | None:
    """Whose action a take-back takes back (docs/rulings.md, "Take-backs"):
    the last one a player made, or a chance entered for them (a die of
    their move, a card they draw). A draw the board made itself goes back
    with what led to it, so its owner is that action's. None: the table's
    alone (a deal, an egg card turned up, the start stack)."""
    from controller.flows import device_rolls

    copy = game.copy()
    while copy.history:
        copy.undo()
        who = copy.to_move()
        if who >= 0:
            return who
        if dice != "electronic" or not device_rolls(game.name, copy):
            who = copy.chance_for()
            return who if who >= 0 else None
    return None


def lit_cells(game, board_def, leds: list) -> dict:
    """cell -> "rrggbb" of every cell whose LED is lit."""
    out = {}
    cells = set(game.cells())
    for cell, idx in led_of_cells(board_def).items():
        if cell in cells and 0 <= idx < len(leds):
            colour = str(leds[idx])
            if len(colour) == 6 and colour != "000000":
                out[cell] = colour
    return out


# What a mark on a lit cell means, drawn as a symbol too (colour-blind players).
MARKS = {"off": "↑", "on": "↓", "flip": "⟳", "dest": "•"}


def full_colour(colour: str) -> str:
    """An LED's colour at full brightness ("rrggbb"): the board dims its LEDs
    (004000 is a lit green), which drawn as it is would be near black."""
    rgb = [int(colour[i:i + 2], 16) for i in (0, 2, 4)]
    top = max(rgb) or 1
    return "".join("%02x" % (c * 255 // top) for c in rgb)


def picture_box(game, narrow: bool):
    """Where the cells go and which part of the board a picture shows: (pos, box)."""
    pos = race_two_rows(game) if narrow and game.name == "race" else layout_of(game)
    box = NARROW_BOX.get(game.name) if narrow else None
    return pos, box or VIEW_BOX.get(game.name, (0, 0, WIDTH, HEIGHT))


def svg_head(box) -> str:
    x0, y0, w, h = box
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" '
            f'viewBox="{x0} {y0} {w} {h}" font-family="sans-serif">')


def ground_svg(game, lang: str, narrow: bool = False) -> str:
    """The board without its turtles, with `render`'s board's larger words:
    the page's lower picture, the same all game long. `narrow`: for a phone
    held upright (NARROW_BOX)."""
    pos, box = picture_box(game, narrow)
    return "\n".join([
        svg_head(box),
        f'<rect width="{WIDTH}" height="{HEIGHT}" fill="{WATER if game.name == "mahe" else "#e9e4d8"}"/>',
        *board_ground(game, say_fr if lang == "fr" else None, pos, big=True),
        "</svg>"])


def pieces_svg(game, snap, lit: dict, expect: dict, lang: str, narrow: bool = False) -> str:
    """The page's upper picture, over the ground (the same box, transparent):
    the turtles, the lit cells ringed in their LED's colour, a symbol on each
    cell the board asks to change."""
    pos, box = picture_box(game, narrow)
    out = [svg_head(box), turtle_shapes(), RING_SHAPES]
    out.extend(board_pieces(game, snap, say_fr if lang == "fr" else None, pos, big=True, shapes=True))
    marks = {}
    for key in MARKS:
        for cell in expect.get(key) or []:
            marks[str(cell)] = key
    for cell in sorted(set(lit) | set(marks)):
        if cell not in pos:
            continue
        x, y = pos[cell]
        colour = "#" + full_colour(lit.get(cell, "ffffff"))
        out.append(f'<use href="#ring" stroke="{colour}" transform="translate({x:.1f} {y:.1f})"/>')
        if cell in marks:
            out.append(f'<use href="#{marks[cell]}" transform="translate({x + 24:.1f} {y - 24:.1f})"/>')
    out.append("</svg>")
    return "\n".join(out)


# A lit cell's ring (in its <use>'s colour, on a dark halo) and each mark (its
# symbol on a white disc): drawn once in a picture, used on each cell.
RING_SHAPES = (f'<defs><g id="ring" fill="none"><circle r="28" stroke="{INK}" stroke-width="7" '
               f'stroke-opacity="0.5"/><circle r="28" stroke-width="4"/></g>' + "".join(
                   f'<g id="{key}"><circle r="11" fill="#ffffff" stroke="{INK}"/><text y="5" font-size="15" '
                   f'font-weight="bold" text-anchor="middle" fill="{INK}">{escape(symbol)}</text></g>'
                   for key, symbol in MARKS.items()) + "</defs>")


def ground_of(game, lang: str, pictures: dict | None = None) -> dict:
    """The page's message with the ground pictures of this game and language:
    {"t": "ground", "id", "svg", "svg_narrow"}; its id (a digest of the
    pictures) tells a page whether it has them already."""
    key = ("ground", id(game), lang)
    got = pictures.get(key) if pictures is not None else None
    if got is not None and got[0] is game:  # (the game kept with it: an id is never reused meanwhile)
        return got[1]
    svg = ground_svg(game, lang)
    narrow = ground_svg(game, lang, True) if game.name in NARROW_BOX else None
    digest = hashlib.sha1((svg + (narrow or "")).encode()).hexdigest()[:16]
    msg = {"t": "ground", "id": digest, "svg": svg, "svg_narrow": narrow}
    if pictures is not None:
        pictures[key] = (game, msg)
    return msg


def seat_may_answer(game, prompt: dict, seat) -> bool:
    """May this page answer the open question? The table page may, unless its
    choices are a player's hand; a player's page when it is that player's turn
    (or chance's: a die shown, a card turned up)."""
    who = game.to_move() if game is not None else TERMINAL
    if seat is None:
        return game is None or not private_choices(game) or prompt.get("kind") == "chance"
    if not seat_in_play(game, seat):
        return False
    return who == seat or who == CHANCE


def seat_in_play(game, seat) -> bool:
    """Is this seat a player of the game on the board? (The board's every
    seat has its page; a 2-player game leaves seats 3.. watching.)"""
    return game is None or seat is None or seat < game.players


def page_state(mirror, board_def, seat, lang: str = "en", pictures: dict | None = None) -> dict:
    """All one page shows; call with mirror.lock held. `seat` None: the table
    and spectators (view(None)). `pictures` caches the board picture by
    (actions, lit cells, language): it is the same for every viewer."""
    rep = mirror.replica
    game = rep.game
    state = {
        "t": "state",
        "link": "connected" if mirror.connected else "lost",
        "in_step": bool(rep.in_sync and not rep.awaiting),
        "board": (mirror.hello or {}).get("board"),
        "game": None,
    }
    if game is None:
        return state
    who = game.to_move()
    out = not seat_in_play(game, seat)
    if out:
        seat = None  # a seat outside this game sees what an onlooker sees
    view = game.view(seat)
    status = dict(mirror.status or {})
    expect = status.get("expect") if isinstance(status.get("expect"), dict) else {}
    prompt = mirror.prompt
    private = private_choices(game) and who >= 0 and seat != who
    lit = lit_cells(game, board_def, mirror.leds)
    if private and (prompt is not None or "choice" in expect):
        # the preview of a choice would show the mover's cards
        lit = {}
        expect = {}
        status = {"text": None}
    state_hash = rep.hash()
    key = (len(game.history), state_hash, tuple(sorted(lit.items())),
           repr(sorted((k, v) for k, v in expect.items() if k != "choice")), lang)
    if pictures is not None and key in pictures:
        svg, narrow = pictures[key]
    else:
        # the turtles on the board are seen by all: the onlooker's view draws them
        svg = pieces_svg(game, game.view(None), lit, expect, lang)
        narrow = pieces_svg(game, game.view(None), lit, expect, lang, True) if game.name in NARROW_BOX else None
        if pictures is not None:
            if len(pictures) > 64:
                pictures.clear()
            pictures[key] = (svg, narrow)
    result = game.result() if who == TERMINAL else None
    mkey = ("moves", len(game.history), state_hash)
    moves = pictures.get(mkey) if pictures is not None else None
    if moves is None:
        moves = last_moves(game)
        if pictures is not None:
            pictures[mkey] = moves
    g = {
        "name": game.name,
        "title": picture_title(game, getattr(game, "title", game.name)),
        "variant": "tattoo" if (game.options or {}).get("tattoo") else (
            "hatching" if (game.options or {}).get("hatching") else None),
        "players": game.players,
        "n": len(game.history),
        "to_move": who if who >= 0 else (-1 if who == CHANCE else -2),
        "chance": chance_kind(game) if who == CHANCE else None,  # a die, a card... (never which)
        "over": who == TERMINAL,
        "result": {"winners": list(result.get("winners") or []),
                   "scores": list(result.get("scores") or [])} if result else None,
        "view": view,
        "moves": moves,
        "ground": ground_of(game, lang, pictures)["id"],  # the board under the turtles (sent apart)
        "svg": svg,             # the turtles, lit cells and marks over it
        "svg_narrow": narrow,  # (for a phone held upright)
        "lit": sorted(lit),
        "expect": {k: [str(c) for c in v] for k, v in expect.items()
                   if k in MARKS and isinstance(v, list)},
        "status": status.get("text"),
        "seats": list(mirror.seats) if isinstance(mirror.seats, list) else None,
        "hidden": hidden_cards(game),
        "dealt": private_choices(game),
        "prompt": None,
        "legal": [],
        "seat_out": out,  # (this page's seat is not in this game)
    }
    if prompt is not None:
        mine = not out and seat_may_answer(game, prompt, seat)
        p = {"id": prompt.get("id"), "kind": str(prompt.get("kind", "")), "who": g["to_move"],
             "mine": mine, "choices": [], "current": None, "text": None}
        if not private:
            p["text"] = str(prompt.get("text", ""))
            p["choices"] = [str(c) for c in prompt.get("choices") or []]
            p["current"] = prompt.get("current")
        g["prompt"] = p
    if private_choices(game) and seat is not None and who == seat and prompt is None:
        # the Race dealt by the board: the cards this player may play, on their phone
        g["legal"] = game.legal_texts()
    state["game"] = g
    return state
