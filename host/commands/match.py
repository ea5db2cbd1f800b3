"""`turtleboard match GAME --bots A,B --games N --seed S`: bots play seeded
games with the seats rotated; each bot's win share with a 95% interval."""

from __future__ import annotations

import json
import sys

from turtleboard.errors import UserError
from turtleboard.matches import RULES, Match
from turtles import GameError
from turtles.bots import LEVELS
from turtles.record import parse_options


def add_arguments(p) -> None:
    p.add_argument("game", choices=sorted(RULES), help="the rule set")
    p.add_argument("--bots", required=True, metavar="A,B[,C...]",
                   help="bot levels (%s), one a seat; the last fills the seats left"
                   % ", ".join(LEVELS))
    p.add_argument("--games", type=int, default=100, metavar="N", help="games to play (default 100)")
    p.add_argument("--seed", type=int, default=1, metavar="S", help="seed of the games (default 1)")
    p.add_argument("--players", type=int, default=None, metavar="P",
                   help="seats (default: as many as bots, at least the game's minimum)")
    p.add_argument("--options", default="", help="game options as name=value,name=value")
    p.add_argument("--opening", type=int, default=None, metavar="K",
                   help="random plies before the bots play (default 2 in Tortuga and its "
                        "variants, which have no chance; 0 otherwise)")
    p.add_argument("--json", action="store_true", help="print the table as JSON")


def run(args) -> int:
    bots = [b.strip() for b in args.bots.split(",") if b.strip()]
    if not bots:
        raise UserError("--bots needs at least one level, e.g. --bots best,random")
    if args.games < 1:
        raise UserError("--games must be 1 or more")
    players = args.players or max(len(bots), 2)
    try:
        match = Match(args.game, bots, players, args.seed, parse_options(args.options), args.opening)
        for i in range(args.games):
            match.play_one()
            if not args.json and sys.stderr.isatty():
                print("\r%d/%d games" % (i + 1, args.games), end="", file=sys.stderr, flush=True)
    except (GameError, ValueError) as e:
        raise UserError(str(e)) from None
    if not args.json and sys.stderr.isatty():
        print(file=sys.stderr)
    table = match.table()
    if args.json:
        print(json.dumps({"game": args.game, "players": players, "seed": args.seed,
                          "games": args.games, "bots": table, "timing": match.timing()},
                         indent=1))
        return 0
    print("%s, %d players, %d games, seed %d (seats rotated)"
          % (args.game, players, args.games, args.seed))
    print("%-8s %6s %6s %8s  %s" % ("bot", "seats", "fair", "share", "95% interval"))
    for row in table:
        print("%-8s %6.2f %6.3f %8.3f  %.3f..%.3f" % (
            row["bot"], row["seats_per_game"], row["fair_share"], row["share"],
            row["ci95"][0], row["ci95"][1]))
    for b, t in match.timing().items():
        print("%-8s %d moves, %.1f ms a move on average, %.0f ms at most"
              % (b, t["moves"], t["mean_ms"], t["max_ms"]))
    return 0
