"""`turtleboard demo`: a whole game on the virtual board, played by scripted
hands through its sensors and buttons, mirrored live over the serial link."""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
import time

from turtleboard.errors import UserError
from turtleboard.games import entry, games_help
from turtleboard.paths import BOARD_HELP, board_arg, reference_board, writable_file
from turtleboard.sim.lock import lock_folder
from turtleboard.terminal import kept_terminal, shielded

PLAYERS = {"mahe": 2, "race": 3, "tortuga": 2}


def add_arguments(p) -> None:
    p.add_argument("--game", default="mahe", metavar="G",
                   help="the game: %s (default: mahe)" % games_help())
    p.add_argument("--seed", type=int, default=1, metavar="S",
                   help="the hands' decisions and timing (default: 1)")
    p.add_argument("--players", type=int, default=None, metavar="N",
                   help="number of players (default: 2, 3 for the Race)")
    p.add_argument("--board", type=board_arg,
                   help=BOARD_HELP + " (default: the reference board of the game)")
    p.add_argument("--dir", metavar="D",
                   help="the virtual device's folder (default: a temporary one, removed after)")
    p.add_argument("--fast", action="store_true",
                   help="hands as fast as the sensors allow (for tests)")
    p.add_argument("--noise", type=float, default=0, metavar="N",
                   help="sensor noise, standard deviation in ADC counts (e.g. 300)")
    p.add_argument("--bounce", action="store_true", help="turtles wobble as they are put down")
    p.add_argument("--record", metavar="FILE",
                   help="where to save the game record (default: demo-<game>-<seed>.txt here)")
    p.add_argument("--seats", metavar="S,S,...",
                   help="who plays each seat: person (the scripted hands), a level the board "
                        "plays itself (random, easy, good), or host:LEVEL (this PC plays it, "
                        "e.g. host:best); the hands make the computer's moves as lit "
                        "(default: person for every seat)")
    p.add_argument("--plain", action="store_true",
                   help="plain text output, one line per action (the default without a terminal)")
    from turtleboard.web.cli import add_arguments as web_arguments

    web_arguments(p, default_on=True)


class View:
    """What the demo shows: the live picture in a terminal, or plain lines."""

    def __init__(self, plain: bool):
        self.plain = plain
        self.live = None
        self.lines: list[str] = []
        self.shown = 0

    def start(self) -> None:
        if not self.plain:
            from rich.console import Console
            from rich.live import Live

            self.live = Live(console=Console(), refresh_per_second=8, transient=False)
            self.live.start()

    def stop(self) -> None:
        if self.live is not None:
            self.live.stop()
            self.live = None

    def say(self, text: str) -> None:
        self.lines.append(text)
        if self.plain:
            print(text, flush=True)

    def draw(self, mirror, hands) -> None:
        if self.live is None:
            return
        from rich.console import Group
        from rich.panel import Panel
        from rich.text import Text

        from turtleboard.pictures import text_picture
        from turtleboard.pictures.describe import choice_words

        game = mirror.replica.game
        picture = text_picture(game) if game is not None else "(no game yet)"
        status = (mirror.status or {}).get("text", "")
        prompt = mirror.prompt
        ask = ""
        if prompt:
            choices = prompt.get("choices") or []
            cur = prompt.get("current", 0)
            ask = "prompt: %s  %s" % (prompt.get("text", ""), ", ".join(
                (">%s<" % choice_words(game, c)) if i == cur else choice_words(game, c)
                for i, c in enumerate(choices)))
        body = Group(
            Text(picture),
            Text(""),
            Text("board: %s" % status, style="bold"),
            Text(ask, style="yellow"),
            Text("\n".join(self.lines[-6:]), style="dim"),
        )
        title = "Turtleboard demo: %s, %d actions" % (
            game.name if game else "", len(game.history) if game else 0)
        self.live.update(Panel(body, title=title))


def parse_seats(text, players):
    """--seats -> (the seats for `new`, {seat: level the host plays}); (None, {}) without."""
    from turtles.bots import LEVELS

    if not text:
        return None, {}
    given = [s.strip() for s in text.split(",")]
    if len(given) != players:
        raise UserError("--seats names %d seats for %d players; give one a player, e.g. "
                        "--seats person,good" % (len(given), players))
    seats, host = [], {}
    for i, s in enumerate(given):
        if s.startswith("host:"):
            level = s[5:]
            if level not in LEVELS:
                raise UserError("--seats: %r is no level; the levels are %s" % (level, ", ".join(LEVELS)))
            seats.append("host")
            host[i] = level
        else:
            seats.append(s)  # the board checks the rest and says what is wrong
    return seats, host


