"""The mirror's new-game dialog: the board's games, their variants, options
and player counts, each with a word on what it is; dice electronic or real.

    app.push_screen(NewGameScreen(["tortuga"]), callback)   # callback(payload | None)

The payload is what the protocol's `new` takes: {"game", "players",
"options", "dice", and "seats" when the computer plays one}. Each choice is one Field (a label, its values, a word);
`fields()` lists them for the game picked, so a later choice (one per seat,
say) is one more Field there and one more key in `payload()`.
"""

from __future__ import annotations

from typing import NamedTuple

from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Label, Select, Static

from turtleboard.games import GAMES, OPTION_WORDS, players_text, rules_class

VARIANT_KEYS = sorted({k for g in GAMES for k in g.options})  # tattoo, hatching


class Field(NamedTuple):
    key: str           # where the value goes: "players", "dice", "option:<name>"
    label: str
    values: list       # (text shown, value) pairs
    value: object      # the one chosen at first
    words: str         # a word on what it does


# Who plays a seat: a person, the board itself (the levels it can play), or
# the PC at play's --host-level (docs/bots.md).
SEATS = [("a person", "person"), ("the board, easy", "easy"), ("the board, good", "good"),
         ("the PC", "host")]


def forced_options(rules: str) -> dict:
    """Options the board sets itself for a game (a physical board needs them)."""
    from controller.flows import flow_for

    flow = flow_for(rules)
    return dict(flow.FORCED) if flow is not None else {}


def fields(key: str) -> list[Field]:
    """The choices of the game `key` (one of games.GAMES), in dialog order."""
    entry = next(g for g in GAMES if g.key == key)
    cls = rules_class(entry.rules)
    counts = list(range(cls.min_players, cls.max_players + 1))
    out = [Field("players", "players", [(str(n), n) for n in counts], counts[0],
                 players_text(cls))]
    forced = forced_options(entry.rules)
    for name, default, allowed in cls.OPTIONS:
        if name in forced:
            continue  # the board plays it one way (words in docs/rulings.md)
        allowed = list(allowed)
        if name in VARIANT_KEYS:
            if name not in entry.options:
                continue  # another variant's option
            allowed = [a for a in allowed if a]
            default = entry.options[name]
            if len(allowed) < 2:
                continue  # the variant itself: nothing to choose
        out.append(Field("option:" + name, name.replace("_", " "),
                         [(str(a), a) for a in allowed], default,
                         OPTION_WORDS.get((entry.rules, name), "")))
    if entry.rules != "race":  # the Race is played with real cards: no computer hand
        for n in range(1, cls.max_players + 1):
            out.append(Field("seat:%d" % n, "player %d" % n, SEATS, "person",
                             "" if n > 1 else "who plays each seat (up to the number of "
                             "players): the board itself lights its moves; the PC plays "
                             "at its stronger level"))
    out.append(Field("dice", "dice", [("electronic", "electronic"), ("physical", "physical")],
                     "electronic", "electronic: the board rolls and draws; physical: real "
                     "dice and cards, told to the board"))
    return out


def payload(key: str, chosen: dict) -> dict:
    """The `new` command for game `key` with the values `chosen` (field key -> value)."""
    entry = next(g for g in GAMES if g.key == key)
    options = dict(entry.options)
    for k, v in sorted(chosen.items()):
        if k.startswith("option:"):
            options[k[7:]] = v
    out = {"game": entry.rules, "players": chosen.get("players"), "options": options,
           "dice": chosen.get("dice", "electronic")}
    seats = [chosen.get("seat:%d" % n, "person") for n in range(1, (chosen.get("players") or 0) + 1)]
    if any(s != "person" for s in seats):
        out["seats"] = seats
    return out


class NewGameScreen(ModalScreen):
    CSS = """
    NewGameScreen { align: center middle; }
    #dialog { width: 76; max-width: 100%; height: auto; max-height: 100%;
              border: thick $primary; background: $surface; padding: 0 1; }
    #fields { height: auto; max-height: 70vh; }
    .row { height: 3; }
    .row Label { width: 12; padding: 1 0 0 0; }
    .row Select { width: 1fr; }
    .words { color: $text-muted; padding: 0 0 0 12; }
    #buttons { height: 3; align: right middle; }
    """
    BINDINGS = [("escape", "cancel", "cancel")]

    def __init__(self, rule_sets: list[str]):
        super().__init__()
        self.entries = [g for g in GAMES if g.rules in rule_sets] or list(GAMES)
        self.key = self.entries[0].key
        self.selects: dict[str, Select] = {}

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Static("[b]A new game[/b]  (Enter picks, Tab moves, Esc cancels)")
            with VerticalScroll(id="fields"):
                with Horizontal(classes="row"):
                    yield Label("game")
                    yield Select([(g.title, g.key) for g in self.entries], value=self.key,
                                 allow_blank=False, id="game")
                yield Static(self.entries[0].words, id="game-words", classes="words")
                yield Vertical(id="choices")
            with Horizontal(id="buttons"):
                yield Button("Start", id="start", variant="primary")
                yield Button("Cancel", id="cancel")

    def on_mount(self) -> None:
        self.show_fields()
        self.query_one("#game", Select).focus()

    def show_fields(self) -> None:
        box = self.query_one("#choices", Vertical)
        box.remove_children()
        self.selects = {}
        for f in fields(self.key):
            select = Select(f.values, value=f.value, allow_blank=False)
            self.selects[f.key] = select
            box.mount(Horizontal(Label(f.label), select, classes="row"))
            if f.words:
                box.mount(Static(f.words, classes="words"))
        entry = next(g for g in GAMES if g.key == self.key)
        self.query_one("#game-words", Static).update(entry.words)

    def on_select_changed(self, event: Select.Changed) -> None:
        if event.select.id == "game" and event.value != self.key:
            self.key = str(event.value)
            self.show_fields()

    def chosen(self) -> dict:
        return {k: s.value for k, s in self.selects.items()}

    def payload(self) -> dict:
        return payload(self.key, self.chosen())

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "start":
            self.dismiss(self.payload())
        else:
            self.dismiss(None)

    def action_cancel(self) -> None:
        self.dismiss(None)
