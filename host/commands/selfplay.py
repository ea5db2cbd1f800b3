"""`turtleboard selfplay GAME`: a whole game with simple bots, record out."""

from __future__ import annotations

from pathlib import Path

from turtleboard.errors import UserError, reason
from turtleboard.games import KEYS, entry, games_help, options_help
from turtleboard.paths import writable_file
from turtles import GameError, new_game
from turtles.bots import play_random
from turtles.record import parse_options, write_record
from turtles.rng import Rng


def add_arguments(p) -> None:
    p.add_argument("game", choices=KEYS, metavar="GAME", help="the game: " + games_help())
    p.add_argument("--players", type=int, default=2, help="number of players")
    p.add_argument("--seed", type=int, default=1, help="seed of our PRNG (same game every time)")
    p.add_argument("--options", default="", help="options as name=value,name=value; Mahé: %s. "
                   "The Turtle Race: %s. Tortuga (tattoo and hatching set theirs): %s" % (
                       options_help("mahe"), options_help("race"), options_help("tortuga")))
    p.add_argument("-o", "--output", help="write the record here instead of standard output")


def run(args) -> int:
    if args.output:
        writable_file(args.output, "the record")
    try:
        chosen = entry(args.game)
        options = dict(chosen.options)
        options.update(parse_options(args.options))
        game = new_game(chosen.rules, args.players, options)
    except GameError as e:
        raise UserError(str(e)) from None
    play_random(game, Rng(args.seed))
    text = write_record(game)
    if args.output:
        try:
            Path(args.output).write_text(text, encoding="utf-8")
        except OSError as e:  # (checked before the game: a folder gone since, a full disk)
            raise UserError(f"cannot write the record to {args.output}: {reason(e)}") from None
    else:
        print(text, end="")
    return 0
