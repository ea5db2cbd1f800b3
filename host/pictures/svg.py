"""SVG pictures of any position (`turtleboard render`).

    svg_picture(game, player=None) -> str   # the whole picture, as SVG text

The board is drawn as it lies on the table: the Mahé island track (a loop of
21 fields, the raft and the nest), the Race track (start to lettuce), the
Tortuga hexagon (37 cells, south player at the bottom). Turtles carry their
owner's colour; a stack is drawn bottom first, each turtle a little higher; a
flipped (neutral) turtle is pale with its belly up; tattoos carry their power's
initial. A panel beside the board says whose turn it is, the dice, the cards
and what `player` may see (view(player); None: everything, hidden cards too,
as `turtleboard render` says).
"""

from __future__ import annotations

import math
from xml.sax.saxutils import escape

from turtleboard.pictures.describe import panel_lines

# Player colours (Mahé, Tortuga): distinct on a sand-coloured board.
PLAYER_COLOURS = ["#d62728", "#1f77b4", "#e6c229", "#2ca02c", "#9467bd", "#ff7f0e", "#f5f5f5"]
NAMED_COLOURS = {
    "red": "#d62728", "blue": "#1f77b4", "yellow": "#e6c229", "green": "#2ca02c",
    "purple": "#9467bd", "orange": "#ff7f0e", "white": "#f5f5f5", "black": "#333333",
}
BOARD = "#f3e2b3"
WATER = "#9fd3e6"
CELL = "#fff7df"
INK = "#3b2f1e"


class Piece:
    def __init__(self, fill, label="", flipped=False, tattoo="", heading=0):
        self.heading = heading  # where the head points: 0 right, -90 up, 90 down
        self.fill = fill
        self.label = label
        self.flipped = flipped
        self.tattoo = tattoo


# ---- layouts: cell name -> (x, y) --------------------------------------------


def mahe_layout(game):
    # 21 fields counter-clockwise on an oval island (as on the table), 1 at
    # the bottom left;
    # the raft off the track before 1, the nest beside 21 (the beach).
    pos = {}
    cx, cy, rx, ry = 330, 250, 250, 175
    for i in range(1, 22):
        a = math.radians(110 - (i - 1) * 360 / 21)  # y points down: falling angles turn counter-clockwise
        pos[str(i)] = (cx + rx * math.cos(a), cy + ry * math.sin(a))
    x1, y1 = pos["1"]
    pos["raft"] = (x1 - 60, y1 + 75)
    x21, y21 = pos["21"]
    pos["nest"] = (cx + (x21 - cx) * 0.6, cy + (y21 - cy) * 0.6)
    return pos


def race_layout(game):
    names = game.cells()
    pos = {}
    for i, name in enumerate(names):
        pos[name] = (70 + i * 62, 330)
    return pos


def hex_layout(game):
    # Cube coordinates from the board geometry; cells are flat-topped, each
    # column running south (bottom) to north, the south player's corner at the
    # bottom.
    geometry = game.geometry or game.default_geometry() or {}
    size = 36
    pos = {}
    for name, q, r, _s in geometry.get("cells", []):
        pos[name] = (330 + size * 1.5 * q, 262 + size * math.sqrt(3) * (r + q / 2))
    return pos


