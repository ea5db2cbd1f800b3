"""`turtleboard play [--port P] [--player N] [--board FILE]`: the live mirror."""

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


def run(args) -> int:
    from turtleboard.commands.flash import pick_port
    from turtleboard.connection.replica import Mirror
    from turtleboard.mirror.app import MirrorApp, board_file_for

    geometry = None
    if args.board:
        geometry = (board_file_for(None, args.board) or {}).get("geometry")
    if args.player is not None and args.player < 1:
        raise UserError("--player counts from 1")
    mirror = Mirror(pick_port(args.port), geometry, give_up_after=None)  # wait for a replug
    mirror.start()
    try:
        try:
            mirror.wait_synced(5)
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
        with kept_terminal():  # however it ends, the terminal is left as it was
            MirrorApp(mirror, None if args.player is None else args.player - 1, args.board,
                      host).run()
    finally:
        mirror.close()
    return 0
