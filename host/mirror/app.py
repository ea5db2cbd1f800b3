"""The live mirror (`turtleboard play`): a textual app over a Mirror.

What it shows: a top line with the port, the link (connected / LOST /
reconnecting) and the sync (in step / resyncing / out of step); the board as on
the table with turtles, stacks, flipped turtles and the LED colours; a side
panel with whose turn it is, the dice, cards and hands as the chosen player may
see them, the board's status text and any open prompt; the action log (with the
board's raw lines and the mirror's notes) and a command line at the bottom.

Keys: n new game (a dialog: the board's games, their variants and options,
the player counts, who plays each seat), u undo, h hint (the board lights the
good move; the log says it in words), s sync, 1-9 answer the open prompt
(choices count from 1; 0 is the tenth), p next
player's view, : or / the command line, q or Ctrl-C quit. The command line
takes the console's commands (enter d3, new mahe 4, answer 1, bright 40, ...).

The layout follows the terminal: at 80x24 a compact board beside a narrow
panel (the prompt first, then whose turn) over the last few log lines; a
larger terminal gets the board at full size and a taller log; a resize
reflows it. Below the size the board needs, it says to enlarge the window.
"""

from __future__ import annotations

import json
import re
import threading
import time
from pathlib import Path

from rich.markup import escape
from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.widgets import Footer, Input, RichLog, Static

from turtleboard.connection.link import Disconnected, LinkError
from turtleboard.connection.replica import Mirror
from turtleboard.console.app import parse_command, safe_text
from turtleboard.errors import UserError
from turtleboard.mirror.board_text import board_text
from turtleboard.mirror.newgame import NewGameScreen
from turtleboard.paths import reference_boards
from turtleboard.pictures.describe import (
    BUST_WORDS,
    action_words,
    by_words,
    choice_words,
    panel_lines,
    status_words,
)

# How the board's buttons answer a question, at the end of its text: left
# out of the compact panel, whose key line says it.
ASK_BUTTONS = re.compile(r"[:,]? *NEXT shows the next[^,]*, OK confirms$")
# Panel lines the compact panel leaves out: the top line, the log say them.
COMPACT_SKIP = ("last action:", "seen by ", "everything shown")


def board_file_for(name: str | None, given: str | None = None) -> dict | None:
    """The board definition (for the LED map): the file given, else the one in
    boards/ whose name matches the board's hello."""
    paths = [Path(given)] if given else reference_boards()
    for path in paths:
        try:
            obj = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            if given:
                raise UserError(f"cannot read the board file {given}") from None
            continue
        if given or (isinstance(obj, dict) and obj.get("name") == name):
            return obj
    return None


def led_of_cells(board: dict | None) -> dict:
    """cell name -> LED index, from a board file's `cells`."""
    out = {}
    cells = (board or {}).get("cells")
    if isinstance(cells, dict):
        for name, spec in cells.items():
            if isinstance(spec, dict) and isinstance(spec.get("led"), int):
                out[name] = spec["led"]
    elif isinstance(cells, list):
        for spec in cells:
            if isinstance(spec, dict) and isinstance(spec.get("led"), int):
                out[spec.get("name")] = spec["led"]
    return out


BATCH_S = 0.05  # seconds: the link thread hands events to the display at most this often
BATCH_MAX = 2000  # events, at most, in one hand-over
BAD_EVERY = 1.0  # seconds between two lines about lines from the board the host cannot use
LOG_ROWS = 500  # rows the log pane keeps (a bound on its memory: a hostile board fills it)


def bad_text(ev) -> str:
    """One line about a Damaged or Overlong event."""
    why = getattr(ev, "why", None)
    if why is not None:
        return f"dropped a line from the board ({why}); resyncing"
    return f"dropped a line from the board over {getattr(ev, 'length', '?')} bytes; resyncing"


class BoardView(Static):
    """The board: drawn again for the room it has whenever that changes."""

    def on_resize(self, event) -> None:
        self.app.refresh_view()


class LogView(RichLog):
    """The action log: its newest lines kept in sight when its size changes
    (a smaller log has more lines above; the layout settles after the
    window's own resize, so the app cannot scroll it then)."""

    def on_resize(self, event) -> None:
        super().on_resize(event)
        self.scroll_end(animate=False, immediate=False, x_axis=False)


