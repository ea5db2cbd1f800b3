"""`turtleboard board ACTION`: the maker's tools for a board file.

    check FILE...        check a board definition with the same code the device
                         runs (controller/boardcheck.py)
    wiring FILE          the wiring diagram (SVG) drawn from the board file
    bom FILE             the parts list for that board (table, or CSV)
    test --port P --board FILE   the guided self-test of a built board
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from controller.board import Board, check_board, engine_cells
from turtleboard.errors import UserError, reason
from turtleboard.maker import out_path
from turtleboard.paths import BOARD_HELP, board_arg, writable_folder


def add_arguments(p) -> None:
    sub = p.add_subparsers(dest="action", metavar="ACTION", required=True)
    check = sub.add_parser("check", help="check a board file and list every mistake",
                           description="Check a board file (JSON) and list every mistake "
                           "with its place in the file; exit status 1 if there is any.")
    check.add_argument("files", nargs="+", metavar="FILE", type=board_arg,
                       help="board file(s) to check, or reference boards: mahe, race, tortuga")
    wiring = sub.add_parser("wiring", help="draw the wiring diagram of a board (SVG, A4)",
                            description="Draw the wiring diagram of a board file as an SVG "
                            "(landscape A4): the Pico's pins, each multiplexer with the cell on "
                            "each input, the LED chain, buttons, power and passives.")
    wiring.add_argument("file", metavar="FILE", type=board_arg, help=BOARD_HELP)
    wiring.add_argument("-o", "--output", metavar="SVG",
                        help="the SVG to write (default: the board file's name with .svg, here)")
    bom = sub.add_parser("bom", help="the parts list of a board, as a table or CSV",
                         description="The parts to buy for a board file, with counts.")
    bom.add_argument("file", metavar="FILE", type=board_arg, help=BOARD_HELP)
    bom.add_argument("--csv", metavar="OUT", nargs="?", const="-",
                     help="write CSV instead of the table (to OUT, or - for the screen)")
    bom.add_argument("--turtles", type=int, default=None, metavar="N",
                     help="turtles (magnets) per game, if not the games' own count")
    test = sub.add_parser(
        "test", help="the guided self-test of a built board (LEDs, sensors, calibration)",
        description="With the firmware running: light each LED in turn and ask where it is, "
        "ask for a turtle on each cell and find the sensor that answers. Reports swapped "
        "channels, dead or silent sensors, reversed sensors and weak magnets, and writes a "
        "corrected board file and a calibration beside the board file, for `turtleboard "
        "flash`. Ctrl-C gives the board back to its game as it was.")
    test.add_argument("--port", help="the serial port or pty (default: the one Pico plugged in)")
    test.add_argument("--board", required=True, type=board_arg,
                      help="the board file the board runs (" + BOARD_HELP + ")")
    test.add_argument("--out-dir", metavar="DIR",
                      help="where to write the corrected files (default: beside the board "
                           "file; here for a reference board)")
    test.add_argument("--sim-hands", metavar="DIR",
                      help="on a virtual board: scripted hands in its folder DIR do what the "
                           "test asks (try the test without a person)")
    test.add_argument("--patience", type=float, default=None, metavar="S",
                      help="seconds to wait for a turtle on each cell (default 120; 5 for "
                           "--sim-hands)")


def run(args) -> int:
    if args.action == "wiring":
        return run_wiring(args)
    if args.action == "bom":
        return run_bom(args)
    if args.action == "test":
        return run_test(args)
    bad = 0
    for name in args.files:
        bad += check_file(name)
    return 1 if bad else 0


def load_checked(name: str) -> dict:
    """The board file's object, checked; a UserError that lists what is wrong."""
    try:
        obj = json.loads(Path(name).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise UserError(f"no such board file: {name} ({BOARD_HELP})") from None
    except (OSError, UnicodeDecodeError) as e:
        raise UserError(f"cannot read the board file {name}: {reason(e)}") from None
    except json.JSONDecodeError as e:
        raise UserError(f"{name}: line {e.lineno} column {e.colno}: not valid JSON: {e.msg}") from None
    problems = check_board(obj)
    if problems:
        lines = "\n".join(f"  {where}: {what}" for where, what in problems)
        raise UserError(f"the board file {name} has problems (`turtleboard board check {name}`):\n{lines}")
    return obj


def run_wiring(args) -> int:
    from turtleboard.maker.wiring import wiring_svg

    obj = load_checked(args.file)
    path = Path(args.output) if args.output else out_path(args.file, "-wiring.svg", ".")
    try:
        path.write_text(wiring_svg(obj), encoding="utf-8")
    except OSError as e:
        raise UserError(f"cannot write {path}: {reason(e)}") from None
    print(f"wrote {path}: the wiring of {obj['name']} (landscape A4; print it at 100%)")
    return 0


def run_bom(args) -> int:
    from turtleboard.maker.bom import bom_csv, bom_rows, bom_table

    obj = load_checked(args.file)
    rows = bom_rows(obj, args.turtles)
    if args.csv is None:
        print(bom_table(obj, rows))
        return 0
    text = bom_csv(rows)
    if args.csv == "-":
        sys.stdout.write(text)
        return 0
    try:
        Path(args.csv).write_text(text, encoding="utf-8")
    except OSError as e:
        raise UserError(f"cannot write {args.csv}: {reason(e)}") from None
    print(f"wrote {args.csv}: {len(rows)} parts for {obj['name']}", file=sys.stderr)
    return 0


def run_test(args) -> int:
    from turtleboard.commands.flash import pick_port
    from turtleboard.connection.link import Link
    from turtleboard.maker.report import write_results
    from turtleboard.maker.selftest import Person, SelfTest

    obj = load_checked(args.board)
    # Where the results go, and the hands' folder, checked before the test:
    # a test done by hand is never lost to a folder that cannot take them.
    writable_folder(str(out_path(args.board, "", args.out_dir).parent),
                    "the corrected board file and calibration")
    if args.sim_hands and not os.path.isdir(os.path.join(args.sim_hands, "world")):
        raise UserError(f"{args.sim_hands} is not a virtual board's folder (it has no world/): "
                        f"give --sim-hands the --dir of the running `turtleboard sim`")
    port = pick_port(args.port)
    link = Link(port)
    hello = link.open()
    device = link.device_path()  # the port itself (a virtual board's <dir>/pty names it)
    try:
        if hello.get("board") is None:
            raise UserError(
                f"the board on {port} has no usable board file (`turtleboard console --port "
                f"{port}` shows why); flash one first: turtleboard flash --port {port} "
                f"--board {args.board}")
        if hello.get("board") != obj["name"] or hello.get("board_version") != obj["version"]:
            raise UserError(
                f"the board on {port} runs board file {hello.get('board')!r} version "
                f"{hello.get('board_version')}, not {obj['name']!r} version {obj['version']} "
                f"of {args.board}; test with the board file it runs, or flash this one first "
                f"(turtleboard flash --port {port} --board {args.board})")
        if args.sim_hands:
            from turtleboard.sim.tester import TesterHands

            person = TesterHands(Board(obj, engine_cells(obj["games"][0], obj["geometry"])),
                                 args.sim_hands)
        else:
            person = Person()
        test = SelfTest(link, obj, person, args.patience)
        print(f"Self-test of {obj['name']} v{obj['version']} on {port}: the game on the board "
              f"stands still meanwhile; Ctrl-C stops and gives it back as it was.", flush=True)
        try:
            test.run()
        except KeyboardInterrupt:
            print("\nstopped: the board is back in its game as it was; put its turtles back "
                  "where the lights show. Nothing was written.", file=sys.stderr)
            return 130
    finally:
        link.close()
    test.judge()
    return write_results(test, args.board, args.out_dir, device)


def check_file(name: str) -> int:
    """Prints what check finds in one file; returns 1 if it is not a good board."""
    try:
        text = Path(name).read_text(encoding="utf-8")
    except FileNotFoundError:
        return _fail(name, "no such file")
    except IsADirectoryError:
        return _fail(name, "this is a folder; give the board file (.json) inside it")
    except UnicodeDecodeError as e:
        return _fail(name, f"not a text file (UTF-8): byte {e.start} cannot be read")
    except OSError as e:
        return _fail(name, f"cannot be read: {e.strerror or e}")
    try:
        obj = json.loads(text)
    except json.JSONDecodeError as e:
        return _fail(name, f"line {e.lineno} column {e.colno}: not valid JSON: {e.msg}")
    except RecursionError:
        return _fail(name, "not a board file: its JSON is nested too deep to read "
                           "(a board file is a few levels deep)")
    problems = check_board(obj)
    if problems:
        for where, message in problems:
            print(f"{name}: {where}: {message}", file=sys.stderr)
        return 1
    board = Board(obj, engine_cells(obj["games"][0], obj["geometry"]))
    print(f"ok: {board.name} ({len(board.cells)} cells on {len(board.mux['adc'])} "
          f"multiplexer(s), {board.led_count} LEDs, buttons "
          f"{', '.join(n for n, _ in board.buttons)}; games: {', '.join(board.games)})")
    return 0


def _fail(name: str, message: str) -> int:
    print(f"{name}: {message}", file=sys.stderr)
    return 1
