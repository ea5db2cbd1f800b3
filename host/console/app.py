"""The debugging console (`turtleboard console`): line based, drivable in tmux.

Frames from the board are decoded and printed in colour, one line each; any
other line (boot text, a traceback) is printed as raw text, marked `|`.
Commands are typed at the `tb>` prompt (Tab completes):

    sync | ping | hello | undo | ledtest | diag on|off | bright N
    new GAME PLAYERS [opt=v,...] [physical] [seats=S,S,...]   enter TEXT   answer N   hint
    send KIND {json}         any protocol frame
    ack                      the board's game log report is seen
    repl                     into the board's Python REPL (Ctrl-] comes back)
    stats | help | quit

Console(link, out, log) holds the logic (execute a line, show an event) so tests
drive it without a terminal; run() is the interactive loop.
"""

from __future__ import annotations

import json
import os
import re
import select
import sys
import threading
import time

from rich.console import Console as RichConsole
from rich.markup import escape

from turtleboard.connection.link import Damaged, Disconnected, Frame, Link, LinkError, Overlong, Raw
from turtleboard.errors import UserError
from turtleboard.pictures.describe import BUST_WORDS, choice_words, plain_words
from turtleboard.terminal import message_console

CTRL_C, CTRL_D, CTRL_RBRACKET = b"\x03", b"\x04", b"\x1d"

KIND_STYLE = {
    "hello": "bold green", "action": "bold cyan", "undone": "yellow", "state": "green",
    "log": "green", "synced": "green", "prompt": "bold magenta", "closed": "magenta",
    "status": "blue", "leds": "dim", "hint": "bold yellow", "sense": "dim", "error": "bold red", "ok": "dim green",
}

COMMANDS = [
    "sync", "ping", "hello", "undo", "ledtest", "diag", "bright", "new", "enter",
    "answer", "hint", "send", "ack", "repl", "stats", "help", "quit",
]
COMPLETIONS = {
    "diag": ["on", "off"],
    "new": ["mahe", "race", "tortuga"],
    "send": ["hello", "sync", "new", "answer", "enter", "undo", "bright", "diag", "ledtest", "ping",
             "hint", "ack"],
}

HELP = """commands:
  sync               full state from the board
  ping | hello       is it there? which versions?
  new GAME PLAYERS [opt=v,...] [physical] [seats=S,S,...]
                     start a game (dice electronic unless 'physical');
                     seats: one a player, person, random, easy, good
                     (the board plays) or host
  hint               light the good move for the player to move (NEXT too)
  enter TEXT         a die face, a card or an action in notation (enter d3)
  undo               take back the last action
  answer N           choose choice N of the open prompt (counted from 1)
  bright N           LED brightness 0..255
  diag on|off        stream each cell's sensor reading and what it reads
  ledtest            all LEDs red, green, blue, white (a dead LED shows)
  send KIND {json}   any protocol frame
  repl               the board's Python REPL (the firmware stops); Ctrl-] back
  ack                the board's game log damage report is seen: stop repeating
  stats              frames in/out, damaged lines, gaps
  quit               leave (Ctrl-D too)"""


