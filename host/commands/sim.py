"""`turtleboard sim`: start a virtual board on a pseudo-terminal.

The real firmware runs under the MicroPython unix port with the sim HAL; the
host tool and mpremote open the printed pty like a Pico's serial port. See
docs/virtual-device.md."""

from __future__ import annotations

import argparse
import os
import signal
import sys
import threading

from turtleboard.errors import UserError, reason
from turtleboard.paths import BOARD_HELP, board_arg


def add_arguments(p) -> None:
    p.add_argument("--board", required=True, type=board_arg, help=BOARD_HELP)
    p.add_argument("--dir", default="turtleboard-sim", metavar="D",
                   help="the device's folder: flash/ and world/ (default: ./turtleboard-sim; "
                        "kept, so the game and the pieces survive a restart)")
    p.add_argument("--noise", type=float, default=0, metavar="N",
                   help="Gaussian sensor noise, standard deviation in ADC counts (e.g. 300)")
    p.add_argument("--bounce", action="store_true",
                   help="turtles wobble for a moment as they are put down")
    p.add_argument("--interactive", "-i", action="store_true",
                   help="show the board and play it by hand (keys and mouse)")
    p.add_argument("--fresh-firmware", action="store_true",
                   help="copy the firmware from this checkout onto the flash again")
    p.add_argument("--blank", action="store_true",
                   help="a Pico with MicroPython only: an empty flash, for `turtleboard flash`")
    p.add_argument("--romfs-bytes", type=int, default=None, metavar="N",
                   help="size of the ROM partition (default 262144, 256 KB; kept in "
                        "<dir>/romfs.img); 0: a stock Pico firmware without one")
    p.add_argument("--quiet", "-q", action="store_true", help="print only the pty path")
    p.add_argument("--lifeline", action="store_true", help=argparse.SUPPRESS)
    # --lifeline: stop when standard input closes (a program that starts the
    # device keeps a pipe to it open, so the device dies with that program).
    p.add_argument("--lock-fd", type=int, default=None, help=argparse.SUPPRESS)
    # --lock-fd N: the folder's lock, taken by the program that started us
    # (the demo, which prepared the folder under it) and handed on as fd N.
    w = p.add_argument_group(
        "wiring faults", "the board as soldered may differ from the board file the firmware "
        "runs (kept in <dir>/world/wiring.json until the next start; try `turtleboard board "
        "test` on it)")
    w.add_argument("--wiring", metavar="FILE",
                   help="the physical wiring: a board file whose cells' sensor and led say "
                        "where each cell's sensor and LED really are, or a wiring.json")
    w.add_argument("--swap-sensors", action="append", default=[], metavar="A,B",
                   help="the sensor wires of cells A and B swapped")
    w.add_argument("--swap-leds", action="append", default=[], metavar="A,B",
                   help="the LEDs of cells A and B in each other's place on the chain")
    w.add_argument("--swap-buttons", action="append", default=[], metavar="A,B",
                   help="buttons A and B (next, ok, undo) soldered to each other's pin")
    w.add_argument("--extra-led", action="append", default=[], type=int, metavar="N",
                   help="an LED too many soldered in at place N of the chain (0: before the "
                        "first): every LED from there on one place further")
    w.add_argument("--reverse-sensor", action="append", default=[], metavar="CELL",
                   help="the sensor of CELL mounted the wrong way round")
    w.add_argument("--kill-sensor", action="append", default=[], metavar="CELL",
                   help="the sensor of CELL dead (its input reads 0)")
    w.add_argument("--weak-magnet", action="append", default=[], metavar="CELL[=COUNTS]",
                   help="a turtle on CELL reads only COUNTS from empty (default 7000, a "
                        "healthy one 14000): a weak magnet or a sensor too deep")


SIM_PLATFORMS = (
    "the virtual board runs on Linux and macOS (it needs pseudo-terminals and the "
    "MicroPython unix port); on Windows, run it under WSL. Everything else of "
    "turtleboard (play, flash, console, replay, render, board) works here"
)


def require_sim_platform() -> None:
    try:
        import termios  # noqa: F401  (the supervisor's pseudo-terminals)
    except ImportError:
        raise UserError(SIM_PLATFORMS)


def wiring_of(board, args):
    """The physical wiring the options describe (None: the board file's)."""
    import json

    from turtleboard.sim.device import load_board_file
    from turtleboard.sim.world import WEAK_FIELD, Wiring, WorldError

    if not (args.wiring or args.swap_sensors or args.swap_leds or args.extra_led
            or args.swap_buttons
            or args.reverse_sensor
            or args.kill_sensor or args.weak_magnet):
        return None
    try:
        if args.wiring:
            try:
                with open(args.wiring) as f:
                    spec = json.load(f)
            except (OSError, ValueError) as e:
                raise UserError("cannot read the wiring file %s (%s)" % (args.wiring, reason(e)))
            if isinstance(spec, dict) and "mux" in spec:
                wiring = Wiring.from_board_file(board, load_board_file(args.wiring))
            else:
                wiring = Wiring(board, spec)
        else:
            wiring = Wiring(board)
        for option, swap in (("--swap-sensors", wiring.swap_sensors),
                             ("--swap-leds", wiring.swap_leds),
                             ("--swap-buttons", wiring.swap_buttons)):
            for pair in getattr(args, option[2:].replace("-", "_")):
                cells = pair.split(",")
                if len(cells) != 2:
                    raise UserError("%s takes two cells with a comma between, like 3,4; not %r"
                                    % (option, pair))
                swap(cells[0], cells[1])
        for place in args.extra_led:
            wiring.extra_led(place)
        for cell in args.reverse_sensor:
            wiring.reverse(cell)
        for cell in args.kill_sensor:
            wiring.kill(cell)
        for item in args.weak_magnet:
            cell, _, counts = item.partition("=")
            try:
                field = int(counts) if counts else WEAK_FIELD
            except ValueError:
                raise UserError("--weak-magnet takes CELL or CELL=COUNTS (like 5=6500), not %r"
                                % item)
            wiring.weaken(cell, field)
        wiring.check()
    except WorldError as e:
        raise UserError(str(e))
    return wiring