def host_player(mirror, levels, seed):
    """The host's turn on a "host" seat: think on the mirror's replica, enter the move."""
    from turtleboard.mirror.hostseats import HostSeats

    seats = HostSeats(mirror, seed=seed)
    seats.levels = levels

    def turn(game, who):
        if who in levels and seats.due():
            seats.move(game, who)

    return turn


def run(args) -> int:
    from turtleboard.commands.sim import require_sim_platform

    require_sim_platform()
    from turtleboard.sim import device
    from turtles import GameError, new_game

    chosen = entry(args.game)
    rules, options = chosen.rules, dict(chosen.options)
    board_path = args.board or str(reference_board(rules))
    if not os.path.exists(board_path):
        raise UserError("no board file for %s (%s); the virtual board plays the games that have "
                        "a reference board, or give one with --board FILE"
                        % (args.game, board_path))
    board = device.load_board_file(board_path)
    if rules not in board.games:
        raise UserError("the board %s plays %s, not %s; pick a board file for %s with --board"
                        % (board_path, ", ".join(board.games), rules, rules))
    players = args.players or PLAYERS.get(rules, 2)
    try:
        new_game(rules, players, options, board.geometry)
    except GameError as e:
        raise UserError(str(e))
    seats, host_levels = parse_seats(args.seats, players)
    record_path = args.record or "demo-%s-%d.txt" % (args.game, args.seed)
    writable_file(record_path, "the game record")  # before the game, not after it
    plain = args.plain or not sys.stdout.isatty()
    temp = args.dir is None
    view = View(plain)
    with kept_terminal():  # (before the folder is made: a kill then still removes it)
        sim_dir = tempfile.mkdtemp(prefix="turtleboard-demo-") if temp else os.path.abspath(args.dir)
        try:
            # A folder another virtual board uses is refused before anything
            # in it is touched; the virtual board started here gets the lock.
            lock = lock_folder(sim_dir)
        except BaseException:
            if temp:
                shutil.rmtree(sim_dir, ignore_errors=True)
            raise
        return _play(args, view, plain, temp, sim_dir, lock, board, board_path, rules, options,
                     players, record_path, seats, host_levels)


def save_record(path: str, text: str) -> str:
    """Write the record of the game played to `path`, or, should that fail now
    (the folder went away, the disk filled up), to a new file in the temporary
    folder: a game played is never lost. -> where it is."""
    try:
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        return path
    except OSError as e:
        fd, other = tempfile.mkstemp(prefix="demo-", suffix=".txt")
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        print("could not write %s (%s): the record is in %s instead" % (path, e.strerror, other),
              file=sys.stderr)
        return other