def grid_layout(game):
    names = game.cells()
    cols = max(1, int(math.ceil(math.sqrt(len(names)))))
    return {n: (70 + (i % cols) * 64, 80 + (i // cols) * 64) for i, n in enumerate(names)}


# ---- pieces: cell name -> [Piece bottom first] ---------------------------------


def player_piece(token):
    # "2a" -> player 2's first turtle (players count from 1 in the notation)
    text = str(token)
    digits = "".join(ch for ch in text if ch.isdigit())
    n = int(digits) if digits else 1
    return Piece(PLAYER_COLOURS[(n - 1) % len(PLAYER_COLOURS)], text)


def mahe_pieces(game, snap):
    return {cell: [player_piece(t) for t in stack] for cell, stack in (snap.get("cells") or {}).items()}


def race_pieces(game, snap):
    out = {}
    for name, stack in zip(game.cells(), snap.get("track") or []):
        out[name] = [Piece(NAMED_COLOURS.get(c, "#888888"), c[:1].upper()) for c in stack]
    return out


TATTOOS = {"L": "Life", "E": "Exchange", "I": "Immortality", "C": "Contamination"}


def tortuga_piece(mark):
    # "S"/"N": a south/north turtle, "X": neutral (flipped); a second letter
    # is the tattoo's power (L, E, I, C).
    side, tattoo = mark[:1], mark[1:2]
    if side == "X":
        return Piece("#d8d0bc", "", True, tattoo)
    # ownership is the way a turtle faces: south's look north (up), north's down
    if side == "S":
        return Piece(PLAYER_COLOURS[0], "", False, tattoo, -90)
    return Piece(PLAYER_COLOURS[1], "", False, tattoo, 90)


def tortuga_pieces(game, snap):
    return {cell: [tortuga_piece(m)] for cell, m in (snap.get("turtles") or {}).items()}


def generic_pieces(game, snap):
    cells = snap.get("cells") or {}
    out = {}
    if isinstance(cells, dict):
        for cell, stack in cells.items():
            toks = stack if isinstance(stack, list) else [stack]
            out[cell] = [player_piece(t) for t in toks if t is not None]
    return out


GAMES = {
    "mahe": (mahe_layout, mahe_pieces, "Mahé"),
    "race": (race_layout, race_pieces, "The Turtle Race"),
    "tortuga": (hex_layout, tortuga_pieces, "Tortuga"),
}


# ---- drawing --------------------------------------------------------------------


def turtle(x, y, p: Piece, r=15, size=11, shapes=False):
    """One turtle seen from above, centred at (x, y); its letters `size` high.
    `shapes`: its shell a <use> of turtle_shapes(), scaled to `r`."""
    out = []
    if shapes:
        scale = f" scale({r / 15:.3g})" if r != 15 else ""
        turn = f" rotate({p.heading})" if p.heading and not p.flipped else ""
        out.append(f'<use href="#{"belly" if p.flipped else "shell"}" fill="{p.fill}" '
                   f'transform="translate({x:.1f} {y:.1f}){turn}{scale}"/>')
    elif p.flipped:
        # belly up: a pale plastron with a cross, legs in the air
        out.append(f'<ellipse cx="{x:.1f}" cy="{y:.1f}" rx="{r}" ry="{r * 0.75:.1f}" '
                   f'fill="{p.fill}" stroke="{INK}" stroke-width="1.5" stroke-dasharray="3,2"/>')
        out.append(f'<path d="M{x - r * 0.6:.1f},{y:.1f} H{x + r * 0.6:.1f} M{x:.1f},{y - r * 0.5:.1f} '
                   f'V{y + r * 0.5:.1f}" stroke="{INK}" stroke-width="1.2"/>')
    else:
        turn = f' transform="rotate({p.heading} {x:.1f} {y:.1f})"' if p.heading else ""
        out.append(f"<g{turn}>")
        for dx, dy in ((-0.8, -0.6), (0.8, -0.6), (-0.8, 0.6), (0.8, 0.6)):
            out.append(f'<circle cx="{x + dx * r:.1f}" cy="{y + dy * r:.1f}" r="{r * 0.22:.1f}" fill="#6b8e4e"/>')
        out.append(f'<circle cx="{x + r * 1.05:.1f}" cy="{y:.1f}" r="{r * 0.3:.1f}" fill="#6b8e4e"/>')
        out.append(f'<ellipse cx="{x:.1f}" cy="{y:.1f}" rx="{r}" ry="{r * 0.75:.1f}" '
                   f'fill="{p.fill}" stroke="{INK}" stroke-width="1.5"/>')
        out.append("</g>")
    label = p.tattoo or p.label
    if label:
        colour = "#ffffff" if p.fill in ("#1f77b4", "#9467bd", "#d62728", "#333333", "#2ca02c") else INK
        weight = "bold"
        if p.tattoo:
            out.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{r * 0.5:.1f}" fill="#ffffff" stroke="{INK}"/>')
            colour = INK
        out.append(f'<text x="{x:.1f}" y="{y + size * 0.36:.1f}" font-size="{size}" font-weight="{weight}" '
                   f'text-anchor="middle" fill="{colour}">{escape(label)}</text>')
    return out


def turtle_shapes() -> str:
    """The two shells turtle(shapes=True) uses, drawn once in a picture: a
    turtle facing right and one belly up, r 15 at (0, 0), each filled with
    its <use>'s colour."""
    legs = "".join(f'<circle cx="{dx * 15:.1f}" cy="{dy * 15:.1f}" r="3.3" fill="#6b8e4e"/>'
                   for dx, dy in ((-0.8, -0.6), (0.8, -0.6), (-0.8, 0.6), (0.8, 0.6)))
    return (f'<defs><g id="shell">{legs}<circle cx="15.8" cy="0" r="4.5" fill="#6b8e4e"/>'
            f'<ellipse rx="15" ry="11.2" stroke="{INK}" stroke-width="1.5"/></g>'
            f'<g id="belly"><ellipse rx="15" ry="11.2" stroke="{INK}" stroke-width="1.5" stroke-dasharray="3,2"/>'
            f'<path d="M-9,0 H9 M0,-7.5 V7.5" stroke="{INK}" stroke-width="1.2"/></g></defs>')


def stack(x, y, pieces, size=11, shapes=False):
    out = []
    for i, p in enumerate(pieces):
        out.extend(turtle(x, y - i * 17, p, size=size, shapes=shapes))
    return out


# The sizes of a picture's words: `render`'s, and the web page's (`big`), which
# a phone shows at about 0.6 of its size: each at least 11 px there.
TEXT = {"name": 9, "special": 10, "turtle": 11, "side": 13}
BIG_TEXT = {"name": 19, "special": 18, "turtle": 13, "side": 16}
LABEL = "#8a6d3b"
BIG_LABEL = "#5e4a22"  # darker: a small word on a pale cell


def picture_title(game, title: str) -> str:
    """The game's name as people know it: Tortuga's variants by their own names."""
    options = getattr(game, "options", {}) or {}
    if game.name == "tortuga" and options.get("tattoo"):
        return "Tattoo Turtles"
    if game.name == "tortuga" and options.get("hatching"):
        return "Hatching Day"
    return title


def tortuga_key(game, x, y) -> list[str]:
    """The key of a Tortuga picture: the teams by the way they face, neutral
    turtles, and the tattoo letters."""
    out = [f'<text x="{x}" y="{y}" font-size="12" font-weight="bold" fill="{INK}">Key</text>']
    rows = [(tortuga_piece("S"), "south (player 1): faces north"),
            (tortuga_piece("N"), "north (player 2): faces south"),
            (tortuga_piece("X"), "neutral: turned over")]
    if (getattr(game, "options", {}) or {}).get("tattoo"):
        rows.append((tortuga_piece("SL"), "a tattoo: " + ", ".join(
            f"{k} {v}" for k, v in TATTOOS.items())))
    for i, (piece, words) in enumerate(rows):
        ty = y + 24 + i * 30
        out.extend(turtle(x + 16, ty, piece, r=10))  # (the board's turtles are 15 and 11)
        for j, chunk in enumerate(wrap(words, 36)):
            out.append(f'<text x="{x + 38}" y="{ty + 4 + j * 14}" font-size="11" '
                       f'fill="{INK}">{escape(chunk)}</text>')
    return out


def layout_of(game) -> dict:
    """Where each cell of `game` is drawn: cell name -> (x, y)."""
    return GAMES.get(game.name, (grid_layout,))[0](game)


def board_parts(game, snap, say=None, pos=None, big=False) -> list[str]:
    """The board alone (x 0..680, y 0..560) with the turtles of `snap` (a view
    or snapshot of `game`): what `render` and the table's web page both draw.
    `say` translates its few words (cell names, the egg pile); `pos` places
    the cells elsewhere (the Race's track in two rows on a phone); `big`: the
    web page's larger words (a Mahé field's number beside its cell, a Race
    field's below it, where they have the room)."""
    return board_ground(game, say, pos, big) + board_pieces(game, snap, say, pos, big)


def board_ground(game, say=None, pos=None, big=False) -> list[str]:
    """The board without its turtles (as board_parts): the same all game long."""
    say = say or (lambda text: text)
    size = BIG_TEXT if big else TEXT
    ink = BIG_LABEL if big else LABEL
    weight = ' font-weight="bold"' if big else ""
    pos = pos or layout_of(game)
    out = []
    if game.name == "mahe":
        out.append(f'<ellipse cx="330" cy="250" rx="300" ry="220" fill="{BOARD}" stroke="{INK}"/>')
        pts = " ".join(f"{pos[str(i)][0]:.1f},{pos[str(i)][1]:.1f}" for i in range(1, 22))
        out.append(f'<polygon points="{pts}" fill="none" stroke="#b89b62" stroke-width="10" stroke-linejoin="round"/>')
    elif game.name == "race":
        xs = [p[0] for p in pos.values()]
        ys = [p[1] for p in pos.values()]
        below = 72 if big else 50  # (room for the words under the last row)
        out.append(f'<rect x="{min(xs) - 40}" y="{min(ys) - 130}" width="{max(xs) - min(xs) + 80}" '
                   f'height="{max(ys) - min(ys) + 130 + below}" rx="20" fill="{BOARD}" stroke="{INK}"/>')
        if len(set(ys)) > 1:  # a track that turns: its way from cell to cell
            pts = " ".join(f"{pos[c][0]:.1f},{pos[c][1]:.1f}" for c in game.cells())
            out.append(f'<polyline points="{pts}" fill="none" stroke="#b89b62" stroke-width="10" '
                       f'stroke-linejoin="round"/>')
    elif game.name == "tortuga":
        out.append(f'<polygon points="{hex_outline(330, 262, 250, flat=False)}" fill="{BOARD}" stroke="{INK}" stroke-width="2"/>')
        # (the web page's in the corners beside the hexagon: a phone shows the hexagon alone)
        left, top, bottom = (118, 30, 500) if big else (40, 36, 520)
        out.append(f'<text x="{left}" y="{bottom}" font-size="{size["side"]}" fill="{INK}">'
                   f'{escape(say("south: player 1"))}</text>')
        out.append(f'<text x="{left}" y="{top}" font-size="{size["side"]}" fill="{INK}">'
                   f'{escape(say("north: player 2"))}</text>')
    for name in game.cells():
        x, y = pos.get(name, (0, 0))
        special = name in ("raft", "nest", "start", "lettuce")
        r = 30 if special else 24
        if name == "raft" and game.name == "mahe":
            out.append(f'<rect x="{x - 62:.1f}" y="{y - 28:.1f}" width="124" height="56" rx="8" '
                       f'fill="#c8a97e" stroke="#8a6d3b" stroke-width="1.5"/>')
            out.append(f'<text x="{x:.1f}" y="{y + 29 + size["special"] * 1.3:.1f}" '
                       f'font-size="{size["special"]}" text-anchor="middle" fill="{INK}" class="label">'
                       f'{escape(say("raft"))}</text>')
            continue
        fill = {"nest": "#fbe7a1", "lettuce": "#a6d96a", "raft": "#c8a97e", "start": "#d9cdb4"}.get(name, CELL)
        if game.name == "tortuga":
            camp = name in camps(game)
            out.append(f'<polygon points="{hex_outline(x, y, 34)}" fill="{"#f6d28b" if camp else CELL}" stroke="#b89b62"/>')
            # the name at the top of the hexagon, clear of the turtle below it
            out.append(f'<text x="{x:.1f}" y="{y - 18 + (1 if big else 0):.1f}" '
                       f'font-size="{min(size["name"], 14)}" text-anchor="middle" fill="{ink}"{weight} '
                       f'class="label">{escape(name)}</text>')
            continue
        else:
            out.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{r}" fill="{fill}" stroke="#8a6d3b" stroke-width="1.5"/>')
        if special:
            out.append(f'<text x="{x:.1f}" y="{y + r + size["special"] * 1.2:.1f}" '
                       f'font-size="{size["special"]}" text-anchor="middle" fill="{INK}" class="label">'
                       f'{escape(say(name))}</text>')
        elif big:  # the field's number beside the cell, where no stack grows over it
            lx, ly = beside(game, x, y, r, size["name"])
            out.append(f'<text x="{lx:.1f}" y="{ly:.1f}" font-size="{size["name"]}" text-anchor="middle" '
                       f'fill="{ink}"{weight} class="label">{escape(name)}</text>')
        else:  # the field's number, small, at the bottom inside the cell
            out.append(f'<text x="{x:.1f}" y="{y + r - 3:.1f}" font-size="9" text-anchor="middle" '
                       f'fill="{LABEL}">{escape(name)}</text>')
    return out


def board_pieces(game, snap, say=None, pos=None, big=False, shapes=False) -> list[str]:
    """The turtles of `snap` on the board (as board_parts), and Mahé's egg
    pile. `shapes`: each turtle a <use> of turtle_shapes() (the picture
    must hold them): a seventh of the bytes."""
    say = say or (lambda text: text)
    size = BIG_TEXT if big else TEXT
    layout, pieces_of, _title = GAMES.get(game.name, (grid_layout, generic_pieces, game.name))
    pos = pos or layout(game)
    pieces = pieces_of(game, snap)
    out = []
    names = game.cells()
    for name in names:
        got = pieces.get(name) or []
        if not got:
            continue
        x, y = pos.get(name, (0, 0))
        if name == "raft" and game.name == "mahe":
            # the raft never stacks: turtles sit side by side
            for i, p in enumerate(got):
                out.extend(turtle(x - 42 + (i % 4) * 28, y - 12 + (i // 4) * 24, p, r=11,
                                  size=size["turtle"] - 2, shapes=shapes))
        elif game.name == "tortuga":
            out.extend(stack(x, y + 7, got, size["turtle"], shapes))  # below the cell's name
        else:
            out.extend(stack(x, y, got, size["turtle"], shapes))
    if game.name == "mahe":
        # the egg-card pile beside the nest, under its name (never over a turtle)
        x, y = (330, 250) if big else pos["nest"]  # (large: in the middle of the island, where it fits)
        y += 0 if big else 46 + size["special"]
        left = game.snapshot().get("pile", 0)
        out.append(f'<text x="{x:.1f}" y="{y:.1f}" font-size="{size["special"]}" '
                   f'text-anchor="middle" fill="{INK}">'
                   f'{escape(say("%d egg card%s in the pile" % (left, "" if left == 1 else "s")))}</text>')
    return out


def beside(game, x, y, r, size):
    """Where a field's number goes in the web page's picture: a Race field's
    below it (its stack grows upwards); a Mahé field's outside the island's
    loop, or inside it for a field at the top (below the field either way,
    never where its stack grows)."""
    if game.name != "mahe":
        return x, y + r + size
    dx, dy = (x - 330) / 250 ** 2, (y - 250) / 175 ** 2  # the loop's normal, outwards
    n = math.hypot(dx, dy) or 1
    dx, dy = dx / n, dy / n
    if dy < -0.45:
        dx, dy = -dx, -dy
    away = r + size * 0.75
    return x + dx * away, y + dy * away + size * 0.35


def svg_picture(game, player=None) -> str:
    title = picture_title(game, GAMES.get(game.name, (None, None, game.name))[2])
    snap = game.view(player) if player is not None else game.snapshot()
    width, height = 1000, 560
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" font-family="sans-serif">',
        f'<rect width="{width}" height="{height}" fill="{WATER if game.name == "mahe" else "#e9e4d8"}"/>',
    ]
    out.extend(board_parts(game, snap))
    # the panel
    px = 680
    out.append(f'<rect x="{px - 10}" y="20" width="{width - px}" height="{height - 40}" rx="10" '
               f'fill="#ffffff" fill-opacity="0.85" stroke="{INK}"/>')
    out.append(f'<text x="{px}" y="48" font-size="18" font-weight="bold" fill="{INK}">{escape(title)}</text>')
    y = 74
    bottom = height - 30 - (150 if game.name == "tortuga" else 0)  # room for the key
    for line in panel_lines(game, player, everything=player is None):
        for chunk in wrap(line, PANEL_CHARS):
            if y > bottom:
                break
            out.append(f'<text x="{px}" y="{y}" font-size="12" fill="{INK}">{escape(chunk)}</text>')
            y += 16
    if game.name == "tortuga":
        out.extend(tortuga_key(game, px, max(y + 10, bottom + 14)))
    out.append("</svg>")
    return "\n".join(out) + "\n"


PANEL_CHARS = 40  # characters of 12-px text a panel line holds (its 310 px)


def wrap(text, width):
    """Lines of at most `width` characters, broken at a space, else after a
    '+' (a sum of egg cards), else anywhere; later lines indented."""
    out = []
    while len(text) > width:
        cut = text.rfind(" ", 0, width)
        if cut <= 2:
            cut = text.rfind("+", 0, width - 1) + 1
        if cut <= 2:
            cut = width
        out.append(text[:cut].rstrip())
        text = "  " + text[cut:].lstrip()
    out.append(text)
    return out


def hex_outline(cx, cy, r, flat=True):
    start = 0 if flat else 30
    pts = []
    for k in range(6):
        a = math.radians(start + 60 * k)
        pts.append(f"{cx + r * math.cos(a):.1f},{cy + r * math.sin(a):.1f}")
    return " ".join(pts)


def camps(game):
    geometry = game.geometry or game.default_geometry() or {}
    return [p.get("camp") for p in geometry.get("players", [])]