def run(args) -> int:
    require_sim_platform()
    from turtleboard.sim import device
    from turtleboard.sim.lock import lock_folder, mark_holder
    from turtleboard.sim.supervisor import Supervisor
    from turtleboard.sim.world import WIRING_FILE, World, WorldError

    sim_dir = os.path.abspath(args.dir)
    if args.noise < 0:
        raise UserError("--noise is a standard deviation in ADC counts; it cannot be negative")
    romfs_bytes = device.ROMFS_BYTES if args.romfs_bytes is None else args.romfs_bytes
    if romfs_bytes < 0 or romfs_bytes % 4096:
        raise UserError("--romfs-bytes is the ROM partition's size, a multiple of 4096 "
                        "(e.g. 262144), or 0 for none; not %d" % romfs_bytes)
    board = device.load_board_file(args.board)
    wiring = wiring_of(board, args)  # (a bad option: nothing of the folder touched)
    if args.lock_fd is not None:
        lock = args.lock_fd
        mark_holder(lock)
    else:
        lock = lock_folder(sim_dir)  # before anything in the folder is touched
    board = device.prepare(sim_dir, args.board, fresh_firmware=args.fresh_firmware,
                           blank=args.blank)
    world_dir = os.path.join(sim_dir, "world")
    quiet = args.quiet or args.interactive

    def log(text: str) -> None:
        if not quiet:
            print("sim: " + text, file=sys.stderr, flush=True)

    if wiring is None:
        try:  # soldered as the board file says
            os.unlink(os.path.join(world_dir, WIRING_FILE))
        except OSError:
            pass
    else:
        wiring.save(world_dir)
        for fault in wiring.faults():
            log("wiring: " + fault)

    try:
        # The pieces this process adds noise to, or that the person moves.
        world = World(board, world_dir, noise=args.noise, bounce=args.bounce,
                      follow=not args.interactive)
    except WorldError as e:
        raise UserError(str(e))
    sup = Supervisor(os.path.join(sim_dir, "flash"), log=log,
                     pid_file=os.path.join(sim_dir, "firmware.pid"),
                     romfs=os.path.join(sim_dir, device.ROMFS_FILE), romfs_bytes=romfs_bytes)
    sup.start()  # power on before telling anyone the port
    for name, text in (("pty", sup.path), ("pid", str(os.getpid()))):
        with open(os.path.join(sim_dir, name), "w") as f:
            f.write(text + "\n")
    print(sup.path, flush=True)
    if not args.quiet and not args.interactive:
        print("virtual board %s in %s; connect with `turtleboard play --port %s` or "
              "`mpremote connect %s resume repl`; Ctrl-C stops it"
              % (board.name, sim_dir, sup.path, sup.path), file=sys.stderr, flush=True)

    app = None

    def stop(signum, frame):
        sup.stop()
        if app is not None:
            app.exit()  # the terminal went away (SIGHUP) or we were told to stop

    old = {s: signal.signal(s, stop) for s in (signal.SIGTERM, signal.SIGHUP)}
    if args.lifeline:
        threading.Thread(target=_stop_when_stdin_closes, name="lifeline", daemon=True).start()
    try:
        if args.interactive:
            from turtleboard.sim.overheard import Overheard
            from turtleboard.sim.worldview import WorldApp

            heard = Overheard(board.geometry)  # the game, for the turtles' names
            sup.overhear = heard.feed
            thread = threading.Thread(target=sup.serve, name="supervisor", daemon=True)
            thread.start()
            app = WorldApp(world, port=sup.path, heard=heard)
            app.run()
            sup.stop()
            thread.join(3)
        else:
            old[signal.SIGINT] = signal.signal(signal.SIGINT, stop)
            sup.serve()
    finally:
        sup.close()
        world.close()
        for s, h in old.items():
            signal.signal(s, h)
        for name in ("pty", "pid", "firmware.pid"):
            try:
                os.unlink(os.path.join(sim_dir, name))
            except OSError:
                pass
        os.close(lock)  # last: the files above were ours to remove
    return 0


def _stop_when_stdin_closes() -> None:
    try:  # the raw descriptor: a buffered reader's lock would hang interpreter shutdown
        while os.read(0, 4096):
            pass
    except OSError:
        pass
    os.kill(os.getpid(), signal.SIGTERM)
