"""The mirror's new-game dialog: the board's games, their variants, options
and player counts, each with a word on what it is; dice electronic or real
(where the board rolls). Each choice is one line (left/right go through its
values, no list opens over the dialog), the word on the focused one below
them; a seat a line, as many as there are players. It fits 80x24.

    app.push_screen(NewGameScreen(["tortuga"]), callback)   # callback(payload | None)
    NewGameScreen(["mahe"], playing="Mahé, 37 actions")     # a game is on: Start ends it

The first choice that can change has the focus when it opens (on a board
of one game, the players). With a game on the board and not over, the
dialog says that Start ends it for good, and the button says so too.

The payload is what the protocol's `new` takes: {"game", "players",
"options", "dice", and "seats" when the computer plays one}. Each choice is one Field (a label, its values, a word);
`fields()` lists them for the game picked, so a later choice (one per seat,
say) is one more Field there and one more key in `payload()`.
"""

from __future__ import annotations

from typing import NamedTuple

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import Button, Label, Static

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


# An option's values in words: (rule set, option) -> value -> words.
VALUE_WORDS = {
    ("mahe", "egg_dice"): {0: "no", 1: "yes: egg cards as dice"},
    ("race", "open_colours"): {0: "no: dealt secretly", 1: "yes: chosen openly"},
    ("race", "start"): {"stacked": "stacked", "side_by_side": "side by side"},
    ("tortuga", "turn_limit"): {0: "no limit"},
}


def value_words(rules: str, name: str, value) -> str:
    words = VALUE_WORDS.get((rules, name), {})
    if value in words:
        return words[value]
    if name == "turn_limit":
        return "a draw after %s turns" % value
    if name == "tattoo":
        return "%s tattooed turtle%s each" % (value, "" if value == 1 else "s")
    return str(value)


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
                         [(value_words(entry.rules, name, a), a) for a in allowed], default,
                         OPTION_WORDS.get((entry.rules, name), "")))
    if entry.rules != "race":  # the Race is played with real cards: no computer hand
        for n in range(1, cls.max_players + 1):
            out.append(Field("seat:%d" % n, "player %d" % n, SEATS, "person",
                             "who plays player %d: a person; the board itself (it lights its "
                             "moves); the PC, at its stronger level" % n))
    if device_rolls(entry.rules):  # else chance is a fact of the table (cards in hand)
        out.append(Field("dice", "dice", [("electronic", "electronic"), ("physical", "physical")],
                         "electronic", "electronic: the board rolls and draws; physical: real "
                         "dice and cards, told to the board"))
    return out


def device_rolls(rules: str) -> bool:
    from controller.flows import device_rolls

    return device_rolls(rules)


def shown(key: str, players: int) -> list[Field]:
    """The fields the dialog shows: a seat only up to the number of players."""
    return [f for f in fields(key) if not f.key.startswith("seat:") or int(f.key[5:]) <= players]


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


class Choice(Static, can_focus=True):
    """One choice on one line, '< value >': left and right (or a click) go
    through its values; nothing opens over the dialog."""

    BINDINGS = [("left", "step(-1)", "previous"), ("right", "step(1)", "next"),
                ("space", "step(1)", "next")]

    class Changed(Message):
        def __init__(self, choice: "Choice"):
            super().__init__()
            self.choice = choice

    def __init__(self, values: list, value, words: str = "", id: str | None = None):
        super().__init__(id=id, classes="choice")
        self.values = list(values)  # (text shown, value) pairs
        self.index = [v for _, v in self.values].index(value)
        self.words = words
        self.can_focus = len(self.values) > 1  # nothing to choose: Tab passes it by

    @property
    def value(self):
        return self.values[self.index][1]

    @value.setter
    def value(self, value) -> None:
        self.index = [v for _, v in self.values].index(value)
        self.refresh()
        self.post_message(self.Changed(self))

    def render(self) -> Text:
        more = len(self.values) > 1
        return Text(("< " if more else "  ") + self.values[self.index][0] + (" >" if more else ""))

    def action_step(self, step: int) -> None:
        self.value = self.values[(self.index + step) % len(self.values)][1]

    def on_click(self) -> None:
        self.action_step(1)

    def on_focus(self) -> None:
        self.screen.about(self.words)


