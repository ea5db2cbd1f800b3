"""The virtual board by hand: a terminal view of the sim world (textual).

The cells sit as they do on the table (the same layouts as the SVG picture:
the Tortuga hexagon, the Mahé island loop, the Race track). Every cell shows
its name and its turtles, bottom first, on the colour of its LED, with a word
for what the light asks (take, put, turn, go, pick, here), so no colour has
to be told from another. A turtle shows its team, owner or colour when it
has one (S or N in Tortuga, 1a in Mahé, r y g b p in the Race), else ^ on
its feet; v is a flipped turtle. A stack too long for its cell shows its
top turtle, the one that decides, and how many it stands on ("3b on 3");
the Mahé raft, where turtles stand side by side, lists them sorted with
commas ("1a,1b+4": and four more). Below the cells, the board's other
LEDs: whose turn (a light per seat), the dice, the status light, each in
words, and any LED lit beside no cell (one soldered in too many), by its
place on the chain. Every line keeps its row: the grid stays put at 80x24.

The table fits the window: at full size each cell is a box with a border;
in a smaller window (80x24) each cell is drawn without one, its name over its
turtles, the table scaled to the room (cells that would touch moved a little
apart); smaller still, the table scrolls and follows the selected cell. The
lights, the hand and the keys stay at the bottom.

LED colours are shown as bright as a person sees them (the firmware dims
them to the board's brightness). Select a cell with the arrow keys (to the
nearest cell that way) or a click, then lift the top turtle (l; l again
on the same cell: the next one under it too; L the whole stack; on the
raft, where turtles stand side by side, l takes the turtle the board asks
for, l again another one instead), put the
hand down (p, or P flipped), flip (f), turn a turtle about to the other team (r); take a turtle
from the box (t), put the hand back in the box (x); lay out the start of the
board's game (s; +/- the number of players it is laid out for), clear the
board into the box (c); press NEXT (n), OK (o) or UNDO (u); quit (q or Ctrl-C).
"""

from __future__ import annotations

from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Container, ScrollableContainer
from textual.geometry import Region
from textual.widgets import Footer, Static

from controller import scenes
from turtleboard.pictures import svg
from turtleboard.sim.hands import _counts
from turtleboard.sim.world import World, WorldError
from turtles import game_class, new_game
from turtles.game import EMPTY, UP
from turtles.race import COLOURS

PRESS_MS = 200  # how long a key holds a button down
TOUCH_MS = 60   # between two touches of the pieces while laying out
CELL_W, CELL_H = 9, 4  # a cell's box in characters, border included
COMPACT_W, COMPACT_H = 7, 2  # a cell without a border: its name over its turtles
RACE_TURTLES = 5  # the five colours stacked on the start
DEFAULT_PLAYERS = 4  # the start is laid out for this many (as far as the game allows)
SIDE_BY_SIDE = ("raft",)  # cells whose turtles stand side by side, never stacked (Mahé)

# svg layout -> characters: (layout, columns per svg unit, rows per svg unit)
LAYOUTS = {
    "tortuga": (svg.hex_layout, 10 / 54, 2 / 31.18),  # column pitch 10, half a cell 2 rows
    "mahe": (svg.mahe_layout, 0.22, 0.083),  # the oval without overlaps, 38 rows
    "race": (svg.race_layout, 11 / 62, 0),
}


def piece_mark(name: str, up: bool) -> str:
    """A turtle: its team, owner or colour on its feet (S, N, 1a, r for
    red), ^ when it has none, v flipped."""
    if not up:
        return "v"
    if name in COLOURS:
        return name[0]
    return "^" if name == "turtle" else name


