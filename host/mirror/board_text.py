"""The board as coloured terminal text, laid out as it is on the table.

board_text(game, leds=None, player=None, width=None, height=None) -> rich.text.Text

The cells sit where the SVG picture puts them (turtleboard.pictures.svg layouts: the
Mahé island loop, the Race track, the Tortuga hexagon), scaled to a character
grid. A cell shows its name and what stands on it: Mahé turtles by owner and
letter (1a, 2b; a stack bottom first: 1a/3b), Race turtles by colour initial,
stacked upwards, Tortuga S/N for the two sides and x for a flipped (neutral)
turtle, with a tattoo's initial after it. `leds` maps a cell to the colour its
LED shows ("rrggbb"), drawn as the cell's background.

Given the room it has (`width` x `height` characters), a board that does
not fit is drawn compact: the layout scaled down, an empty cell shown by its
name alone (dim), a cell with turtles by the turtles alone (a Mahé cell by
its name and its turtles, 13:1a, as its turtles are numbered too), each a
blank apart from the next (moved a little where they would run together);
below the least room that still reads, a line asks for a larger window.
"""

from __future__ import annotations

from rich.style import Style
from rich.text import Text

from turtleboard.pictures import svg

# (columns, rows, svg x range, svg y range, stack upwards)
FRAMES = {
    "mahe": (66, 20, (60, 600), (60, 540), False),
    "race": (66, 8, (40, 650), (250, 330), True),
    "tortuga": (50, 14, (140, 520), (70, 460), False),
}


def _colour(piece) -> str:
    return piece.fill


def cell_tokens(game, snap):
    """cell -> list of (text, colour) bottom first."""
    out = {}
    if game.name == "mahe":
        for cell, stack in (snap.get("cells") or {}).items():
            out[cell] = [(str(t), svg.player_piece(t).fill) for t in stack]
    elif game.name == "race":
        for name, stack in zip(game.cells(), snap.get("track") or []):
            out[name] = [(c[:1].upper(), svg.NAMED_COLOURS.get(c, "#888888")) for c in stack]
    elif game.name == "tortuga":
        for cell, mark in (snap.get("turtles") or {}).items():
            side = mark[:1]
            text = ("x" if side == "X" else side) + mark[1:2]
            colour = "#aaaaaa" if side == "X" else svg.PLAYER_COLOURS[0 if side == "S" else 1]
            out[cell] = [(text, colour)]
    else:
        for cell, stack in (snap.get("cells") or {}).items():
            toks = stack if isinstance(stack, list) else [stack]
            out[cell] = [(str(t), "#dddddd") for t in toks if t is not None]
    return out


MIN_ROOM = (24, 5)  # the least room a compact board still reads in
LABEL_ROOM = 12     # columns a full-size board needs beyond its frame (labels, stacks)


