# Host commands (docs/protocol.md, "Host -> device"). Each checks its payload
# and answers `ok`, or an `error` frame saying what was wrong and what to do;
# a bad command never changes the game.

from turtles import BadNotation, BadSetup, GameError, IllegalAction
from turtles.game import CHANCE

from . import flows
from .computer import no_hint
from .frames import fit_text
from .gamelog import REPORT_MAX
from .prompts import answer, close_prompt

FW_VERSION = "0.1.0"
PROTO_VERSION = 1
RULE_SETS = ("mahe", "race", "tortuga")
GAME_COMMANDS = ("new", "answer", "enter", "undo")  # refused while a self-test runs
DICE_MODES = ("electronic", "physical")
MAX_TEXT = 80  # characters of an `enter` text (the longest notation is far shorter)


class Answered(Exception):
    # The command failed and its `error` frame is already sent.
    pass


class CommandError(Exception):
    def __init__(self, code, msg):
        super().__init__(msg)
        self.code = code


def run_command(ctl, seq, kind, payload):
    if seq is None:  # a bad line: kind is the error code, payload the message
        ctl.link.error(kind, payload)
        return
    handler = COMMANDS.get(kind)
    if handler is None:
        ctl.link.error(
            "unknown-command",
            "there is no command %r; the commands are: %s" % (kind, ", ".join(sorted(COMMANDS))),
            seq,
        )
        return
    ctl.command_seq = seq  # (a `hint` answered later says which command it answers)
    try:
        if ctl.selftest is not None and kind in GAME_COMMANDS:
            raise CommandError("selftest", "a self-test of the board is running: the game stands "
                               "still until it ends (selftest with on: false)")
        handler(ctl, payload)
    except CommandError as e:
        ctl.link.error(e.code, str(e), seq)
        return
    except Answered:
        return
    except GameError as e:
        ctl.link.error(game_error_code(e), str(e), seq)
        return
    ctl.link.send("ok", {"re": seq})  # after the command's own answer frames


def game_error_code(e):
    if isinstance(e, IllegalAction):
        return "illegal"
    if isinstance(e, BadNotation):
        return "bad-notation"
    if isinstance(e, BadSetup):
        return "bad-setup"
    return "refused"


def log_report(ctl):
    # What the game log lost at a boot, until a host acknowledges it (`ack`):
    # at most REPORT_MAX bytes as a frame writes it (300 "é" are 1,800), so
    # that `hello` always fits a line with the longest board name.
    report = getattr(ctl.session.log, "report", None)
    return fit_text(report, REPORT_MAX) if report else report


def send_hello(ctl):
    game = ctl.session.game
    ctl.link.send("hello", {
        "fw": FW_VERSION,
        "proto": PROTO_VERSION,
        "board": ctl.board.name,
        "board_version": ctl.board.version,
        "game": ctl.session.name if game is not None else None,
        "n": len(game.history) if game is not None else 0,
        "hash": ctl.session.hash() if game is not None else None,
        "log": log_report(ctl),
        "calibration": calibration_note(ctl),
    })


def calibration_note(ctl):
    # The cells the last calibration check measured again, and why (in
    # `hello` and `state` until the next check: Controller.recalibrated).
    return ctl.recal[0] if ctl.recal is not None else None


def send_state(ctl):
    game = ctl.session.game
    link = ctl.link
    if game is None:
        link.send("state", {"game": None, "players": 0, "options": {}, "dice": None,
                            "n": 0, "hash": None, "over": False, "result": None, "log": log_report(ctl),
                            "calibration": calibration_note(ctl)})
        link.send("synced", {"n": 0, "hash": None})
    else:
        hash_text = ctl.session.hash()
        link.send("state", {
            "game": ctl.session.name,
            "players": game.players,
            "options": game.options,
            "dice": ctl.session.dice,
            "seats": ctl.computer.seats,
            "n": len(game.history),
            "hash": hash_text,
            "over": game.is_over(),
            "result": game.result(),
            "log": log_report(ctl),
            "calibration": calibration_note(ctl),
        })
        link.send_log(ctl.session.action_texts())
        link.send("synced", {"n": len(game.history), "hash": hash_text})
    ctl.resend()  # what a host that just (re)connected has missed, with a game or without


def need_game(ctl):
    if ctl.session.game is None:
        raise CommandError("no-game", "no game is running; start one with `new`")


def whole(payload, key, low, high):
    v = payload.get(key)
    if not isinstance(v, int) or isinstance(v, bool) or v < low or v > high:
        raise CommandError("bad-payload", "%s must be a whole number %d..%d, not %r" % (key, low, high, v))
    return v


def cmd_hello(ctl, payload):
    send_hello(ctl)


def cmd_ping(ctl, payload):
    pass


def cmd_sync(ctl, payload):
    send_state(ctl)