def _play(args, view, plain, temp, sim_dir, lock, board, board_path, rules, options, players,
          record_path, seats, host_levels) -> int:
    from turtleboard.connection.link import DeviceError
    from turtleboard.connection.replica import Mirror
    from turtleboard.sim import device
    from turtleboard.sim.hands import BRISK, FAST, Hands, HandsError
    from turtleboard.sim.world import WIRING_FILE, World, WorldError

    bg = mirror = world = web = None
    failed = False  # (a temporary folder is removed all the same: --dir keeps one)
    refused = False
    try:
        device.prepare(sim_dir, board_path, fresh_firmware=True)
        device.forget_game(sim_dir)  # a fresh board, a fresh game
        try:
            os.unlink(os.path.join(sim_dir, "flash", "calibration.txt"))
        except OSError:
            pass
        world = World(board, os.path.join(sim_dir, "world"), noise=args.noise,
                      bounce=args.bounce, seed=args.seed, load=False)
        world.clear()
        view.say("starting the virtual board in %s" % sim_dir)
        extra = []
        wiring_path = os.path.join(sim_dir, "world", WIRING_FILE)
        if not temp and os.path.exists(wiring_path):  # the folder's board, soldered as it is
            extra = ["--wiring", wiring_path]
            for fault in world.wiring.faults():
                view.say("wiring fault of this virtual board, kept: %s" % fault)
        bg = device.Background(sim_dir, board_path, extra, lock=lock)
        view.say("virtual board on %s" % bg.path)
        mirror = Mirror(bg.path, geometry=board.geometry)
        hello = mirror.start(10)
        view.say("connected: %s, firmware %s" % (hello.get("board"), hello.get("fw")))
        new = {"game": rules, "players": players, "options": options,
               "dice": "electronic", "seed": args.seed & 0x3FFFFFFF}
        if seats is not None:
            new["seats"] = seats
        try:
            mirror.link.command("new", new, timeout=5)
        except DeviceError as e:
            refused = True  # the game asked for was wrong: nothing on the board to look at
            raise UserError("the board refused the game: %s" % e)
        mirror.wait_synced(10)
        view.say("new game: %s, %d players, seed %d%s" % (
            args.game, players, args.seed, ", seats " + args.seats if seats else ""))
        web = start_web(args, mirror, board_path, view, players)
        hands = Hands(world, mirror, seed=args.seed, timing=FAST if args.fast else BRISK,
                      log=lambda text: None)
        if seats is not None:
            hands.computer = {i for i, s in enumerate(seats) if s != "person"}
            hands.computer_turn = host_player(mirror, host_levels, args.seed)
        last = [0.0]

        def on_event(ev) -> None:
            kind, data = ev
            if kind == "frame" and data.kind == "action":
                p = data.payload
                view.say("%4d. %-12s by %s" % (p.get("n", 0), p.get("text"), p.get("by")))
            elif kind == "note" and not plain:
                view.lines.append(str(data))
            elif kind == "link":
                view.say("link: %s" % data)
            now = time.monotonic()
            if now - last[0] > 0.1:
                last[0] = now
                view.draw(mirror, hands)

        hands.on_event = on_event
        view.start()
        started = time.monotonic()
        try:
            hands.play()
        except (HandsError, WorldError) as e:
            raise UserError("the demo stopped: %s" % e)
        view.draw(mirror, hands)
        view.stop()
        game = mirror.replica.game
        from turtleboard.pictures import text_picture
        from turtles.record import write_record

        if plain:
            print(text_picture(game))
        res = game.result() or {}
        winners = ", ".join("player %d" % (w + 1) for w in res.get("winners", []))
        record_path = save_record(record_path, write_record(game))
        print("game over after %d actions in %.0f s: %s won (scores %s)"
              % (len(game.history), time.monotonic() - started, winners or "nobody",
                 res.get("scores")))
        print("record saved to %s (`turtleboard replay %s` replays it)" % (record_path, record_path))
        if web is not None and sys.stdin.isatty() and sys.stdout.isatty():
            # the family looking at the page sees the result before it goes away
            print("the page stays open with the result: %s (Enter ends the demo)" % web.url(), flush=True)
            try:
                input()
            except EOFError:
                pass
        return 0
    except KeyboardInterrupt:
        raise  # Ctrl-C, a closed terminal: nothing went wrong, nothing to keep
    except BaseException:
        failed = temp and not refused
        raise
    finally:
        with shielded():  # a second Ctrl-C or kill must not leave a device or folder behind
            view.stop()
            if web is not None:
                web.stop()
            if mirror is not None:
                mirror.close()
            if bg is not None:
                bg.stop()
            if world is not None:
                world.close()
            if failed:
                print("(to look at the virtual board after a failed demo, give it a folder "
                      "to keep: --dir D)", file=sys.stderr)
            if temp:
                shutil.rmtree(sim_dir, ignore_errors=True)
            os.close(lock)  # last: the folder was ours until here


def start_web(args, mirror, board_path, view, players):
    """The table's web page of the demo: on when the web extra is installed
    (--no-web: off), its address said; without the extra, how to get it."""
    from turtleboard.web.cli import INSTALL, available, start

    if args.web is False:
        return None
    if not available():
        if args.web is None:
            view.say("(a web page of the game: %s)" % INSTALL)
            return None
        raise UserError(INSTALL)
    import json

    with open(board_path, encoding="utf-8") as f:
        board_def = json.load(f)
    try:
        web = start(args, mirror, board_def)
    except UserError as e:
        view.say("no web page: %s" % e)
        return None
    view.say("the game on a web page: %s (players' own pages: %s)" % (web.url(), web.seats_words(players)))
    if web.access.lan:
        import io

        out = io.StringIO()
        web.print_links(players, out)
        print(out.getvalue(), flush=True)
    return web