def board_text(game, leds: dict | None = None, player=None, width: int | None = None,
               height: int | None = None) -> Text:
    if game is None:
        return Text("no game on the board: press n to start one", style="italic")
    layout = {"mahe": svg.mahe_layout, "race": svg.race_layout, "tortuga": svg.hex_layout}.get(
        game.name, svg.grid_layout
    )
    pos = layout(game)
    cols, rows, (x0, x1), (y0, y1), upwards = FRAMES.get(
        game.name, (66, 16, (0, 700), (0, 560), False)
    )
    compact = False
    if (width is not None and width < MIN_ROOM[0]) or (height is not None and height < MIN_ROOM[1]):
        return Text("enlarge the window to see the board (80x24 or more)", style="bold yellow")
    if width is not None and height is not None and not upwards:
        # room to spare: a larger board (at most twice the size), the same shape
        grow = min((width - LABEL_ROOM) / cols, (height - 1) / rows, 2.0)
        if grow > 1.15:
            cols, rows = int(cols * grow), int(rows * grow)
    if width is not None and width < cols + LABEL_ROOM:
        cols, compact = width - 6, True
    if height is not None and height < rows + 1 + (2 if upwards else 0):
        rows, compact = height - 1 - (3 if upwards else 0), True
        if upwards:  # the track's stacks rise above it: keep it at the bottom
            rows = max(rows, 0)
    snap = game.view(player) if player is not None else game.snapshot()
    tokens = cell_tokens(game, snap)
    grid = [[(" ", None) for _ in range(cols + LABEL_ROOM)] for _ in range(rows + 1)]
    if upwards and compact:
        # rows of the frame hold only the track; stacks need the room above it
        tallest = max([len(t) for t in tokens.values()] + [1])
        grid = [[(" ", None) for _ in range(cols + LABEL_ROOM)] for _ in range(tallest + 1)]

    def put(r, c, text, style):
        if 0 <= r < len(grid):
            for i, ch in enumerate(text):
                if 0 <= c + i < len(grid[r]):
                    grid[r][c + i] = (ch, style)

    for name in game.cells():
        x, y = pos.get(name, (x0, y0))
        c = int(round((x - x0) / max(1, x1 - x0) * cols))
        r = int(round((y - y0) / max(1, y1 - y0) * rows))
        led = (leds or {}).get(name)
        bg = f"#{led}" if led and led != "000000" else None
        stack = tokens.get(name, [])
        if compact:
            _compact_cell(put, grid, name, stack, r, c, bg, upwards)
            continue
        if upwards:
            label = name
            put(r, c - len(label) // 2, label, Style(color="#8a6d3b", bgcolor=bg))
            for i, (t, colour) in enumerate(stack):
                put(r - 1 - i, c - 1, f"({t})", Style(color=colour, bold=True))
            continue
        put(r, c - len(name) // 2 - 1, name + ":", Style(color="#8a6d3b", bgcolor=bg))
        at = c - len(name) // 2 + len(name)
        if not stack:
            put(r, at, ".", Style(color="#555555", bgcolor=bg))
        for i, (t, colour) in enumerate(stack):
            if i:  # a stack, bottom first; the raft never stacks
                put(r, at, "," if name == "raft" else "/", Style(color="#888888"))
                at += 1
            put(r, at, t, Style(color=colour, bold=True, bgcolor=bg))
            at += len(t)
    while grid and all(ch == " " and st is None for ch, st in grid[-1]):
        grid.pop()
    out = Text()
    for line in grid:
        while line and line[-1][0] == " " and line[-1][1] is None:
            line = line[:-1]
        for ch, style in line:
            out.append(ch, style)
        out.append("\n")
    return out


def _compact_cell(put, grid, name, stack, r, c, bg, upwards) -> None:
    """A cell in little room: its turtles alone, or its name (dim) when empty."""
    label = name if not upwards or name.isdigit() else name[:1].upper()
    if upwards:
        base = len(grid) - 1
        put(base, c - len(label) // 2, label, Style(color="#8a6d3b", bgcolor=bg))
        for i, (t, colour) in enumerate(stack):
            put(base - 1 - i, c, t, Style(color=colour, bold=True))
        return
    # turtles named by number (Mahé) follow their cell's name: 13:1a, raft:3,4
    head = name + ":" if any(t[:1].isdigit() for t, _ in stack) else ""
    if not stack:
        head = label
    sep = "," if name == "raft" else "/"
    text_len = len(head) + sum(len(t) for t, _ in stack) + max(0, len(stack) - 1)
    r, at = _free_place(grid, r, c - text_len // 2, text_len)
    put(r, at, head, Style(color="#6f6f6f" if not stack else "#8a6d3b", bgcolor=bg))
    at += len(head)
    for i, (t, colour) in enumerate(stack):
        if i:
            put(r, at, sep, Style(color="#888888", bgcolor=bg))
            at += 1
        put(r, at, t, Style(color=colour, bold=True, bgcolor=bg))
        at += len(t)


def _free_place(grid, r, at, length):
    """(row, column) near (r, at) where `length` characters keep a blank
    on either side from what is drawn already, so that two cells never run
    together ("1514"); (r, at) itself if there is none."""
    for dr, dc in ((0, 0), (0, 1), (0, -1), (0, 2), (0, -2), (1, 0), (-1, 0), (0, 3), (0, -3),
                   (1, 1), (-1, 1), (1, -1), (-1, -1)):
        rr, cc = r + dr, at + dc
        if not 0 <= rr < len(grid) or cc < 0 or cc + length > len(grid[rr]):
            continue
        if all(grid[rr][k][0] == " " for k in range(max(0, cc - 1), min(len(grid[rr]), cc + length + 1))):
            return rr, cc
    return r, at