def stack_text(stack: list, side_by_side: bool = False, width: int = COMPACT_W) -> str:
    """The turtles of a cell in at most `width` characters: bottom first
    ('1a/3b'); too many for that, the top one and how many it stands on
    ('3b on 3'). Side by side (the raft): sorted, with commas, and how many
    more when they do not fit ('1a,1b+4')."""
    if not stack:
        return "."
    marks = [piece_mark(name, up) for name, up in stack]
    if side_by_side:
        marks.sort()
        for shown in range(len(marks), 0, -1):
            more = len(marks) - shown
            text = ",".join(marks[:shown]) + ("+%d" % more if more else "")
            if len(text) <= width or shown == 1:
                return text
    sep = "" if all(len(m) == 1 for m in marks) else "/"
    text = sep.join(marks)
    return text if len(text) <= width else "%s on %d" % (marks[-1], len(marks) - 1)


# What a cell's light asks for, in a word (the firmware's scene colours).
LED_WORDS = (
    (scenes.TAKE, "take"), (scenes.PUT, "put"), (scenes.FLIP, "turn"), (scenes.DEST, "go"),
    (scenes.PREVIEW, "pick"), (scenes.TARGET, "here"),
)
STATUS_WORDS = {
    "idle": "the board matches the game",
    "wait": "change the board as lit",
    "prompt": "a question: NEXT shows the next answer, OK confirms",
    "over": "the game is over",
    "error": "trouble: see the host",
    "nogame": "no game: start one from the host",
}