def cmd_new(ctl, payload):
    name = payload.get("game")
    if name not in RULE_SETS:
        raise CommandError("bad-payload", "game must be one of %s, not %r" % (", ".join(RULE_SETS), name))
    players = whole(payload, "players", 1, 8)
    options = payload.get("options")
    if options is None:
        options = {}
    if not isinstance(options, dict):
        raise CommandError("bad-payload", 'options must be a JSON object like {"tattoo": 1}')
    dice = payload.get("dice")
    if dice is None:
        dice = "electronic"
    if dice not in DICE_MODES:
        raise CommandError("bad-payload", "dice must be electronic or physical, not %r" % (dice,))
    seed = payload.get("seed")
    if seed is not None:
        seed = whole(payload, "seed", 0, 0x3FFFFFFF)
    seats = payload.get("seats")
    try:
        found = ctl.sensing.recheck(ctl.hal.ticks_ms())  # the cells' empty levels, before the game asks for turtles
    except OSError:  # the corrected calibration could not be saved: corrected in RAM
        found = []
    try:
        ctl.new(name, players, options, dice, seed, seats)
    except OSError as e:
        raise CommandError("log", "could not start the game log (%s); no new game" % (flash_trouble(e),))
    ctl.recalibrated(found)
    send_state(ctl)


def flash_trouble(e):
    # What a failed flash write means: errno 30 (EROFS) on CircuitPython,
    # whose drive is the computer's when `ok` was held at power-on (boot.py).
    if e.args and e.args[0] == 30:
        return "the flash is read-only: ok was held at power-on, the drive is the computer's; " \
               "power the board off and on to play"
    return "%s; free flash space" % (e,)


def cmd_answer(ctl, payload):
    need_game(ctl)
    p = ctl.prompt
    if p is None:
        raise CommandError("no-prompt", "no prompt is open; answer only after a `prompt` frame")
    if payload.get("id") != p.id:
        raise CommandError(
            "no-prompt", "prompt %r is not open (prompt %d is); answer that one" % (payload.get("id"), p.id)
        )
    if not answer(ctl, whole(payload, "choice", 0, len(p.actions) - 1), "host"):
        raise Answered()


def cmd_enter(ctl, payload):
    need_game(ctl)
    text = payload.get("text")
    if not isinstance(text, str) or not text.strip():
        raise CommandError("bad-payload", "text must be an action in notation, like a die face")
    if len(text) > MAX_TEXT or len(text.encode()) != len(text):
        # Checked before anything indexes it: on MicroPython each new
        # character taken out of a string is interned for good.
        raise CommandError("bad-notation", "an action in notation is at most %d plain ASCII "
                           "characters, like d3-d4 or roll; this text is not" % MAX_TEXT)
    game = ctl.session.game
    if game.is_over():
        raise CommandError("over", "the game is over; start a new one with `new`")
    action = game.parse_action(text.strip())
    if action not in game.legal_actions():
        raise IllegalAction("%s is illegal: %s" % (text.strip(), game.explain_illegal(action)))
    p = ctl.prompt
    if p is not None and action in p.actions:
        if not answer(ctl, p.actions.index(action), "host"):
            raise Answered()
        return
    close_prompt(ctl, None)
    chance = game.to_move() == CHANCE
    if not ctl.commit(action, "host"):
        raise Answered()
    if chance:
        ctl.display.shown_dice = flows.dice_value(game, action)


def cmd_hint(ctl, payload):
    # A `hint` frame follows when the search is done (a control cycle a slice).
    need_game(ctl)
    why = no_hint(ctl.session.game)
    if why is not None:
        raise CommandError("over" if ctl.session.game.is_over() else "refused", "no hint: " + why)
    if ctl.computer.playing(ctl.session.game):
        raise CommandError("illegal", "no hint: the computer is to move, not a person")
    ctl.computer.ask_hint("host", ctl.session.game.to_move(), ctl.command_seq, ctl.prompt)


def cmd_undo(ctl, payload):
    need_game(ctl)
    ctl.takeback("host")


def cmd_ack(ctl, payload):
    # The host has shown the game log's damage report: stop repeating it.
    # Only the report the host was sent: a newer one stays.
    report = log_report(ctl)
    if report is not None and payload.get("log") != report:
        raise CommandError("bad-payload", "log must be the damage report the board sent last (in "
                           "hello or state); sync and acknowledge that one")
    ctl.session.log.forget_report()


def cmd_bright(ctl, payload):
    ctl.display.level = whole(payload, "level", 0, 255)


def cmd_diag(ctl, payload):
    on = payload.get("on")
    if on is not True and on is not False:
        raise CommandError("bad-payload", "on must be true or false, not %r" % (on,))
    ctl.diag = on


def cmd_ledtest(ctl, payload):
    ctl.display.ledtest_at = ctl.hal.ticks_ms()


def cmd_selftest(ctl, payload):
    from . import selftest  # loaded only when a board is tested

    problem = selftest.command(ctl, payload)
    if problem is not None:
        raise CommandError("bad-payload", problem)


COMMANDS = {
    "hello": cmd_hello,
    "ping": cmd_ping,
    "sync": cmd_sync,
    "new": cmd_new,
    "answer": cmd_answer,
    "enter": cmd_enter,
    "undo": cmd_undo,
    "hint": cmd_hint,
    "ack": cmd_ack,
    "bright": cmd_bright,
    "diag": cmd_diag,
    "ledtest": cmd_ledtest,
    "selftest": cmd_selftest,
}
