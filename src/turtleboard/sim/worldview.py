"""The virtual board by hand: a terminal view of the sim world (textual).

The cells sit as they do on the table (the same layouts as the SVG picture:
the Tortuga hexagon, the Mahé island loop, the Race track). Every cell shows
its name and its turtles, bottom first (^ on its feet, v flipped), on the
colour of its LED. Select a cell with the arrow keys (to the nearest cell that
way) or a click, then lift (l), put down (p, or P flipped), flip (f); take a
turtle from the box (t), put the hand back in the box (x); lay out the start
of the board's game (s; +/- the number of players it is laid out for), clear
the board into the box (c); press NEXT (n) or OK (o); quit (q).
"""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Container
from textual.widgets import Footer, Static

from turtleboard import svg
from turtleboard.sim.hands import _counts
from turtleboard.sim.world import World, WorldError
from turtles import game_class, new_game
from turtles.game import EMPTY, UP

PRESS_MS = 200  # how long a key holds a button down
TOUCH_MS = 60   # between two touches of the pieces while laying out
CELL_W, CELL_H = 9, 4  # a cell's box in characters, border included
RACE_TURTLES = 5  # the five colours stacked on the start
DEFAULT_PLAYERS = 4  # the start is laid out for this many (as far as the game allows)

# svg layout -> characters: (layout, columns per svg unit, rows per svg unit)
LAYOUTS = {
    "tortuga": (svg.hex_layout, 10 / 54, 2 / 31.18),  # column pitch 10, half a cell 2 rows
    "mahe": (svg.mahe_layout, 0.22, 0.083),  # the oval without overlaps, 38 rows
    "race": (svg.race_layout, 11 / 62, 0),
}


def stack_text(stack: list) -> str:
    """The turtles of a cell, bottom first: ^ on its feet, v flipped."""
    if not stack:
        return "."
    marks = "".join("^" if up else "v" for _, up in stack)
    return marks if len(stack) <= 5 else "%s x%d" % (marks[0], len(stack))


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
    """cell -> (turtles, on its feet) of the game's start image."""
    image = game.image()
    counts = _counts(game)
    want = {}
    for i, cell in enumerate(game.cells()):
        if image[i] != EMPTY:
            n = counts[i]
            if game.name == "race" and i == 0:
                n = RACE_TURTLES  # the engine keeps the start's stack implicit
            want[cell] = (n, image[i] == UP)
    return want


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
        n, up = want.get(cell, (0, True))
        if stack and (len(stack) != n or stack[0][1] != up):
            world.lift(cell)
            yield
            world.put_away()
            yield
    for cell in world.board.cells:
        n, up = want.get(cell, (0, True))
        if n and not world.stacks[cell]:
            for _ in range(n):
                world.take()
            world.place(cell, None, up)
            yield


class CellView(Static):
    def __init__(self, cell: str, index: int):
        super().__init__(id="cell-%d" % index, classes="cell")
        self.cell = cell
        self.index = index

    def on_click(self) -> None:
        self.app.select(self.index)


class WorldApp(App):
    CSS = """
    #table { margin: 1 2 0 2; }
    .cell { position: absolute; width: %d; height: %d; border: round $panel;
            content-align: center middle; text-align: center; }
    .cell.selected { border: double $accent; }
    #hand, #info, #port { padding: 0 1; }
    """ % (CELL_W, CELL_H)
    BINDINGS = [
        Binding("left", "move(-1, 0)", "left", show=False),
        Binding("right", "move(1, 0)", "right", show=False),
        Binding("up", "move(0, -1)", "up", show=False),
        Binding("down", "move(0, 1)", "down", show=False),
        ("l", "lift", "lift"), ("p", "place(1)", "put"), ("P", "place(0)", "put flipped"),
        ("f", "flip", "flip"), ("t", "take", "take"), ("x", "put_away", "to box"),
        ("s", "start", "start"), ("plus", "players(1)", "player"),
        ("minus", "players(-1)", "player"), ("c", "clear", "clear"),
        ("n", "press('next')", "NEXT"), ("o", "press('ok')", "OK"), ("q", "quit", "quit"),
    ]

    def __init__(self, world: World, port: str = "", players: int = DEFAULT_PLAYERS):
        super().__init__()
        self.world = world
        self.port = port
        self.selected = 0
        self.message = ""
        self.busy = ""  # what the hands are laying out, while they are
        self.shown: dict = {}  # cell -> what its view shows now
        self.line = None  # (axis, row or column) the arrow moves keep to
        self.players = board_game(world.board, players).players
        self.pos = table_layout(world.board)
        self.at = char_layout(world.board, self.pos)
        self.title = "Turtleboard (virtual) %s" % port

    def compose(self) -> ComposeResult:
        yield Static("virtual board on %s: connect the host with `turtleboard play --port %s`"
                     % (self.port, self.port) if self.port else "virtual board", id="port")
        table = Container(id="table")
        table.styles.width = max(c for c, _ in self.at.values()) + CELL_W
        table.styles.height = max(r for _, r in self.at.values()) + CELL_H
        with table:
            for i, cell in enumerate(self.world.board.cells):
                view = CellView(cell, i)
                view.styles.offset = self.at[cell]
                yield view
        yield Static(id="hand")
        yield Static(id="info")
        yield Footer()

    def on_mount(self) -> None:
        self.redraw()
        self.set_interval(0.1, self.redraw)

    def select(self, index: int) -> None:
        self.selected = index % len(self.world.board.cells)
        self.line = None
        self.redraw()

    def redraw(self) -> None:
        if not self.query(CellView):
            return  # not shown (yet, or any more)
        board = self.world.board
        leds = self.world.leds()
        views = list(self.query(CellView))
        for i, cell in enumerate(board.cells):
            view = views[i]
            led = self.world.wiring.led[cell]  # where it is soldered
            colour = leds[led] if led < len(leds) else "000000"
            look = ("%s\n%s" % (cell, stack_text(self.world.stacks[cell])), colour,
                    i == self.selected)
            if self.shown.get(cell) == look:
                continue  # redrawing an unchanged cell costs the hands' thread time
            self.shown[cell] = look
            view.update(look[0])
            view.styles.background = "#" + colour
            view.styles.color = readable_on(colour)
            view.set_class(look[2], "selected")
        hand = self.world.hand
        lines = ("hand: %s   buttons held: %s   start (s) for %d players (+/-)" % (
            " ".join("^" if up else "v" for _, up in hand) or "empty",
            " ".join(self.world.held) or "none", self.players), self.busy or self.message)
        if self.shown.get("") != lines:
            self.shown[""] = lines
            self.query_one("#hand", Static).update(lines[0])
            self.query_one("#info", Static).update(lines[1])

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
        self._do(self.world.lift, self.cell)

    def action_place(self, up: int) -> None:
        self._do(self.world.place, self.cell, None, bool(up))

    def action_flip(self) -> None:
        self._do(self.world.flip, self.cell)

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