class NewGameScreen(ModalScreen):
    CSS = """
    NewGameScreen { align: center middle; }
    #dialog { width: 78; max-width: 100%; height: auto; max-height: 100%;
              border: thick $primary; background: $surface; padding: 0 1; }
    #fields { height: auto; max-height: 15; }
    #choices { height: auto; }
    .row { height: 1; }
    .row Label { width: 14; padding-right: 1; }  /* the longest, "open colours", and a gap */
    .choice { width: 1fr; }
    .choice:focus { background: $accent; color: $text; text-style: bold; }
    #about { color: $text-muted; height: 3; margin: 1 0 0 0; }
    #playing { color: $warning; text-style: bold; }
    #buttons { height: 3; align: right middle; }
    """
    BINDINGS = [("escape", "cancel", "cancel")]

    def __init__(self, rule_sets: list[str], playing: str | None = None):
        super().__init__()
        self.playing = playing  # the game on the board, in words, if one is being played
        self.entries = [g for g in GAMES if g.rules in rule_sets] or list(GAMES)
        self.key = self.entries[0].key
        self.selects: dict[str, Choice] = {}  # field key -> its choice

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Static("[b]A new game[/b]  (left/right change, Tab moves on, Esc cancels)")
            if self.playing:
                yield Static("A game is being played: %s. Start ends it for good." % self.playing,
                             id="playing", markup=False)
            with VerticalScroll(id="fields"):
                with Horizontal(classes="row"):
                    yield Label("game")
                    yield Choice([(g.title, g.key) for g in self.entries], self.key,
                                 self.entries[0].words, id="game")
                yield Vertical(id="choices")
            yield Static(id="about")
            with Horizontal(id="buttons"):
                yield Button("End it, start" if self.playing else "Start", id="start",
                             variant="primary")
                yield Button("Cancel", id="cancel")

    def on_mount(self) -> None:
        self.show_fields()
        self.call_after_refresh(self.focus_first)

    def focus_first(self) -> None:
        """The focus on the first choice that can change (the game, unless
        the board plays only one: then the players, or the next)."""
        for choice in [self.query_one("#game", Choice)] + list(self.selects.values()):
            if choice.can_focus:
                choice.focus()
                return
        self.query_one("#start", Button).focus()

    def about(self, words: str) -> None:
        self.query_one("#about", Static).update(words)

    def show_fields(self) -> None:
        """The rows of the game picked, for the players chosen (values kept)."""
        kept = self.chosen()
        players = kept.get("players") or 0
        box = self.query_one("#choices", Vertical)
        box.remove_children()
        self.selects = {}
        for f in fields(self.key):
            if f.key == "players" and f.key in kept and kept[f.key] in [v for _, v in f.values]:
                players = kept[f.key]
            elif f.key == "players":
                players = f.value
        for f in shown(self.key, players):
            value = kept.get(f.key, f.value)
            if value not in [v for _, v in f.values]:
                value = f.value
            choice = Choice(f.values, value, f.words)
            self.selects[f.key] = choice
            box.mount(Horizontal(Label(f.label), choice, classes="row"))
        entry = next(g for g in GAMES if g.key == self.key)
        self.query_one("#game", Choice).words = entry.words
        if self.focused is None or self.focused.id == "game":
            self.about(entry.words)

    def on_choice_changed(self, event: Choice.Changed) -> None:
        if event.choice.id == "game" and event.choice.value != self.key:
            self.key = str(event.choice.value)
            self.selects = {}  # a new game: its own defaults
            self.show_fields()
        elif event.choice is self.selects.get("players"):
            self.show_fields()  # a seat a player
            self.call_after_refresh(self.selects["players"].focus)  # where it was

    def chosen(self) -> dict:
        return {k: s.value for k, s in self.selects.items()}

    def payload(self) -> dict:
        return payload(self.key, self.chosen())

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "start":
            self.dismiss(self.payload())
        else:
            self.dismiss(None)

    def on_descendant_focus(self, event) -> None:
        if isinstance(event.widget, Button):
            if event.widget.id == "cancel":
                self.about("Cancel: no new game" + (", the game goes on" if self.playing else ""))
            elif self.playing:
                self.about("Start: the board ends the game being played (%s) and begins this "
                           "one; the old game cannot be taken up again" % self.playing)
            else:
                self.about("Start: the board begins this game")

    def action_cancel(self) -> None:
        self.dismiss(None)