def seen_colour(colour: str, brightness: int) -> str:
    """An LED's colour as bright as the eye sees it: the firmware dims every
    LED to the board's brightness (1..255); the view undoes that."""
    if brightness >= 255:
        return colour
    rgb = [int(colour[i:i + 2], 16) for i in (0, 2, 4)]
    return "".join("%02x" % min(255, (c * 255 + brightness // 2) // brightness) for c in rgb)


def colour_word(colour: str, table) -> str:
    """The word of the colour nearest `colour` ('rrggbb', as seen) in table, or ''."""
    rgb = [int(colour[i:i + 2], 16) for i in (0, 2, 4)]
    if max(rgb) < 24:
        return ""
    best = min(table, key=lambda cw: sum((a - b) ** 2 for a, b in zip(cw[0], rgb)))
    if sum((a - b) ** 2 for a, b in zip(best[0], rgb)) > 60 ** 2 * 3:
        return ""
    return best[1]


def readable_on(colour: str) -> str:
    """Black or white text, whichever reads on that LED colour."""
    r, g, b = int(colour[0:2], 16), int(colour[2:4], 16), int(colour[4:6], 16)
    return "black" if r * 299 + g * 587 + b * 114 > 128000 else "white"


def board_game(board, players: int | None = None):
    """The board's game at its start, for `players` (clipped to what it allows)."""
    cls = game_class(board.games[0])
    n = DEFAULT_PLAYERS if players is None else players
    n = max(cls.min_players, min(cls.max_players, n))
    return new_game(board.games[0], n, None, board.geometry)


def table_layout(board) -> dict:
    """cell -> (x, y): where it sits on the table, in svg units (y down)."""
    game = board_game(board)
    layout = LAYOUTS.get(game.name, (svg.grid_layout, 0, 0))[0]
    pos = layout(game)
    out = {}
    spare = 0
    bottom = max([y for _, y in pos.values()] or [0])
    for cell in board.cells:
        if cell not in pos:  # a cell the layout does not know: a row below
            spare += 1
            pos[cell] = (spare * 64, bottom + 80)
        out[cell] = pos[cell]
    return out


def char_layout(board, pos: dict) -> dict:
    """cell -> (column, row) of its box's top left corner."""
    game = board.games[0]
    _, sx, sy = LAYOUTS.get(game, (None, 10 / 64, 4 / 64))
    x0 = min(x for x, _ in pos.values())
    y0 = min(y for _, y in pos.values())
    return {c: (int(round((x - x0) * sx)), int(round((y - y0) * sy))) for c, (x, y) in pos.items()}


def fit_layout(pos: dict, scale: tuple, cols: int, rows: int) -> dict | None:
    """cell -> (column, row) of compact cells (COMPACT_W x COMPACT_H, a
    column apart side by side) for the table `pos` scaled into cols x rows,
    never larger than `scale`; a cell that would touch another is moved to
    the nearest free place. None if they cannot all find room there."""
    x0 = min(x for x, _ in pos.values())
    y0 = min(y for _, y in pos.values())
    span_x = max(x for x, _ in pos.values()) - x0
    span_y = max(y for _, y in pos.values()) - y0
    sx = scale[0] if not span_x else min(scale[0], (cols - COMPACT_W) / span_x)
    sy = scale[1] if not span_y else min(scale[1], (rows - COMPACT_H) / span_y)
    if sx < 0 or sy < 0:
        return None
    nudges = sorted(((dx, dy) for dx in range(-4, 5) for dy in range(-2, 3)),
                    key=lambda d: abs(d[0]) + 3 * abs(d[1]))
    at: dict = {}
    for cell, (x, y) in pos.items():
        c, r = int(round((x - x0) * sx)), int(round((y - y0) * sy))
        for dx, dy in nudges:
            cc, rr = c + dx, r + dy
            if 0 <= cc <= cols - COMPACT_W and 0 <= rr <= rows - COMPACT_H and not any(
                    cc < oc + COMPACT_W + 1 and oc < cc + COMPACT_W + 1
                    and rr < orow + COMPACT_H and orow < rr + COMPACT_H
                    for oc, orow in at.values()):
                at[cell] = (cc, rr)
                break
        else:
            return None
    return at


def nearest(pos: dict, cell: str, dx: int, dy: int, line: float | None = None) -> str:
    """The cell nearest to `cell` in direction (dx, dy) (y down), or `cell` if none.

    `line` is the row (or column) a run of moves across keeps to, so that
    right, right on a hexagon zigzags along its row instead of drifting off."""
    x0, y0 = pos[cell]
    if line is None:
        line = y0 if dx else x0
    best = None
    for other, (x, y) in pos.items():
        along = (x - x0) * dx + (y - y0) * dy
        across = abs((x - x0) * dy - (y - y0) * dx)
        if other == cell or along <= 0 or across > 1.5 * along:
            continue  # only the cells ahead, within about 56 degrees either side
        off = abs((y if dx else x) - line)
        score = along + off + across / 2
        if best is None or score < best[0]:
            best = (score, other)
    return cell if best is None else best[1]


def start_want(game) -> dict:
    """cell -> (turtles, on its feet, [their names bottom first]) of the game's start."""
    image = game.image()
    counts = _counts(game)
    names = piece_names(game)
    want = {}
    for i, cell in enumerate(game.cells()):
        if image[i] != EMPTY:
            n = counts[i]
            if game.name == "race" and i == 0:
                n = RACE_TURTLES  # the engine keeps the start's stack implicit
            given = names.get(cell, [])
            if game.name == "race" and i == 0 and len(given) != n:
                given = list(COLOURS)  # the start stack not told yet: in colour order
            want[cell] = (n, image[i] == UP, given if len(given) == n else ["turtle"] * n)
    return want


def piece_names(game) -> dict:
    """cell -> the names of its turtles (team or owner), where the game knows them."""
    snap = game.snapshot()
    if game.name == "tortuga":
        return {cell: [mark[:1]] for cell, mark in (snap.get("turtles") or {}).items()
                if mark[:1] in ("S", "N")}
    if game.name == "mahe":
        return {cell: list(stack) for cell, stack in (snap.get("cells") or {}).items()}
    if game.name == "race":
        return {cell: list(stack) for cell, stack in zip(game.cells(), snap.get("track") or [])
                if stack}
    return {}


def wanted_on(snap: dict | None, cell: str, stack: list) -> int:
    """Which turtle of `stack` (a cell's, side by side) the board asks for,
    by its index: one the game (its snapshot `snap`) has moved off that cell
    already, else the turtle about to move, else the last put there."""
    if snap and snap.get("game") == "mahe":
        names = [name for name, _ in stack]
        there = list((snap.get("cells") or {}).get(cell, []))
        for i, name in enumerate(names):
            if name in there:
                there.remove(name)
            else:
                return i  # on this cell here, elsewhere in the game
        if snap.get("mover") in names:
            return names.index(snap["mover"])
    return len(stack) - 1


def lay_out(world: World, want: dict):
    """Lay out `want` (cell -> (turtles, up)) as a person would, one touch at a
    time (a generator: it stops after each touch): the hand emptied into the
    box, wrong cells cleared, then turtles from the box onto the cells that
    need them."""
    if world.hand:
        world.put_away()
        yield
    for cell in world.board.cells:
        stack = world.stacks[cell]
        n, up = want.get(cell, (0, True, []))[:2]
        if stack and (len(stack) != n or stack[0][1] != up):
            world.lift(cell)
            yield
            world.put_away()
            yield
    for cell in world.board.cells:
        n, up, names = want.get(cell, (0, True, []))
        if n and not world.stacks[cell]:
            for name in names:
                world.take(name)
            world.place(cell, None, up)
            yield


def turn_about(world: World, cell: str) -> None:
    """Turn the top turtle of a cell to face the other team (S <-> N): what
    the sensors cannot see, so only the pieces' file changes."""
    with world.lock:
        stack = world.stacks.get(cell)
        if not stack:
            raise WorldError("cell %s is empty: there is no turtle to turn about" % cell)
        name, up = stack[-1]
        if name not in ("S", "N"):
            raise WorldError("the turtle on %s belongs to no team (lay out the start with s)" % cell)
        stack[-1] = ["N" if name == "S" else "S", up]
        world._save()


class CellView(Static):
    def __init__(self, cell: str, index: int):
        super().__init__(id="cell-%d" % index, classes="cell")
        self.cell = cell
        self.index = index

    def on_click(self) -> None:
        self.app.select(self.index)


class TableBox(ScrollableContainer):
    """The table's room: the cells are laid out again when it changes. It
    never takes the focus: the arrow keys move the selection, not the view."""

    can_focus = False

    def on_resize(self, event) -> None:
        self.app.arrange(event.size.width, event.size.height)


class WorldApp(App):
    CSS = """
    #tablebox { height: 1fr; }
    #table { margin: 1 2 0 2; }
    #table.compact { margin: 0; }
    .cell { position: absolute; width: %d; height: %d; border: round $panel;
            content-align: center middle; text-align: center; }
    .cell.selected { border: double $accent; }
    .cell.compact { width: %d; height: %d; border: none; }
    .cell.compact.selected { text-style: reverse bold; }
    #hand, #info, #port, #leds, #status { padding: 0 1; height: 1; text-wrap: nowrap;
                                 text-overflow: ellipsis; }
    """ % (CELL_W, CELL_H, COMPACT_W, COMPACT_H)
    ENABLE_COMMAND_PALETTE = False  # its key would push the keys off an 80-column line
    BINDINGS = [
        Binding("left", "move(-1, 0)", "left", show=False),
        Binding("right", "move(1, 0)", "right", show=False),
        Binding("up", "move(0, -1)", "up", show=False),
        Binding("down", "move(0, 1)", "down", show=False),
        ("l", "lift", "lift"), Binding("L", "lift_all", "lift all", show=False),
        ("p", "place(1)", "put"), ("P", "place(0)", "flipped"),
        ("f", "flip", "flip"), ("r", "turn_about", "team"), ("t", "take", "take"),
        Binding("x", "put_away", "to box", show=False),  # said on the hand's line while it holds turtles
        # s, + and - are said on the hand's line
        Binding("s", "start", "start", show=False), Binding("plus", "players(1)", "player", show=False),
        Binding("minus", "players(-1)", "player", show=False), ("c", "clear", "clear"),
        ("n", "press('next')", "NEXT"), ("o", "press('ok')", "OK"),
        ("u", "press('undo')", "UNDO"), ("q", "quit", "quit"),
        Binding("ctrl+c", "quit", "quit", show=False, priority=True),
    ]

    def __init__(self, world: World, port: str = "", players: int = DEFAULT_PLAYERS,
                 heard=None):
        super().__init__()
        self.world = world
        self.heard = heard  # the board's game, overheard on its port (sim/overheard.py), or None
        self.port = port
        self.selected = 0
        self.message = ""
        self.busy = ""  # what the hands are laying out, while they are
        self.shown: dict = {}  # cell -> what its view shows now
        self.line = None  # (axis, row or column) the arrow moves keep to
        self.players = board_game(world.board, players).players
        self.pos = table_layout(world.board)
        self.at = char_layout(world.board, self.pos)
        self.placed = None  # (cell -> (column, row), width, height, top, left) as drawn
        self.lifted_from = None  # the cell the hand took its turtles from (l again: one more)
        self.title = "Turtleboard (virtual) %s" % port

    def compose(self) -> ComposeResult:
        yield Static("virtual board on %s: connect with `turtleboard play --port %s`"
                     % (self.port, self.port) if self.port else "virtual board", id="port")
        with TableBox(id="tablebox"):
            table = Container(id="table")
            table.styles.width = max(c for c, _ in self.at.values()) + CELL_W
            table.styles.height = max(r for _, r in self.at.values()) + CELL_H
            with table:
                for i, cell in enumerate(self.world.board.cells):
                    view = CellView(cell, i)
                    view.styles.offset = self.at[cell]
                    yield view
        yield Static(id="leds")
        yield Static(id="status")
        yield Static(id="hand")
        yield Static(id="info")
        yield Footer(compact=True)

    def on_mount(self) -> None:
        self.redraw()
        self.set_interval(0.1, self.redraw)

    def arrange(self, cols: int, rows: int) -> None:
        """Lay the cells out for a table box of cols x rows: full size if it
        fits, else compact, scaled to the room (scrolled if even that is too big)."""
        game = self.world.board.games[0]
        scale = LAYOUTS.get(game, (None, 10 / 64, 4 / 64))[1:]
        at = self.at  # full size, with a margin of 2 columns either side, 1 row on top
        compact = (max(c for c, _ in at.values()) + CELL_W + 4 > cols
                   or max(r for _, r in at.values()) + CELL_H + 1 > rows)
        if compact:
            at = fit_layout(self.pos, scale, cols, rows)
            grow = 0
            while at is None:  # too small even compact: a taller table, scrolled
                grow += 1      # (beside its scroll bar), wider too if need be
                at = fit_layout(self.pos, scale, max(cols - 2, 2 * COMPACT_W) + 4 * max(0, grow - 20),
                                max(rows, COMPACT_H) + 2 * grow)
        w, h = (COMPACT_W, COMPACT_H) if compact else (CELL_W, CELL_H)
        self.placed = (at, w, h) + ((0, 0) if compact else (1, 2))  # the table's margin
        table = self.query_one("#table", Container)
        table.set_class(compact, "compact")
        table.styles.width = max(c for c, _ in at.values()) + w
        table.styles.height = max(r for _, r in at.values()) + h
        for view in self.query(CellView):
            view.set_class(compact, "compact")
            view.styles.offset = at[view.cell]
        self.call_after_refresh(self.show_selected)

    def show_selected(self) -> None:
        """Scroll the table so that the selected cell is in sight."""
        if self.placed is None:
            return
        at, w, h, top, left = self.placed
        col, row = at[self.cell]
        self.query_one("#tablebox", TableBox).scroll_to_region(
            Region(left + col, top + row, w, h), animate=False, immediate=True)

    def select(self, index: int) -> None:
        self.selected = index % len(self.world.board.cells)
        self.line = None
        self.redraw()
        self.show_selected()

    def redraw(self) -> None:
        views = list(self.query(CellView))
        texts = {w.id: w for w in self.query("#leds, #status, #hand, #info").results(Static)}
        if len(views) != len(self.world.board.cells) or len(texts) != 4:
            return  # not shown (yet, or any more: the app's closing removes them one by one)
        board = self.world.board
        leds = self.world.leds()
        leds = [seen_colour(c, board.brightness) for c in leds]
        for i, cell in enumerate(board.cells):
            view = views[i]
            led = self.world.wiring.led[cell]  # where it is soldered
            colour = leds[led] if led < len(leds) else "000000"
            word = colour_word(colour, LED_WORDS)
            pieces = stack_text(self.world.stacks[cell], cell in SIDE_BY_SIDE)
            if word:
                pieces = word if len(pieces) + len(word) > 6 else "%s %s" % (pieces, word)
            look = ("%s\n%s" % (cell, pieces), colour, i == self.selected)
            if self.shown.get(cell) == look:
                continue  # redrawing an unchanged cell costs the hands' thread time
            self.shown[cell] = look
            view.update(look[0])
            view.styles.background = "#" + colour
            view.styles.color = readable_on(colour)
            view.set_class(look[2], "selected")
        for name, text in zip(("leds", "status"), self.group_lights(leds)):
            if self.shown.get(name) != text.plain:
                self.shown[name] = text.plain
                texts[name].update(text)
        hand = self.world.hand
        if not hand:
            more = "   s: lay out the start for %d players (+/-)" % self.players
        elif self.lifted_from != self.cell:
            more = "   p: put down   x: back in the box"
        elif self.cell in SIDE_BY_SIDE:
            more = "   l: another one instead   p: put down"
        else:
            more = "   l: one more   p: put down"
        held = "   held: %s" % " ".join(self.world.held) if self.world.held else ""
        lines = ("hand: %s%s%s" % (stack_text(hand, width=40) if hand else "empty", held, more),
                 self.busy or self.message)
        if self.shown.get("") != lines:
            self.shown[""] = lines
            texts["hand"].update(lines[0])
            texts["info"].update(lines[1])

    def group_lights(self, leds: list) -> tuple[Text, Text]:
        """The board's LEDs beside no cell, in two lines: a light per seat and
        the dice; the status light and any other LED lit (one too many)."""
        groups = self.world.board.groups
        out = Text()

        placed = self.world.wiring.light_at  # where the board file's light is soldered

        def lit(i):
            i = placed(i)
            return leds[i] if i < len(leds) else "000000"

        turn = groups.get("turn") or []
        if turn:
            out.append("turn: ")
            seats = [(n + 1, lit(i)) for n, i in enumerate(turn)]
            on = [n for n, c in seats if c != "000000"]
            for n, c in seats:
                out.append(" %d " % n, style="bold %s on #%s" % (readable_on(c), c)
                           if c != "000000" else "dim")
                out.append(" ")
            if not on:
                who = "nobody"
            elif all(c == "ffffff" for n, c in seats if n in on) and len(on) > 1:
                who = "chance decides"
            else:
                who = "player %s" % " and ".join(map(str, on))
            out.append("(%s)   " % who)
        dice = groups.get("dice") or []
        if dice:
            pips = sum(1 for i in dice if lit(i) != "000000")
            out.append("dice: ")
            out.append("●" * pips, style="bold")
            out.append("○" * (len(dice) - pips), style="dim")
            out.append(" (%s)   " % (pips or "none"))
        out.rstrip()
        seats, out = out, Text()
        status = groups.get("status") or []
        if status:
            c = lit(status[0])
            table = [(colour, name) for name, colour in scenes.STATUS.items()]
            name = colour_word(c, table) or ("nogame" if max(bytes.fromhex(c)) < 24 else "")
            out.append("status ")
            out.append("  ", style="on #%s" % c)
            out.append(" %s   " % STATUS_WORDS.get(name, "unknown light #%s" % c))
        for i in self.beside_nothing():
            if i < len(leds) and leds[i] != "000000":
                out.append("LED %d " % i)
                out.append("  ", style="on #%s" % leds[i])
                out.append(" lit beside no cell   ")
        out.rstrip()
        return seats, out

    def beside_nothing(self) -> list[int]:
        """The LEDs on the chain beside no cell and not a group's light (one
        soldered in too many, a spare the board file leaves unused)."""
        wiring = self.world.wiring
        used = set(wiring.led.values()) | {wiring.light_at(i) for lights in
                                           self.world.board.groups.values() for i in lights}
        return [i for i in range(wiring.chain) if i not in used]

    @property
    def cell(self) -> str:
        return self.world.board.cells[self.selected]

    def _do(self, what, *args) -> None:
        if self.busy:
            self.message = "wait: the hands are still busy (%s)" % self.busy
        else:
            try:
                what(*args)
                self.message = ""
            except WorldError as e:
                self.message = str(e)
        self.redraw()

    def _hands(self, what: str, want: dict) -> None:
        """Lay out `want`, a touch every TOUCH_MS, as the firmware watches."""
        if self.busy:
            self.message = "wait: the hands are still busy (%s)" % self.busy
            return
        self.busy = what
        touches = lay_out(self.world, want)

        def touch():
            try:
                next(touches)
                return
            except StopIteration:
                self.message = "done: %s" % what
            except WorldError as e:
                self.message = "%s stopped: %s" % (what, e)
            self.busy = ""
            timer.stop()

        timer = self.set_interval(TOUCH_MS / 1000, touch)

    def action_move(self, dx: int, dy: int) -> None:
        axis = "x" if dx else "y"
        x, y = self.pos[self.cell]
        if self.line is None or self.line[0] != axis:
            self.line = (axis, y if dx else x)
        line = self.line
        self.select(self.world.board.cells.index(nearest(self.pos, self.cell, dx, dy, line[1])))
        self.line = line  # a run of moves across keeps to its row

    def action_lift(self) -> None:
        """The top turtle of the cell; again on the same cell, the next one
        under it too (the top k of a stack, marks and all). Where turtles
        stand side by side (the raft): the one the board asks for; again,
        the next one instead."""
        cell = self.cell
        again = self.world.hand and self.lifted_from == cell
        if cell in SIDE_BY_SIDE:
            if again:
                self._do(self.other_one, cell)
            else:
                stack = self.world.stacks[cell]
                snap = self.heard.snapshot() if self.heard is not None else None
                self._do(self.world.pick, cell, wanted_on(snap, cell, stack) if stack else 0)
        elif again:
            self._do(self.world.lift_more, cell)
            return
        else:
            self._do(self.world.lift, cell, 1)
        if not self.message:
            self.lifted_from = cell

    def other_one(self, cell: str) -> None:
        """Put the turtle in hand back beside the others, take the next one."""
        with self.world.lock:
            stack = self.world.stacks[cell]
            if len(self.world.hand) != 1 or not stack:
                raise WorldError("no other turtle on %s to take instead" % cell)
            self.world.place(cell)
            self.world.pick(cell, 0)  # the one that stood first: round them all

    def action_lift_all(self) -> None:
        self._do(self.world.lift, self.cell)
        if not self.message:
            self.lifted_from = self.cell

    def action_place(self, up: int) -> None:
        self._do(self.world.place, self.cell, None, bool(up))

    def action_flip(self) -> None:
        self._do(self.world.flip, self.cell)

    def action_turn_about(self) -> None:
        self._do(turn_about, self.world, self.cell)

    def action_take(self) -> None:
        self._do(self.world.take)

    def action_put_away(self) -> None:
        self._do(self.world.put_away)

    def action_start(self) -> None:
        game = board_game(self.world.board, self.players)
        self._hands("laying out the start of %s for %d players" % (game.name, game.players),
                    start_want(game))

    def action_players(self, step: int) -> None:
        self.players = board_game(self.world.board, self.players + step).players
        self.redraw()

    def action_clear(self) -> None:
        self._hands("clearing the board into the box", {})

    def action_press(self, name: str) -> None:
        self._do(self.world.press, name)
        self.set_timer(PRESS_MS / 1000, lambda: self.world.release(name))