def parse_command(line: str, prompt_id=None) -> tuple[str, dict] | None:
    """A typed line -> (kind, payload) to send, or None for an empty line.
    Raises UserError saying what is wrong with the line."""
    words = line.split()
    if not words:
        return None
    cmd, rest = words[0].lower(), words[1:]
    if cmd in ("sync", "ping", "undo", "ledtest", "hint"):
        if rest:
            raise UserError(f"'{cmd}' takes nothing after it")
        return cmd, {}
    if cmd == "hello":
        from turtleboard import __version__
        from turtleboard.connection.link import PROTO

        return "hello", {"host": f"turtleboard {__version__}", "proto": PROTO}
    if cmd == "diag":
        if rest not in (["on"], ["off"]):
            raise UserError("use: diag on  or  diag off")
        return "diag", {"on": rest[0] == "on"}
    if cmd == "bright":
        if len(rest) != 1 or not rest[0].isdigit() or not 0 <= int(rest[0]) <= 255:
            raise UserError("use: bright N  with N from 0 to 255")
        return "bright", {"level": int(rest[0])}
    if cmd == "enter":
        if not rest:
            raise UserError("use: enter TEXT  (a die face, a card or an action, e.g. enter d3)")
        return "enter", {"text": " ".join(rest)}
    if cmd == "answer":
        if len(rest) != 1 or not rest[0].isdigit() or int(rest[0]) < 1:
            raise UserError("use: answer N  (N = the number of the choice, from 1)")
        if prompt_id is None:
            raise UserError("no question seen since this console connected (one the board opened "
                            "before is shown again by `sync`)")
        return "answer", {"id": prompt_id, "choice": int(rest[0]) - 1}  # the board counts from 0
    if cmd == "new":
        if len(rest) < 2 or not rest[1].isdigit():
            raise UserError("use: new GAME PLAYERS [opt=v,...] [physical]  e.g. new mahe 4")
        from turtles.errors import BadSetup
        from turtles.record import parse_options

        dice = "electronic"
        opts = {}
        seats = None
        for extra in rest[2:]:
            if extra in ("physical", "electronic"):
                dice = extra
            elif extra.startswith("seats="):
                seats = [s.strip() for s in extra[6:].split(",")]
            else:
                try:
                    opts.update(parse_options(extra))
                except BadSetup as e:
                    raise UserError(str(e)) from None
        payload = {"game": rest[0], "players": int(rest[1]), "options": opts, "dice": dice}
        if seats is not None:
            payload["seats"] = seats  # the board says what is wrong with them
        return "new", payload
    if cmd == "send":
        if not rest:
            raise UserError("use: send KIND {json payload}")
        text = line.split(None, 2)[2] if len(rest) > 1 else "{}"
        try:
            payload = json.loads(text)
        except ValueError as e:
            raise UserError(f"the payload is not JSON ({e})") from None
        if not isinstance(payload, dict):
            raise UserError("the payload must be a JSON object, like {\"level\": 9}")
        return rest[0], payload
    raise UserError(f"unknown command {cmd!r}; type help for the list")


# Terminal control sequences a device's raw text may carry (a colour, a title
# change, a clear screen): shown escaped, never sent to the terminal.
_CONTROL = re.compile(r"\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b\[[0-?]*[ -/]*[@-~]?|\x1b.?|[\x00-\x08\x0b-\x1f\x7f\x9b]")


def safe_text(text: str) -> str:
    """A device's raw text made harmless for a terminal: every escape or
    control sequence shown as its codes (\\e[31m), tabs kept."""
    def shown(m):
        return m.group(0).encode("unicode_escape").decode("ascii").replace("\\x1b", "\\e")

    # (a lone surrogate, from a JSON "\ud800", is shown as its code too)
    text = text.encode("utf-8", "backslashreplace").decode("utf-8")
    return _CONTROL.sub(shown, text)


BAD_EVERY = 1.0  # seconds between two lines about lines from the board the host cannot use

SENSE_MARKS = {0: ".", 1: "^", 2: "v"}  # the image: empty, a turtle, a flipped turtle


def sense_text(payload: dict, cells: list[str] | None) -> str:
    """A `sense` frame (diag on) as one line per board: each cell's name, its
    raw reading and what the board reads there."""
    raw = payload.get("raw") or []
    image = payload.get("image") or []
    parts = []
    for i, value in enumerate(raw):
        name = cells[i] if cells and i < len(cells) else str(i)
        mark = SENSE_MARKS.get(image[i], "?") if i < len(image) else "?"
        parts.append(f"{name}:{value}{mark}")
    return "  ".join(parts)


