# Boot: load the board file, build the HAL, calibrate (reading the game log
# while calibration waits between samples), restore the game from the log,
# run the control loop. A bad board file does not stop the device:
# it reports the problems, shows an LED error pattern and keeps answering on
# the serial port, so the host can flash a fixed board.json.
#
# What only boot uses is dropped (forget()): the board file's checks and
# the calibration once the sensors are calibrated, before the restore (the
# heap's highest point), the log's reader once the game is restored, this
# module once the game runs. Nothing after refers to them, so their code
# leaves the heap (~15 KB from files; on ROMFS their functions, texts and
# native code: ~3 KB for the log's reader).

from turtles import game_class

from .board import BoardError, load_board
from .commands import FW_VERSION, PROTO_VERSION, flash_trouble, send_hello
from .control import Controller
from .gamelog import GameLog, log_area
from .link import Link
from .matcher import Position
from .sensing import Sensing

BOARD_FILE = "board.json"
LOG_FILE = "game.log"
ERROR_RED = (40, 0, 0)
CHECKED = ("controller.boardcheck", "controller.calibration", "controller.logfiles")  # the board read, the sensors calibrated, the log's files found
READ_BACK = ("controller.logscan", "controller.logcrc")  # the game log read back (gamelog imports it again if asked)


def main(platform_hal, period_ms=5):
    start(platform_hal).run(period_ms)


def start(platform_hal):
    # Boot up to `hello`: -> the controller, to run (main.py runs it once
    # this module is forgotten; a bad board file never returns).
    try:
        f = open(BOARD_FILE)
        try:
            text = f.read()
        finally:
            f.close()
    except OSError as e:
        return broken(platform_hal, None, [("$", "no %s on the device (%s); flash a board file" % (BOARD_FILE, e))])
    except UnicodeError:
        return broken(platform_hal, None, [("$", "%s is not text (UTF-8); flash a board file" % BOARD_FILE)])
    try:
        board = load_board(text)
    except BoardError as e:
        return broken(platform_hal, text, e.problems)
    except Exception as e:  # a file the checks let through but the engine refuses
        return broken(platform_hal, text, [("$", "cannot be used (%r)" % (e,))])
    del text  # main() runs the game: its locals stay (3.5 KB for the Tortuga board's file)
    board.keep_small()
    hal = platform_hal(board)
    sensing = Sensing(hal, board)
    log = GameLog(LOG_FILE, log_area(LOG_FILE), hal.wake_files)  # a raw flash area where the build has one
    trouble = None
    try:
        sensing.calibrate(meanwhile=log.read_ahead)  # the log read while it waits between samples
    except OSError as e:  # the calibration could not be saved: run on
        trouble = e
    forget(CHECKED)  # before the restore: its peak is the heap's highest
    seed = hal.ticks_ms()
    for r in sensing.raw:  # the low bits of the sensors' noise
        seed = (seed * 31 + r) & 0xFFFFFFFF
    ctl = Controller(hal, board, sensing, log, seed)
    ctl.display.level = board.brightness
    if not ctl.restore():  # what the log lost is kept for the host too (Session.trouble)
        warm_up(ctl)
    forget(READ_BACK)
    send_hello(ctl)  # with the restored game, if any (and what the log lost)
    if trouble is not None:
        ctl.link.error("sensor", "the calibration could not be saved (%s)" % (flash_trouble(trouble),))
    if getattr(hal, "note", None):  # the rp2 HAL's register read failed its boot check
        ctl.link.error("sensor", "the sensors are read the slow way, through ADC.read_u16 (%s); "
                       "the game goes on, each control cycle ~2 ms longer" % (hal.note,))
    ctl.recalibrated(sensing.suspect)  # said, in `hello` too, and lit
    if sensing.unreadable:
        ctl.link.error("sensor", "%s could not be read (%s); the board calibrated afresh" % (
            sensing.path, sensing.unreadable))
    hal.rest_files()  # boot's files are read: the filesystem rests from the first move (hal/rp2.py)
    forget(("controller.boot",))
    return ctl


def forget(names):
    # Drop modules from the import system: once nothing else refers to
    # them, the collector frees them. Only on MicroPython and CircuitPython
    # (a device): on a PC nothing needs the room, and tests hold their own
    # references.
    import sys

    if sys.implementation.name not in ("micropython", "circuitpython"):
        return
    for name in names:
        if sys.modules.pop(name, None) is not None:
            dot = name.rfind(".")
            package = sys.modules.get(name[:dot])
            if package is not None and hasattr(package, name[dot + 1:]):
                delattr(package, name[dot + 1:])


class NoBoard:
    # Stands in for the board when its file is bad, for the HAL: no
    # sensors, no buttons, the LEDs the file names (their section is good).
    def __init__(self, led_pin, led_count):
        self.led_pin = led_pin
        self.led_count = led_count
        self.buttons = ()
        self.mux = {"select": (), "adc": ()}

    def channels(self):
        return 0


def led_spec(text, problems):
    # (pin, count) from a bad board file when its LED section is good.
    for path, _ in problems:
        if path.startswith("$.leds") or path == "$":
            return None
    try:
        import json

        leds = json.loads(text)["leds"]
        return leds["pin"], leds["count"]
    except Exception:
        return None


def warm_up(ctl):
    # No game came back: import and build now what the first `new` would
    # (each game's engine and flow, a game and its first candidates), so
    # that it is as quick as the next.
    for name in ctl.board.games:
        try:
            cls = game_class(name)
            game, cell_map = ctl.session.make_game(name, cls.min_players, {})
            Position(game).fill()
        except Exception:  # a board the games refuse: `new` says why
            pass


def broken(platform_hal, text, problems):
    # Serve the port with the board's problems until the host fixes it.
    spec = led_spec(text, problems) if text is not None else None
    if spec is None:
        hal = bare_serial()
    else:
        hal = platform_hal(NoBoard(spec[0], spec[1]))
        hal.write_leds([ERROR_RED if i % 2 == 0 else (0, 0, 0) for i in range(spec[1])])
    link = Link(hal)  # (its frames never too long for a line: a key of any length is named)

    def report():
        for path, msg in problems[:8]:
            link.error("board", "board.json %s: %s; flash a fixed board file" % (path, msg))

    hello = {"fw": FW_VERSION, "proto": PROTO_VERSION, "board": None, "board_version": None,
             "game": None, "n": 0, "hash": None}
    link.send("hello", hello)
    report()
    while True:
        for seq, kind, _ in link.poll():
            if seq is None:  # not a frame, or a damaged one
                continue
            if kind == "hello":
                link.send("hello", hello)
            report()
        hal.sleep_ms(20)


def bare_serial():
    # The serial port alone, straight from stdin/stdout, for a device with
    # no usable board file.
    import select
    import sys
    import time

    class Bare:
        def __init__(self):
            self.inp = getattr(sys.stdin, "buffer", sys.stdin)
            self.out = getattr(sys.stdout, "buffer", sys.stdout)
            self.poll = select.poll()
            self.poll.register(sys.stdin, select.POLLIN)

        def serial_read(self):
            data = b""
            while len(data) < 256 and self.poll.poll(0):
                b = self.inp.read(1)
                if not b:
                    break
                data += b if isinstance(b, bytes) else b.encode()
            return data

        def serial_write(self, data):
            self.out.write(data)
            if hasattr(self.out, "flush"):
                self.out.flush()

        def sleep_ms(self, ms):
            time.sleep(ms / 1000)  # (CircuitPython has no time.sleep_ms)

    return Bare()
