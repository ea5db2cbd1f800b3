"""`turtleboard sim`: start a virtual board on a pseudo-terminal.

The real firmware runs under the MicroPython unix port with the sim HAL; the
host tool and mpremote open the printed pty like a Pico's serial port. See
docs/virtual-device.md."""

from __future__ import annotations

import os
import signal
import sys
import threading

from turtleboard.errors import UserError
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


def run(args) -> int:
    from turtleboard.sim import device
    from turtleboard.sim.lock import lock_folder
    from turtleboard.sim.supervisor import Supervisor
    from turtleboard.sim.world import World, WorldError

    sim_dir = os.path.abspath(args.dir)
    if args.noise < 0:
        raise UserError("--noise is a standard deviation in ADC counts; it cannot be negative")
    romfs_bytes = device.ROMFS_BYTES if args.romfs_bytes is None else args.romfs_bytes
    if romfs_bytes < 0 or romfs_bytes % 4096:
        raise UserError("--romfs-bytes is the ROM partition's size, a multiple of 4096 "
                        "(e.g. 262144), or 0 for none; not %d" % romfs_bytes)
    lock = lock_folder(sim_dir)  # before anything in the folder is touched
    board = device.prepare(sim_dir, args.board, fresh_firmware=args.fresh_firmware,
                           blank=args.blank)
    world_dir = os.path.join(sim_dir, "world")
    quiet = args.quiet or args.interactive

    def log(text: str) -> None:
        if not quiet:
            print("sim: " + text, file=sys.stderr, flush=True)

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
    try:
        if args.interactive:
            from turtleboard.sim.worldview import WorldApp

            thread = threading.Thread(target=sup.serve, name="supervisor", daemon=True)
            thread.start()
            app = WorldApp(world, port=sup.path)
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
