# The computer's seats and hints. A seat is a person, a bot level the board
# plays itself, or "host" (a connected PC plays it with `enter`, at any
# level). On a computer seat's turn the bot thinks one slice a control
# cycle, a few nodes (turtles/slices.py), so the board keeps sensing and
# lighting; the seat's turn light blinks meanwhile. Then its action is
# committed like a move entered by the host: the board lights what must
# change and the person makes it; the sensors confirm it. A hint is the
# `good` level's choice for a person to move, lit as a preview until the
# board or the game changes; asked while a question is open (every Mahé
# decision is one), it becomes the question's current choice, so OK takes it,
# unless the person has pressed NEXT on that question since asking: what
# they chose stays chosen.

# turtles.bots is imported by the first search, not here: a game with no
# computer seat and no hint never holds it in the heap (~1 KB on a Pico).

PERSON = "person"
HOST = "host"
HINT_LEVEL = "good"
# The levels the board plays itself: turtles.bots.LEVELS up to its
# DEVICE_LEVEL, the one it can think in time (tests/firmware check they agree).
DEVICE_LEVELS = ("random", "easy", "good")
BLINK_MS = 400  # the thinking light: the seat's turn light this long on, then off


def check_seats(seats, players, name):
    # -> the seats as given (None: all people); raises ValueError saying why.
    if seats is None:
        return None
    if not isinstance(seats, list) or len(seats) != players:
        raise ValueError("seats must be a list of %d entries, one a player, not %r" % (players, seats))
    for s in seats:
        if s != PERSON and s != HOST and s not in DEVICE_LEVELS:
            raise ValueError(
                "a seat is %s, %s or a level the board plays (%s), not %r; a connected host "
                "plays stronger levels on a \"host\" seat" % (PERSON, HOST, ", ".join(DEVICE_LEVELS), s)
            )
    if name == "race" and [s for s in seats if s != PERSON]:
        raise ValueError("the board plays the Turtle Race with real cards in hands, so the "
                         "computer holds no hand: every seat is a person")
    return list(seats)


def no_hint(game):
    # Why no hint can be given now, or None.
    if game.is_over():
        return "the game is over; start a new one with `new`"
    if game.name == "race" and not game.dealt:
        return ("the board plays the Turtle Race with real cards: it does not know the hand "
                "a hint would play from")
    if game.to_move() < 0:
        return "chance decides now (a die or a card), not a player"
    return None


class Computer:
    def __init__(self, rng):
        self.rng = rng
        self.seats = None
        self.people = True  # every seat a person
        self.think = None   # the search under way
        self.key_game = None  # the game it thinks about,
        self.key_n = -1       # after this many actions,
        self.key_changes = -1  # after this many changes of the game (the controller's count)
        self.lit = True       # the thinking light, on or off
        self.blink_at = 0
        self.hint = None    # (n, action) of the hint lit now, for the game thought about
        self.hint_by = None
        self.hint_re = None
        self.hint_for = None
        self.hint_pid = None  # the question open when the hint was asked (None: none),
        self.hint_moves = 0   # and its NEXT presses then
        self.paused = False  # after a takeback the board's seats wait for OK

    def reset(self, seats):
        self.seats = seats
        self.people = seats is None or seats.count(PERSON) == len(seats)  # no seat the computer plays
        self.paused = False
        self.think = None
        self.lit = True
        self.key_game = None
        self.hint = None

    def seat(self, player):
        if self.seats is None or player < 0:
            return PERSON
        return self.seats[player]

    def playing(self, game):
        # Is it a computer seat's turn (the board's or the host's)?
        return game is not None and self.seat(game.to_move()) != PERSON

    def ask_hint(self, by, who, re=None, prompt=None):
        # The hint is thought through by tick(), then lit and sent; `re`:
        # the host's `hint` command, which an error saying why not answers;
        # `who`: the player to move, whom it is for; `prompt`: the question
        # open now.
        self.hint_by = by
        self.hint_re = re
        self.hint_for = who
        self.hint = None
        self.hint_pid = prompt.id if prompt is not None else None
        self.hint_moves = prompt.moves if prompt is not None else 0

    def tick(self, ctl):
        # One slice of thought, when a hint was asked for, or when a bot is
        # to move and the board matches the game. A hint is thought about
        # whatever the board shows or asks meanwhile (it is lit once the
        # board matches); one that cannot be given says why (an `error`).
        if self.people and self.hint_by is None:
            return  # nothing to think about (no search is under way then)
        game = ctl.session.game
        if game is None:
            return
        who = game.to_move()
        level = self.seat(who)
        if self.hint_by is not None:
            why = no_hint(game)
            if why is None and level != PERSON:
                why = "the computer is to move, not a person"
            if why is None and who != self.hint_for:  # (its asker may not see the next one's)
                why = "the turn passed to player %d" % (who + 1)
            if why is not None:  # the game moved on since it was asked
                self.hint_by = None
                self.stop(ctl)
                ctl.link.error("refused", "no hint: " + why, self.hint_re)
                return
            level = HINT_LEVEL
        elif ctl.must_match is not None or ctl.prompt is not None:
            return  # the board plays once its last move is made and no question is open
        elif who < 0 or level == HOST or level == PERSON or self.paused:
            self.stop(ctl)
            return
        n = len(game.history)  # no tuple: a quiet cycle allocates nothing
        if self.think is None or self.key_game is not game or self.key_n != n \
                or self.key_changes != ctl.changes:
            from turtles.bots import thinker

            self.think = thinker(game, level, self.rng)
            self.key_game = game
            self.key_n = n
            self.key_changes = ctl.changes
            self.blink_at = ctl.hal.ticks_ms()
            return  # making the search was this cycle's slice
        if self.hint_by is None:
            self.blink(ctl)
        if not self.think.step():
            return
        action = self.think.action
        self.stop(ctl)
        if self.hint_by is not None:
            by = self.hint_by
            self.hint_by = None
            ctl.link.send("hint", {"n": len(game.history), "player": who, "level": HINT_LEVEL,
                                   "text": game.action_text(action), "by": by})
            p = ctl.prompt
            if p is None:
                self.hint = (n, action)  # lit until the board or the game changes
            elif action in p.actions and p.moves == (self.hint_moves if p.id == self.hint_pid else 0):
                p.current = p.actions.index(action)  # the question's choice, previewed
                ctl.link.send("prompt", p.payload(game))
            ctl.dirty = True
            return
        ctl.commit(action, "computer")

    def stop(self, ctl):
        # No search under way: the thinking light stays on.
        self.think = None
        if not self.lit:
            self.lit = True
            ctl.dirty = True

    def blink(self, ctl):
        # The thinking light goes on or off every BLINK_MS (the scene is
        # made again: light()).
        now = ctl.hal.ticks_ms()
        if ctl.hal.ticks_diff(now, self.blink_at) >= BLINK_MS:
            self.blink_at = now
            self.lit = not self.lit
            ctl.dirty = True

    def light(self, scene):
        # On a computer seat's turn: its turn light is off while it blinks off.
        if not self.lit:
            scene.seats = []

    def hint_action(self, game):
        # The hint to light now, or None.
        if self.hint is None or self.key_game is not game or self.hint[0] != len(game.history):
            self.hint = None
            return None
        return self.hint[1]

    def status(self, game):
        # What the status says on a computer seat's turn.
        who = game.to_move()
        level = self.seat(who)
        if level == HOST:
            return "player %d: the computer on the host is thinking" % (who + 1)
        if self.paused:
            return "player %d: the computer waits after the takeback; OK lets it play" % (who + 1)
        return "player %d: the computer (%s) is thinking" % (who + 1, level)

