"""The virtual board by hand: a terminal view of the sim world (textual).

Every cell shows its turtles (^ on its feet, v flipped, a number for a stack)
on the colour of its LED. Select a cell with the arrow keys or a click, then
lift (l), put down (p, or P flipped), flip (f); take a turtle from the box (t),
put the hand back in the box (x); press NEXT (n) or OK (o); quit (q).
"""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.containers import Grid
from textual.widgets import Footer, Static

from turtleboard.sim.world import World, WorldError

COLUMNS = 8
PRESS_MS = 200  # how long a key holds a button down


def stack_text(stack: list) -> str:
    if not stack:
        return "."
    mark = "^" if stack[0][1] else "v"
    return mark if len(stack) == 1 else "%s%d" % (mark, len(stack))


def readable_on(colour: str) -> str:
    """Black or white text, whichever reads on that LED colour."""
    r, g, b = int(colour[0:2], 16), int(colour[2:4], 16), int(colour[4:6], 16)
    return "black" if r * 299 + g * 587 + b * 114 > 128000 else "white"


class CellView(Static):
    def __init__(self, cell: str, index: int):
        super().__init__(id="cell-%d" % index, classes="cell")
        self.cell = cell
        self.index = index

    def on_click(self) -> None:
        self.app.select(self.index)


class WorldApp(App):
    CSS = """
    Grid { grid-size: %d; grid-gutter: 0 1; height: auto; padding: 1; }
    .cell { height: 4; border: round $panel; content-align: center middle; }
    .cell.selected { border: double $accent; }
    #hand, #info, #port { padding: 0 1; }
    """ % COLUMNS
    BINDINGS = [
        ("left", "move(-1)", "left"), ("right", "move(1)", "right"),
        ("up", "move(-%d)" % COLUMNS, "up"), ("down", "move(%d)" % COLUMNS, "down"),
        ("l", "lift", "lift"), ("p", "place(1)", "put down"), ("P", "place(0)", "put flipped"),
        ("f", "flip", "flip"), ("t", "take", "take from box"), ("x", "put_away", "to box"),
        ("n", "press('next')", "NEXT"), ("o", "press('ok')", "OK"), ("q", "quit", "quit"),
    ]

    def __init__(self, world: World, port: str = ""):
        super().__init__()
        self.world = world
        self.port = port
        self.selected = 0
        self.message = ""
        self.title = "Turtleboard (virtual) %s" % port

    def compose(self) -> ComposeResult:
        yield Static("virtual board on %s: connect the host with `turtleboard play --port %s`"
                     % (self.port, self.port) if self.port else "virtual board", id="port")
        with Grid():
            for i, cell in enumerate(self.world.board.cells):
                yield CellView(cell, i)
        yield Static(id="hand")
        yield Static(id="info")
        yield Footer()

    def on_mount(self) -> None:
        self.redraw()
        self.set_interval(0.1, self.redraw)

    def select(self, index: int) -> None:
        self.selected = index % len(self.world.board.cells)
        self.redraw()

    def redraw(self) -> None:
        if not self.query(CellView):
            return  # not shown (yet, or any more)
        board = self.world.board
        leds = self.world.leds()
        for i, cell in enumerate(board.cells):
            view = self.query_one("#cell-%d" % i, CellView)
            led = board.led_of[i]
            colour = leds[led] if led < len(leds) else "000000"
            view.update("%s\n%s" % (cell, stack_text(self.world.stacks[cell])))
            view.styles.background = "#" + colour
            view.styles.color = readable_on(colour)
            view.set_class(i == self.selected, "selected")
        hand = self.world.hand
        self.query_one("#hand", Static).update(
            "hand: %s   buttons held: %s" % (
                " ".join("^" if up else "v" for _, up in hand) or "empty",
                " ".join(self.world.held) or "none"))
        self.query_one("#info", Static).update(self.message)

    @property
    def cell(self) -> str:
        return self.world.board.cells[self.selected]

    def _do(self, what, *args) -> None:
        try:
            what(*args)
            self.message = ""
        except WorldError as e:
            self.message = str(e)
        self.redraw()

    def action_move(self, step: int) -> None:
        self.select(self.selected + step)

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

    def action_press(self, name: str) -> None:
        self._do(self.world.press, name)
        self.set_timer(PRESS_MS / 1000, lambda: self._do(self.world.release, name))