class MirrorApp(App):
    CSS = """
    #top { height: 1; background: $boost; }
    #main { height: 1fr; }
    #board { width: 1fr; height: 100%; border: round $primary; padding: 0 1; overflow: hidden; }
    #panel { width: 46; height: 100%; border: round $secondary; padding: 0 1; }
    #log { height: 12; border: round $surface-lighten-2; }
    #cmd { height: 1; border: none; padding: 0 1; }
    .compact #panel { width: 36; }
    .narrow #panel { width: 30; }
    .compact #board { padding: 0; }
    .compact #log { height: 5; }
    """
    COMPACT = (120, 36)  # below this width or height: the compact layout
    BINDINGS = [
        Binding("q", "quit", "quit"),
        Binding("ctrl+c", "quit", "quit", show=False, priority=True),
        Binding("n", "new", "new game"),
        Binding("u", "undo", "undo"),
        Binding("h", "hint", "hint"),
        Binding("s", "sync", "sync"),
        Binding("p", "player", "player view"),
        Binding("colon,slash", "command", "command"),
    ] + [Binding(str((i + 1) % 10), f"answer({i})", show=False) for i in range(10)]  # 1..9, 0

    def __init__(self, mirror: Mirror, player: int | None = None, board_path: str | None = None,
                 host_seats=None, notes=()):
        super().__init__()
        self.notes = list(notes)  # lines for the log at the start (the web page's links)
        self.host_seats = host_seats  # plays the game's "host" seats (turtleboard.mirror.hostseats)
        self.mirror = mirror
        self.player = player
        self.board_path = board_path
        self.board_def = None
        self.link_state = "connected"
        self.stopping = threading.Event()
        self.last_note = ""
        self.logged = 0  # the actions the log shows: 1..logged
        self.last_status = ""
        self.prompt_logged = None  # the id of the question the log last showed
        self.bad_at = -BAD_EVERY  # when a bad line was last said
        self.bad_hidden = 0  # bad lines left unsaid since

    def compose(self) -> ComposeResult:
        yield Static(id="top")
        with Horizontal(id="main"):
            yield BoardView(id="board")
            with VerticalScroll(id="panel"):
                yield Static(id="side")
        # (max_lines counts rows as wrapped: each row holds its segments and
        # Textual's caches, ~4 KB; 2,000 of them were ~25 MB of a flooded mirror)
        yield LogView(id="log", markup=True, wrap=True, max_lines=LOG_ROWS)
        yield Input(placeholder=": a command (enter d3, answer 1, undo, sync, new mahe 4); Esc: keys",
                    id="cmd")
        yield Footer()

    def on_mount(self) -> None:
        self.title = "Turtleboard"
        self.board_def = board_file_for((self.mirror.hello or {}).get("board"), self.board_path)
        hello = self.mirror.hello or {}
        self.query_one("#log", RichLog).write(
            f"[green]connected[/green] to {escape(self.mirror.link.port)}: "
            f"{escape(str(hello.get('board')))}, firmware {escape(str(hello.get('fw')))}, "
            f"protocol {escape(str(hello.get('proto')))}"
        )
        for note in self.notes:
            self.query_one("#log", RichLog).write(escape(note))
        self.log_history()
        self.reflow(self.size.width, self.size.height)
        self.set_focus(None)
        threading.Thread(target=self.pump, daemon=True, name="mirror-pump").start()

    def on_resize(self, event) -> None:
        self.reflow(event.size.width, event.size.height)

    def reflow(self, width: int, height: int) -> None:
        compact = width < self.COMPACT[0] or height < self.COMPACT[1]
        self.screen.set_class(compact, "compact")
        self.screen.set_class(width < 80, "narrow")  # below 80 columns: room for the board first
        self.refresh_view()  # the board and the log settle when their own sizes do

    # ---- the link thread ------------------------------------------------------

    def pump(self) -> None:
        # Events go to the display at most every BATCH_S (a busy board's
        # frames are shown together: one redraw, not one per frame).
        batch: list = []
        shown_at = time.monotonic()
        while not self.stopping.is_set():
            events = self.poll_once()
            batch.extend(events)
            now = time.monotonic()
            if batch and (not events or now - shown_at >= BATCH_S or len(batch) >= BATCH_MAX):
                shown_at = now
                if self.stopping.is_set():
                    return
                try:
                    self.call_from_thread(self.on_events, batch)
                except RuntimeError:
                    return
                batch = []

    def poll_once(self) -> list:
        try:
            events = self.mirror.poll(0.05)
        except LinkError as e:
            events = [("link", "lost"), ("note", f"{e}; trying again")]
            time.sleep(0.5)
        except Exception as e:  # a bug must show, never freeze the mirror silently
            events = [("note", f"the mirror hit {e!r} reading the board; resyncing")]
            try:
                self.mirror.replica.lost(f"the mirror hit {e!r}")
            except Exception:
                pass
            time.sleep(0.5)
        return events

    def on_events(self, events) -> None:
        # Whatever the events, this callback must return: an event it cannot
        # show is said in one line (rate-limited) and the mirror resyncs.
        found = self.query("#log").results(RichLog)
        log = next(found, None)
        if log is None:
            return  # the app is closing: its widgets are going
        redraw = False
        for kind, data in events:
            try:
                redraw = self.show_event(log, kind, data) or redraw
            except Exception as e:  # noqa: BLE001 - a bug must show, never stop the mirror
                self.say_bad(f"the mirror could not show a {kind} ({e!r}); resyncing")
                with self.mirror.lock:
                    self.mirror.replica.lost(f"the mirror hit {e!r}")
        if self.host_seats is not None:
            try:
                text = self.host_seats.poll()
            except Exception as e:  # noqa: BLE001
                self.say_bad(f"the computer on this PC could not move ({e!r})")
                text = None
            if text:
                log.write(f"[bold cyan]the computer on this PC plays {escape(text)}[/bold cyan]")
        if redraw:
            try:
                self.refresh_view()
            except Exception as e:  # noqa: BLE001
                self.say_bad(f"the mirror could not draw the board ({e!r}); resyncing")
                with self.mirror.lock:
                    self.mirror.replica.lost(f"the mirror hit {e!r}")

    def say_bad(self, text: str) -> None:
        """One line in the log for something the board sent that the host
        cannot use, at most one a second (the ones left out are counted)."""
        now = time.monotonic()
        if now - self.bad_at < BAD_EVERY:
            self.bad_hidden += 1
            return
        more = f" (and {self.bad_hidden} more like it)" if self.bad_hidden else ""
        self.bad_at = now
        self.bad_hidden = 0
        self.query_one("#log", RichLog).write(f"[red]! {escape(text[:160])}{more}[/red]")

    def show_event(self, log, kind, data) -> bool:
        """Show one event; True if the view needs drawing again."""
        redraw = False
        if kind == "frame":
            f = data
            redraw = True
            if f.kind == "action":
                who = f.payload.get("by", "")
                text = action_words(self.mirror.replica.game, str(f.payload.get("text")))
                bust = f" [bold red]{BUST_WORDS}[/bold red]" if f.payload.get("bust") is True else ""
                log.write(f"[bold cyan]{f.payload.get('n')}. {escape(text)}[/bold cyan]"
                          f" [dim]({escape(by_words(who))})[/dim]{bust}")
                if isinstance(f.payload.get("n"), int):
                    self.logged = f.payload["n"]
            elif f.kind == "hint":
                p = f.payload
                log.write(f"[bold yellow]hint for player {p.get('player', 0) + 1}: "
                          f"{escape(action_words(self.mirror.replica.game, str(p.get('text'))))}[/bold yellow] [dim](the {escape(str(p.get('level')))} "
                          f"level's move, lit on the board)[/dim]")
            elif f.kind == "undone":
                log.write(f"[yellow]taken back, now at action {f.payload.get('n')}[/yellow]")
                if isinstance(f.payload.get("n"), int):
                    self.logged = f.payload["n"]
            elif f.kind == "status":
                self.log_status(f.payload)
            elif f.kind == "error":
                log.write(f"[bold red]board: {escape(str(f.payload.get('msg')))}[/bold red]")
            elif f.kind == "closed":
                self.prompt_logged = None
            elif f.kind == "prompt" and f.payload.get("id") != self.prompt_logged:
                self.prompt_logged = f.payload.get("id")  # again (NEXT, a hint): not logged
                log.write(f"[magenta]prompt: {escape(str(f.payload.get('text')))}[/magenta]")
        elif kind == "raw":
            log.write(f"[yellow]|[/yellow] {escape(safe_text(data))}")
        elif kind == "note":
            self.last_note = data
            log.write(f"[bold]{escape(data)}[/bold]")
            if data.startswith(("synced", "resynced")):
                self.log_history()
            redraw = True
        elif kind == "link":
            self.link_state = data
            redraw = True
        elif kind == "bad":
            self.say_bad(bad_text(data))
        return redraw

    def log_history(self) -> None:
        """After a (re)connection or a sync: the game's actions the log does not
        show yet (the last 200), so its moves are there after a reconnect."""
        with self.mirror.lock:
            game = self.mirror.replica.game
            if game is None or not self.mirror.replica.in_sync:
                return
            texts = [action_words(game, game.action_text(a)) for a in game.history]
        if len(texts) <= self.logged:
            self.logged = len(texts)
            return
        log = self.query_one("#log", RichLog)
        first = max(self.logged, len(texts) - 200)
        log.write(f"[dim]the game so far ({len(texts)} actions, from the board):[/dim]")
        log.write("[cyan]" + escape("  ".join(f"{i + 1}. {t}" for i, t in enumerate(texts)
                                              if i >= first)) + "[/cyan]")
        self.logged = len(texts)

    def log_status(self, status: dict) -> None:
        """A move the rules refuse is written to the log, with what to change."""
        text = str(status.get("text", ""))
        if text == self.last_status:
            return
        self.last_status = text
        if "no legal move" not in text:
            return
        expect = status.get("expect") or {}
        parts = []
        for key, words in (("off", "take off"), ("on", "put on"), ("flip", "turn over")):
            cells = expect.get(key) or []
            if cells:
                parts.append(f"{words} {' '.join(str(c) for c in cells)}")
        self.query_one("#log", RichLog).write(
            "[bold red]illegal move on the board[/bold red]"
            + escape(": " + "; ".join(parts) if parts else ""))

    # ---- drawing ---------------------------------------------------------------

    def sync_state(self) -> str:
        rep = self.mirror.replica
        if not self.mirror.connected:
            return "[yellow]will resync when it is back[/yellow]"
        if rep.in_sync and not rep.awaiting:
            return "[green]in step[/green]"
        if rep.awaiting or rep.needs_sync:
            return "[yellow]resyncing[/yellow]"
        return "[bold red]OUT OF STEP (s: sync)[/bold red]"

    def refresh_view(self) -> None:
        with self.mirror.lock:  # the link thread changes the replica under this lock
            self._refresh_view()

    def _refresh_view(self) -> None:
        m = self.mirror
        link = {
            "connected": "[green]connected[/green]",
            "lost": "[bold red]DISCONNECTED[/bold red]",
            "reconnecting": "[bold yellow]reconnecting...[/bold yellow]",
        }.get(self.link_state, self.link_state)
        hello = m.hello or {}
        view = f"view: {'onlooker' if self.player is None else f'player {self.player + 1}'}"
        about = "" if self.screen.has_class("compact") else (
            f"board {escape(str(hello.get('board')))}  fw {escape(str(hello.get('fw')))}  ")
        small = self.size.width < 80 or self.size.height < 24
        self.query_one("#top", Static).update(
            f" {escape(m.link.port)}  {link}  {self.sync_state()}  {about}{view}"
            + ("  [bold yellow]enlarge the window (80x24 or more)[/bold yellow]" if small else ""))
        game = m.replica.game
        leds = {}
        for cell, idx in led_of_cells(self.board_def).items():
            if idx < len(m.leds):
                leds[cell] = m.leds[idx]
        board = self.query_one("#board", Static)
        size = board.content_size
        board.update(board_text(game, leds, self.player, width=size.width, height=size.height))
        self.query_one("#side", Static).update(self.side_text())

    def side_text(self) -> Text:
        m = self.mirror
        game = m.replica.game
        out = Text()
        compact = self.screen.has_class("compact")
        if m.prompt:
            text = str(m.prompt.get("text", ""))
            choices = m.prompt.get("choices") or []
            # compact: the question without how the buttons answer it (said below)
            out.append((ASK_BUTTONS.sub("", text) if compact else text) + "\n", style="bold magenta")
            for i, choice in enumerate(choices):
                mark = ">" if i == m.prompt.get("current") else " "
                words = choice_words(game, choice)
                if compact and words.endswith("[%s]" % choice) and words != "[%s]" % choice:
                    words = words[:-len(choice) - 3]  # the words alone
                out.append(f" {mark}{i + 1} {words}\n", style="magenta")
            keys = "1" if len(choices) == 1 else "1-%d" % min(len(choices), 10)
            out.append(f" (keys {keys} or NEXT/OK)\n" if compact
                       else f" (keys {keys}, or NEXT/OK on the board)\n\n", style="dim")
        if game is None:
            out.append("no game\n", style="bold")
        else:
            if not compact:
                out.append(f"{game.title or game.name}\n", style="bold")
            for line in panel_lines(game, self.player):
                if compact and (not line or line.startswith(COMPACT_SKIP)
                                or (m.prompt and line.endswith(" decides for it"))):
                    continue  # at 80x24: what the top line, the log or the question says
                style = "bold cyan" if line.startswith("to move") else (
                    "bold green" if line.startswith("game over") else None)
                out.append(line + "\n", style=style)
        if m.status and not (m.prompt and m.prompt.get("text") == m.status.get("text")):
            out.append("board: " if compact else "\nboard: ", style="bold")
            out.append(status_words(game, str(m.status.get("text", ""))) + "\n")
        return out

    # ---- keys and commands -------------------------------------------------------

    def send(self, kind: str, payload: dict | None = None) -> None:
        log = self.query_one("#log", RichLog)
        said = self.sent_words(kind, payload or {})
        try:
            self.mirror.send(kind, payload)
            log.write(f"[dim]> {escape(said)}[/dim]")
        except Disconnected as e:
            log.write(f"[red]not sent: {escape(str(e))}[/red]")

    def sent_words(self, kind: str, payload: dict) -> str:
        """What the log says was sent: an answer by its number (from 1) and
        in words, any other command as it goes to the board."""
        choices = (self.mirror.prompt or {}).get("choices") or []
        i = payload.get("choice")
        if kind == "answer" and isinstance(i, int) and 0 <= i < len(choices):
            return f"answer {i + 1}: {choice_words(self.mirror.replica.game, choices[i])}"
        return f"{kind} {json.dumps(payload, sort_keys=True)}"

    def action_new(self) -> None:
        games = (self.board_def or {}).get("games") or ["mahe", "race", "tortuga"]

        def chosen(payload: dict | None) -> None:
            if payload is not None:
                self.send("new", payload)

        game = self.mirror.replica.game
        playing = None
        if game is not None and game.history and not game.is_over():  # (a game begun)
            playing = "%s, %d action%s" % (game.title or game.name, len(game.history),
                                           "" if len(game.history) == 1 else "s")
        self.push_screen(NewGameScreen([str(g) for g in games], playing), chosen)

    def action_hint(self) -> None:
        self.send("hint")

    def action_undo(self) -> None:
        self.send("undo")

    def action_sync(self) -> None:
        self.mirror.replica.sync_sent()
        self.send("sync")

    def action_command(self) -> None:
        self.query_one("#cmd", Input).focus()

    def action_player(self) -> None:
        game = self.mirror.replica.game
        n = game.players if game else 0
        if self.player is None:
            self.player = 0 if n else None
        elif self.player + 1 >= n:
            self.player = None
        else:
            self.player += 1
        self.refresh_view()

    def action_answer(self, i: int) -> None:
        p = self.mirror.prompt
        if not p:
            self.query_one("#log", RichLog).write("[dim]no prompt is open[/dim]")
            return
        if i >= len(p.get("choices") or []):
            self.query_one("#log", RichLog).write(f"[dim]the question has no choice {i + 1}[/dim]")
            return
        self.send("answer", {"id": p.get("id"), "choice": i})

    def on_input_submitted(self, event: Input.Submitted) -> None:
        line = event.value.strip()
        event.input.value = ""
        self.set_focus(None)
        if not line:
            return
        if line in ("q", "quit", "exit"):
            self.exit()
            return
        try:
            parsed = parse_command(line, (self.mirror.prompt or {}).get("id"))
        except UserError as e:
            self.query_one("#log", RichLog).write(f"[red]{escape(str(e))}[/red]")
            return
        if parsed:
            if parsed[0] == "sync":
                self.mirror.replica.sync_sent()
            self.send(*parsed)

    def on_key(self, event) -> None:
        if event.key == "escape":
            self.set_focus(None)

    def on_unmount(self) -> None:
        self.stopping.set()
