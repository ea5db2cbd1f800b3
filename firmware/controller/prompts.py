# A prompt: a choice the sensors cannot make. NEXT cycles through the
# choices (the LEDs preview the current one), OK confirms; the host may
# answer instead. Kinds:
#   move    several legal moves give the board that is sensed
#   decide  a decision the board cannot show (roll or stop, a team, a card)
#   chance  a physical die or card: which value came up
#   hidden  OK pressed on a quiet board: a move the sensors cannot see
#           (the last choice, None, cancels)
# A `move` prompt may also offer TAKEBACK: the board only lost a turtle and
# that is also the position before the last move.
# The controller (control.py) holds the open prompt; the functions below
# open, close and answer it, and take the buttons' presses.

from turtles import GameError, IllegalAction
from turtles.game import TERMINAL

from .computer import no_hint

TAKEBACK = "takeback"  # never an engine action (those are ints or tuples)


class Prompt:
    def __init__(self, pid, kind, text, actions, image=None):
        self.id = pid
        self.kind = kind
        self.text = text
        self.actions = actions  # None stands for "cancel"
        self.current = 0
        self.moves = 0          # NEXT presses: a choice the person made stays (a late hint does not move it)
        self.image = image      # the sensed board a `move` prompt is about

    def next(self):
        self.current = (self.current + 1) % len(self.actions)
        self.moves += 1

    def chosen(self):
        return self.actions[self.current]

    def payload(self, game):
        return {
            "id": self.id,
            "kind": self.kind,
            "text": self.text,
            "choices": [choice_text(game, a) for a in self.actions],
            "current": self.current,
        }


def choice_text(game, action):
    if action is None:
        return "cancel"
    if action == TAKEBACK:
        return TAKEBACK
    return game.action_text(action)


def open_prompt(ctl, kind, text, actions, image=None, current=0):
    ctl.prompt_seq = (ctl.prompt_seq + 1) & 0xFFFF
    ctl.prompt = Prompt(ctl.prompt_seq, kind, text, actions, image)
    ctl.prompt.current = current
    ctl.link.send("prompt", ctl.prompt.payload(ctl.session.game))


def close_prompt(ctl, choice):
    if ctl.prompt is not None:
        ctl.link.send("closed", {"id": ctl.prompt.id, "choice": choice})
        ctl.prompt = None
        ctl.dirty = True


def answer(ctl, index, by):
    # The open prompt's choice `index`, by the buttons or the host.
    # False if an action could not be committed (its error frame is sent).
    p = ctl.prompt
    action = p.actions[index]
    close_prompt(ctl, index)
    if action is None:
        return True
    if action == TAKEBACK:
        ctl.takeback(by)
        return True
    return ctl.commit(action, by, on_board=p.kind == "move")


def press(ctl, name):
    # A button pressed: UNDO takes back the last action (as the host's
    # `undo`); NEXT and OK answer the open prompt; with none, NEXT asks for
    # a hint, OK lets the computer play on after a takeback or confirms a
    # board that matches while moves stay hidden.
    p = ctl.prompt
    game = ctl.session.game
    if name == "undo":
        undo(ctl, game)
        return
    if p is not None:
        if name == "next":
            p.next()
            ctl.link.send("prompt", p.payload(game))
            ctl.dirty = True
        elif name == "ok":
            answer(ctl, p.current, "buttons")
        return
    computer = ctl.computer
    if name == "next":
        hint(ctl, game)
        return
    if name == "ok" and computer.paused and computer.playing(game):
        computer.paused = False  # the computer plays on
        ctl.dirty = True
        return
    if name == "ok":
        confirm(ctl, game)


def confirm(ctl, game):
    # OK with no question open, the computer not waiting: asks which move
    # was made where the board matches and a move cannot be seen; or says
    # why not. Pressed while a turtle settles, it is held until the board is
    # still (Controller.ok_waits).
    if game is None:
        ctl.link.error("no-game", "OK: there is no game; start one from the host")
        return
    pos = ctl.position()
    if not pos.player:
        ctl.link.error("refused", "OK: nothing to confirm; " + (
            "the game is over" if game.to_move() == TERMINAL else "no player is to move"))
        return
    if not ctl.steady:
        if ctl.ok_held is None:
            ctl.ok_held = (ctl.hal.ticks_ms(), ctl.changes)
        return
    if ctl.board_image() != pos.image:
        ctl.link.error("refused", "OK: nothing to confirm while the board differs from the game; "
                       "make a move, or put the pieces where the lights show")
        return
    pos.finish()
    if not pos.unseen:
        ctl.link.error("refused", "OK: nothing to confirm; the board shows the game: move a turtle "
                       "(NEXT gives a hint)")
        return
    open_prompt(ctl, "hidden", "which move was made? the last choice cancels",
                pos.unseen + [None])
    ctl.dirty = True


def hint(ctl, game):
    # NEXT with no question open: a hint (lit once the board matches), or
    # why not, said (an `error` frame, as the host's `hint` gets).
    if game is None:
        ctl.link.error("no-game", "NEXT: there is no game to give a hint in; start one from the host")
        return
    why = no_hint(game)
    if why is None and ctl.computer.playing(game):
        why = "the computer is to move, not a person"
    if why is not None:
        ctl.link.error("refused", "no hint: " + why)
        return
    ctl.computer.ask_hint("buttons", game.to_move())


def undo(ctl, game):
    # UNDO: the last action taken back (the pieces are then lit to go
    # back), or why not: said, the game goes on.
    if game is None:
        ctl.link.error("no-game", "UNDO: there is no game to take back from; start one from the host")
        return
    try:
        ctl.takeback("buttons")
    except GameError as e:  # nothing to take back, or the log could not be changed
        ctl.link.error("illegal" if isinstance(e, IllegalAction) else "log", str(e))
