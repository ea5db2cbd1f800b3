"""`turtleboard play [--port P] [--player N] [--board FILE] [--web [--lan] [--no-tui]]`:
the live mirror, in the terminal and (--web) as the table's web page."""

from __future__ import annotations

from turtleboard.connection.link import LinkError
from turtleboard.errors import UserError
from turtleboard.paths import BOARD_HELP, board_arg
from turtleboard.terminal import kept_terminal


def add_arguments(p) -> None:
    p.add_argument("--port", help="the serial port or pty (default: the one Pico plugged in)")
    p.add_argument("--player", type=int, help="show what player N (from 1) may see; default: what an onlooker sees")
    p.add_argument("--host-level", default="best", metavar="LEVEL",
                   help="the level this PC plays the game's \"host\" seats at (new ... "
                        "seats=person,host): random, easy, good or best (default best)")
    p.add_argument("--board", type=board_arg,
                   help="for the LED map and geometry, if the board is not a reference board: " + BOARD_HELP)
    from turtleboard.web.cli import add_arguments as web_arguments

    web_arguments(p)
    p.add_argument("--no-tui", action="store_true",
                   help="with --web: only the web page, no terminal mirror (Ctrl-C ends it)")


def run(args) -> int:
    from turtleboard.commands.flash import pick_port
    from turtleboard.connection.replica import Mirror
    from turtleboard.mirror.app import MirrorApp, board_file_for

    geometry = None
    if args.board:
        geometry = (board_file_for(None, args.board) or {}).get("geometry")
    if args.player is not None and args.player < 1:
        raise UserError("--player counts from 1")
    if (args.lan or args.no_tui) and not args.web:
        raise UserError("--lan and --no-tui go with --web (the web page)")
    mirror = Mirror(pick_port(args.port), geometry, give_up_after=None)  # wait for a replug
    mirror.start()
    web = None
    try:
        try:
            said = [text for kind, text in mirror.wait_synced(5) if kind == "note"]  # (the log's report...)
        except LinkError as e:
            raise UserError(f"{e}; the board answers hello but not sync: is its firmware ours?") from None
        game = mirror.replica.game
        if args.player is not None and game is not None and args.player > game.players:
            raise UserError(f"--player {args.player}: the game on the board has {game.players} players")
        from turtleboard.mirror.hostseats import HostSeats

        try:
            host = HostSeats(mirror, args.host_level)
        except ValueError as e:
            raise UserError("--host-level: %s" % e) from None
        if args.web:
            from turtleboard.web.cli import start

            web = start(args, mirror, board_file_for((mirror.hello or {}).get("board"), args.board))
            web.print_links(game.players if game is not None else None)
        if args.no_tui:
            serve_only(mirror, host)
            return 0
        notes = said + (["the table's web page: %s" % web.url()] if web else [])
        with kept_terminal():  # however it ends, the terminal is left as it was
            MirrorApp(mirror, None if args.player is None else args.player - 1, args.board,
                      host, notes).run()
    finally:
        if web is not None:
            web.stop()
        mirror.close()
    return 0


def serve_only(mirror, host) -> None:
    """The web page alone: read the board (the page's watcher sees every
    poll) and play the PC's seats, until Ctrl-C."""
    import sys

    print("serving the web page; Ctrl-C ends it", flush=True)
    try:
        while True:
            try:
                events = mirror.poll(0.05)
            except LinkError as e:
                print("%s; trying again" % e, file=sys.stderr, flush=True)
                continue
            for kind, data in events:
                if kind in ("note", "link"):
                    print(data, flush=True)
            host.poll()
    except KeyboardInterrupt:
        pass