def board_cells(name: str | None) -> list[str] | None:
    """The cell names of a reference board, in the board's order (the order
    of a `sense` frame), or None."""
    from turtleboard.paths import reference_boards

    for path in reference_boards():
        try:
            obj = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if isinstance(obj, dict) and obj.get("name") == name and isinstance(obj.get("cells"), dict):
            return list(obj["cells"])
    return None


def frame_text(f: Frame, cells: list[str] | None = None) -> str:
    style = KIND_STYLE.get(f.kind, "white")
    kind = escape(safe_text(f"{f.kind:8s}"[:40]))
    if f.kind == "sense":
        return f"[dim]{f.seq:5d}[/dim] [{style}]{kind}[/{style}] {escape(sense_text(f.payload, cells))}"
    body = json.dumps(f.payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    if len(body) > 300:
        body = body[:300] + "..."
    return f"[dim]{f.seq:5d}[/dim] [{style}]{kind}[/{style}] {escape(safe_text(body))}"


class GameName:
    """The game the board plays, by name alone: enough to say its moves in words."""

    def __init__(self, name):
        self.name = str(name or "")


class Console:
    def __init__(self, link: Link, out: RichConsole | None = None, log=None):
        self.link = link
        self.out = out or message_console()
        self.log = log
        self.prompt_id = None
        self.prompt_choices: list = []  # the open prompt's choices (notation)
        self.game = GameName((link.hello or {}).get("game"))  # what the words of a move need
        self.repl_mode = False
        self.repl_start = ReplStart()
        self.stop = threading.Event()
        self.lock = threading.Lock()
        self.redraw = None  # callable that reprints the prompt line
        self.waiting = threading.Event()  # set while the prompt waits for a line
        self.last_heard = time.monotonic()  # when the board last sent something
        self.cells = board_cells((link.hello or {}).get("board"))
        self.log_report = (link.hello or {}).get("log")  # what the board's game log lost, not yet acknowledged
        self.bad_at = -BAD_EVERY  # when a line the host cannot use was last shown
        self.bad_hidden = 0  # such lines not shown since

    def note(self, direction: str, text: str) -> None:
        if self.log:
            self.log.write(f"{time.strftime('%H:%M:%S')} {direction} {text}\n")
            self.log.flush()

    def show(self, ev) -> None:
        if self.repl_mode and isinstance(ev, Raw):  # read as lines just as the REPL began
            self.note("|", ev.text)
            self.repl_out((ev.text + "\n").encode("utf-8", "replace"))
            return
        with self.lock:
            try:
                text = self._text(ev)
                if text is not None:
                    self._print(text)
            except Exception as e:  # noqa: BLE001 - a bug must show, never stop the reader
                text = self._bad(f"[red]! could not show a line from the board ({escape(repr(e))})[/red]")
                if text is not None:
                    self._print(text)

    def _bad(self, text: str) -> str | None:
        # Lines about what the host cannot use: at most one a second.
        now = time.monotonic()
        if now - self.bad_at < BAD_EVERY:
            self.bad_hidden += 1
            return None
        if self.bad_hidden:
            text += f" [red](and {self.bad_hidden} more like it)[/red]"
        self.bad_at = now
        self.bad_hidden = 0
        return text

    def _text(self, ev) -> str | None:
        if isinstance(ev, Frame):
            if ev.kind == "prompt":
                self.prompt_id = ev.payload.get("id")
                self.prompt_choices = list(ev.payload.get("choices") or [])
            elif ev.kind == "closed" and ev.payload.get("id") == self.prompt_id:
                self.prompt_id = None
            if ev.kind == "hello":
                self.cells = board_cells(ev.payload.get("board"))
            if ev.kind in ("hello", "state"):
                self.game = GameName(ev.payload.get("game"))
            if ev.kind in ("hello", "state") and ev.payload.get("log"):
                self.log_report = ev.payload["log"]
            self.note("<", f"{ev.kind} {json.dumps(ev.payload, sort_keys=True, ensure_ascii=False)}")
            text = frame_text(ev, self.cells)
            if ev.kind in ("action", "hint") and isinstance(ev.payload.get("text"), str):
                text += "  " + escape(safe_text(plain_words(self.game, ev.payload["text"])[:200]))
            if ev.kind == "prompt":
                choices = ev.payload.get("choices") or []
                text += "\n" + "\n".join(
                    f"        [magenta]{i + 1}[/magenta] {escape(safe_text(choice_words(self.game, str(c))[:200]))}"
                    for i, c in enumerate(choices)
                ) + "\n        (answer N)"
            if ev.kind == "action" and ev.payload.get("bust") is True:
                text += f"\n        [bold red]{BUST_WORDS}[/bold red]"
            if ev.kind in ("hello", "state") and ev.payload.get("log"):
                text += ("\n        [bold red]the board's game log was damaged:[/bold red] "
                         + escape(str(ev.payload["log"])) + "\n        (type `ack` once it is seen)")
            if ev.kind in ("hello", "state") and ev.payload.get("calibration"):
                text += ("\n        [bold red]the board measured a sensor's empty level again:[/bold red] "
                         + escape(str(ev.payload["calibration"])))
        elif isinstance(ev, Raw):
            self.note("|", ev.text)
            text = f"[yellow]|[/yellow] {escape(safe_text(ev.text))}"
        elif isinstance(ev, Damaged):
            self.note("!", f"damaged: {ev.why}: {ev.text}")
            return self._bad(f"[red]! damaged line dropped ({escape(ev.why[:200])}):[/red] "
                             f"{escape(safe_text(ev.text[:120]))}")
        elif isinstance(ev, Overlong):
            self.note("!", "overlong line dropped")
            return self._bad(f"[red]! a line over {ev.length} bytes was dropped[/red]")
        else:
            text = escape(str(ev))
        return text

    def _print(self, text: str) -> None:
        # Only while the prompt waits for a line is it cleared and drawn
        # again under the text (else the next input() draws it: once).
        again = self.redraw if self.waiting.is_set() else None
        if again:
            sys.stdout.write("\r\x1b[K")
            sys.stdout.flush()
        try:
            self.out.print(text, soft_wrap=True)
        except UnicodeError:  # a terminal that cannot show it: never the text that follows
            del self.out._buffer[:]
            self.out.print(escape(text.encode("ascii", "backslashreplace").decode("ascii")), soft_wrap=True)
        if again:
            again()

    def say(self, text: str) -> None:
        with self.lock:
            self._print(text)

    def execute(self, line: str) -> bool:
        """Run one typed line; False means quit."""
        words = line.split()
        if not words:
            return True
        self.note(">", line)
        cmd = words[0].lower()
        if cmd in ("quit", "exit"):
            return False
        if cmd == "help":
            self.say(escape(HELP))
            return True
        if cmd == "stats":
            lk = self.link
            self.say(
                f"frames in {lk.frames_in}, out {lk.frames_out}, damaged {lk.damaged}, "
                f"overlong {lk.overlong}, sequence gaps {lk.gaps}"
            )
            return True
        if cmd == "repl":
            self.repl()
            return True
        if cmd == "ack":
            if not self.log_report:
                self.say("[dim]the board has reported no damage to its game log[/dim]")
                return True
            seq = self.link.send("ack", {"log": self.log_report})
            self.say(f"[dim]{seq:5d} >[/dim] [bold]ack[/bold] (the game log report is seen)")
            self.log_report = None
            return True
        try:
            parsed = parse_command(line, self.prompt_id)
        except UserError as e:
            self.say(f"[red]{escape(str(e))}[/red]")
            return True
        if parsed:
            kind, payload = parsed
            seq = self.link.send(kind, payload)
            said = json.dumps(payload, sort_keys=True)
            i = payload.get("choice")
            if kind == "answer" and isinstance(i, int) and 0 <= i < len(self.prompt_choices):
                said = f"{i + 1}: {choice_words(self.game, str(self.prompt_choices[i]))}"  # counted from 1
            self.say(f"[dim]{seq:5d} >[/dim] [bold]{kind}[/bold] {escape(safe_text(said))}")
        return True

    # ---- the reader -------------------------------------------------------

    def pump(self, timeout: float = 0.1) -> None:
        """Read once and show what came (in REPL mode: raw bytes to stdout)."""
        if self.repl_mode:
            partial = bytes(self.link.reader.buf)  # a line begun before (a prompt: no newline)
            if partial:
                self.link.reader.buf = bytearray()
                self.repl_out(partial)
            data = self.link.read_bytes(timeout)
            if data:
                self.last_heard = time.monotonic()
                self.note("|", data.decode("utf-8", "replace"))
                self.repl_out(data)
            return
        for ev in self.link.read(timeout):
            self.last_heard = time.monotonic()
            self.show(ev)

    def repl_out(self, data: bytes) -> None:
        data = self.repl_start.feed(data)
        if data:
            os.write(sys.stdout.fileno(), data)

    def linger(self, quiet: float) -> None:
        """Keep showing what the board sends until it has been quiet for
        `quiet` seconds (commands from a pipe: the answers come after the
        last command); a board that never goes quiet, `quiet` + 10 s."""
        start = time.monotonic()
        self.last_heard = max(self.last_heard, start)
        while not self.stop.is_set() and time.monotonic() - start < quiet + 10:
            if time.monotonic() - self.last_heard >= quiet:
                return
            time.sleep(0.05)

    def reader(self) -> None:
        while not self.stop.is_set():
            try:
                self.pump(0.1)
            except Disconnected as e:
                self.say(f"[bold red]lost the board:[/bold red] {escape(str(e))}; reconnecting...")
                try:
                    hello = self.link.reopen(120)
                    self.say(f"[green]reconnected[/green]: {escape(json.dumps(hello, sort_keys=True))}")
                except LinkError as e2:
                    self.say(f"[bold red]{escape(str(e2))}[/bold red]")
                    self.stop.set()
                    os.kill(os.getpid(), 2)
            except Exception as e:  # noqa: BLE001 - a bug must show, never stop the reader
                with self.lock:
                    text = self._bad(f"[red]! the console hit {escape(repr(e))} reading the board[/red]")
                    if text is not None:
                        self._print(text)

    # ---- the MicroPython REPL ---------------------------------------------

    def repl(self) -> None:
        if not os.isatty(sys.stdin.fileno()):
            self.say("[red]repl needs a terminal[/red]")
            return
        try:
            import termios
            import tty
        except ImportError:  # Windows: no POSIX terminal to put in raw mode
            self.say("[red]repl needs a POSIX terminal (Linux, macOS); here use "
                     "`mpremote connect %s repl`[/red]" % self.link.port)
            return

        self.say("[bold]REPL[/bold] (MicroPython or CircuitPython): the firmware is stopped. Ctrl-] restarts it and comes back.")
        redraw, self.redraw = self.redraw, None  # no tb> prompt while the REPL has the keys
        self.repl_start = ReplStart()
        self.repl_mode = True
        fd = sys.stdin.fileno()
        old = termios.tcgetattr(fd)
        try:
            # Raw before the firmware is stopped, and without flushing: keys
            # typed as soon as `>>>` shows are never thrown away.
            tty.setraw(fd, termios.TCSANOW)
            # keys go through raw, but output still turns \n into \r\n: the
            # REPL's banner and lines start at the left, not as a staircase
            attrs = termios.tcgetattr(fd)
            attrs[1] |= termios.OPOST | termios.ONLCR
            termios.tcsetattr(fd, termios.TCSANOW, attrs)
            self.link.write_raw(CTRL_C)
            while True:
                r, _, _ = select.select([fd], [], [], 0.2)
                if not r:
                    continue
                data = os.read(fd, 256)
                if CTRL_RBRACKET in data:
                    data = data.split(CTRL_RBRACKET)[0]
                    if data:
                        self.link.write_raw(data)
                    break
                self.link.write_raw(data)
        finally:
            termios.tcsetattr(fd, termios.TCSADRAIN, old)
            self.link.write_raw(CTRL_D)
            self.repl_mode = False
            self.redraw = redraw
            self.say("\n[bold]back[/bold]: the firmware restarts (Ctrl-D sent)")


class ReplStart:
    """What the console shows as the REPL starts: the stopped firmware's
    KeyboardInterrupt traceback is left out; MicroPython's banner, or
    CircuitPython's `Press any key to enter the REPL` or its banner (or, with
    none, the `>>> ` prompt), and everything after it shown."""

    MARKS = (b"MicroPython ", b"Press any key to enter the REPL", b"Adafruit CircuitPython ")

    def __init__(self):
        self.held = b""
        self.open = False

    def feed(self, data: bytes) -> bytes:
        if self.open:
            return data
        self.held += data
        at = min([i for i in (self.held.find(m) for m in self.MARKS) if i >= 0], default=-1)
        if at < 0:
            at = self.held.find(b">>> ")
        if at < 0:
            self.held = self.held[-4096:]  # a traceback's worth, waiting for the banner
            return b""
        self.open = True
        out, self.held = self.held[at:], b""
        return out


def banner(link: Link) -> str:
    hello = link.hello or {}
    if not hello.get("fw"):
        return (f"[bold]Turtleboard console[/bold] on {escape(link.port)}: the device did not "
                f"answer hello (no Turtleboard firmware running?); its raw lines are shown and "
                f"`repl` reaches MicroPython. Type help, Tab completes")
    return (f"[bold]Turtleboard console[/bold] on {escape(link.port)}: firmware {escape(str(hello.get('fw')))}, "
            f"protocol {escape(str(hello.get('proto')))}, board {escape(str(hello.get('board')))}; "
            f"type help, Tab completes")


def run_console(link: Link, log_path: str | None = None, linger: float = 0.0) -> int:
    try:
        import readline
    except ImportError:  # Windows: the console works, without completion and history
        readline = None

    log = open(log_path, "a", encoding="utf-8", errors="backslashreplace") if log_path else None
    con = Console(link, log=log)
    prompt = "tb> "

    def complete(text, state):
        buf = readline.get_line_buffer()
        words = buf.split()
        if len(words) == 0 or (len(words) == 1 and not buf.endswith(" ")):
            options = [c for c in COMMANDS if c.startswith(text)]
        else:
            options = [c for c in COMPLETIONS.get(words[0], []) if c.startswith(text)]
        return (options[state] + " ") if state < len(options) else None

    if readline is not None:
        readline.set_completer(complete)
        readline.set_completer_delims(" ")
        readline.parse_and_bind("tab: complete")
    interactive = os.isatty(sys.stdin.fileno())
    if interactive:
        def redraw():
            typed = readline.get_line_buffer() if readline is not None else ""
            sys.stdout.write(prompt + typed)
            sys.stdout.flush()
        con.redraw = redraw
    con.say(banner(link))
    thread = threading.Thread(target=con.reader, daemon=True)
    thread.start()
    if interactive:
        con.linger(0.3)  # what the board says on connecting comes before the first prompt
    try:
        while not con.stop.is_set():
            con.waiting.set()
            try:
                line = input(prompt if interactive else "")
            except EOFError:
                break
            finally:
                con.waiting.clear()
            try:
                if not con.execute(line):
                    break
            except Disconnected as e:
                con.say(f"[red]not sent: {escape(str(e))}[/red]")
        if not interactive and linger > 0:
            con.linger(linger)  # with the reader still running
    finally:
        con.stop.set()
        thread.join(1)
        if log:
            log.close()
    return 0
