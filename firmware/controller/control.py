# The controller: one cycle = scan the sensors, read the serial port and the
# buttons, match the board against the game, light the LEDs. The board file,
# the HAL, the sensing and the game log are injected. It owns
#   - the session (session.py): the game and its log, what has been played;
#   - the display (display.py): the scene, the LEDs, the status, the frames
#     of both to the host;
# and keeps what the sensors mean now: the stable board, the position's
# candidates, the open prompt, what waits for this cycle. What the board
# means and what to do about it is decide.py; the prompts and the buttons,
# prompts.py; both commit and take back through here.

from turtles import GameError, IllegalAction
from turtles.game import CHANCE
from turtles.rng import Rng

from . import flows, scenes
from .buttons import Buttons
from .chores import PREPARE_MS, chores, collect
from .commands import run_command
from .computer import Computer
from .decide import GAME, RESTORE, TAKEN, decide
from .display import Display
from .link import Link, action_payload
from .matcher import Position
from .prompts import close_prompt, confirm, press
from .session import Session

SENSE_EVERY_MS = 250   # `sense` frames while diagnostics are on
BUILD_MS = 3           # a cycle with nothing else to do adds candidates this long
PIECE_MS = 5           # a settling change's cycle of legal actions or candidates, at most (emulated Pico)
READY_MS = 9           # one that readies a lifted turtle's move (5.7-8.6 ms on the emulated Pico)
HOLD_WINDOWS = 2       # while a change settles, other work waits this many stability windows at most
OK_HOLD_MS = 1000      # OK pressed while a turtle settles waits this long for a still board


class Controller:
    def __init__(self, hal, board, sensing, log, seed=1):
        self.hal = hal
        self.board = board
        self.sensing = sensing
        sensing.idle_checks = True  # its slow checks: a cycle's only work (step())
        self.link = Link(hal)
        self.link.set_cells(board.cells)
        self.buttons = Buttons(hal, [b[0] for b in board.buttons])
        self.session = Session(board, log, self.link, seed)
        self.display = Display(hal, board, self.link, self.session)
        self.computer = Computer(Rng(seed + 1))
        self.last_by = None      # who made the last action (`action` frame's by)
        self.last_bust = False   # the last action was a bust (Mahé: the dice over 7)
        self.diag = False
        self.diag_at = 0
        self.pos = None          # candidates of the current position (position())
        self.changes = 0         # how often the game changed (changed())
        self.committed = False   # this cycle's thinking committed or took back an action
        self.chain_checked = None  # the board last searched for a whole chain
        self.prev_image = None   # the board before the last action
        self.last_on_board = False  # the last action was made on the board
        self.look_first = False  # the next cycle only works out the new position's actions (step())
        self.next_actions = None  # those actions, for position()
        self.next_image = None   # the new position's board, where the last commit knew it
        # The game moved without the board: None, GAME (a board showing one
        # legal move from there may still commit it) or RESTORE (after a power
        # cut: nothing commits until the board matches).
        self.must_match = None
        self.prompt = None
        # this boot's prompt ids count up (0..65535, round) from a number
        # drawn from its seed: an answer to a question of an earlier boot
        # (a page that still shows it) finds no question of that id in this one
        self.prompt_seq = seed & 0xFFFF
        self.command_seq = None  # the host command being run (commands.py)
        self.seen_version = -1
        self.steady = True       # no cell had a change not yet steady (sensing.pending)
        self.hold_from = None    # when the work began to wait for a change to settle (step())
        self.stable_since = 0
        self.sensed = None       # the stable board, per game cell (bytes)
        self.dirty = True        # something changed: think again
        self.wake_ms = None      # think again when the board has been still this long
        self.waited = 0          # cycles the host's state frame waited (step())
        self.trouble_text = None
        self.trouble_at = 0
        self.selftest = None     # a running self-test (controller/selftest.py)
        self.chores_done = -1    # the change after which chores() last finished
        self.collected = 0       # self.changes at the last collection (chores())
        self.collect_first = False  # a commit's garbage to collect in the next cycle (chores.collect)
        self.prepared = -1       # chores_done once the log area had its sectors erased ahead (chores())
        self.rested = -1         # chores_done once chores and snapshots had nothing left (step())
        self.recal = None        # the calibration check's finding (recalibrated())
        self.ok_held = None      # OK pressed while the board settled: (when, self.changes) (prompts.confirm)

    # ---- the game -----------------------------------------------------------

    def new(self, name, players, options, dice, seed=None, seats=None):
        if seed is None:  # the board picks the game's dice
            seed = self.session.new_seed(self.hal.ticks_ms())
        self.changed()  # the last game's candidates let go before the next game is made beside it
        self.session.start(name, players, options, dice, seed, seats)
        self.installed(GAME)

    def recalibrated(self, found):
        # Cells whose saved empty level the calibration check (boot; a new
        # game: sensing.recheck) found wrong and measured again, as
        # [(cell, saved level, reading)]: an `error` frame says which,
        # `hello` goes on saying it (`calibration`) until the next check,
        # and their LEDs are lit until the game's next action.
        if not found:
            self.recal = None
            return
        text = "%s: a saved empty level no turtle explains, so it was calibrated afresh; look at %s " \
            "(its sensor, a magnet left under it)" % (
                "; ".join(["%s: saved empty level %d, it reads %d now" % c for c in found]),
                ", ".join([c[0] for c in found]))
        self.link.error("sensor", text)
        cells = self.board.cells
        leds = [(self.board.led_of[cells.index(c[0])], scenes.RECALIBRATED) for c in found]
        game = self.session.game
        self.recal = (text, leds, game, len(game.history) if game is not None else 0)
        self.dirty = True

    def restore(self):
        # At boot: the game in the log, if there is one (True then).
        if not self.session.restore():
            return False
        self.installed(RESTORE)
        return True

    def installed(self, must_match):
        # The session holds a new game: nothing of the last one counts.
        self.computer.reset(self.session.seats)
        self.prev_image = None
        self.last_on_board = False
        self.last_bust = False
        self.look_first = False
        self.must_match = must_match
        self.display.shown_dice = 0
        self.sensed = None
        close_prompt(self, None)
        self.changed()

    def changed(self, image=None):
        # The game changed: its candidates are worked out again when next
        # thought about (position()), then a few per cycle from the next
        # quiet one (build()), or at once if the board is read against them
        # first. `image`: the new position's board, if known.
        self.pos = None
        self.next_actions = None
        self.next_image = image
        self.changes += 1
        self.chain_checked = None
        self.dirty = True

    def position(self):
        # The candidates of the game's position (None with no game).
        if self.pos is None and self.session.game is not None:
            self.pos = Position(self.session.game, self.next_actions, self.next_image)
            self.next_actions = None
            self.next_image = None
        return self.pos

    def commit(self, action, by, on_board=False, proven=False):
        # Log first (on flash before its `action` frame goes out: nothing
        # reported is lost to a power cut), then apply, then report. False
        # if it could not be logged. `proven`: the only legal move the
        # pieces show, which a log in a file writes in the next cycle
        # (collect()): after a cut the pieces still prove it (gamelog.py).
        session = self.session
        game = session.game
        # a move seen made on the board: its words may be ready (words())
        ready = self.pos.readied_for(action) if by == "sensors" and self.pos is not None else None
        text = ready[0] if ready else game.action_text(action)
        if proven and session.log.area is None and (ready[4] if ready else self.pos.moves_again(action)) \
                and not self.pos.turns_over(action):
            # its player moves again (a hop on): its turtle may be lifted
            # again at once, and the pieces then no longer prove it
            proven = False
        try:
            session.log.append(text, ready and ready[1], proven)
        except Exception as e:
            self.link.error("log", "could not write %s to the game log (%s); nothing was done" % (text, e))
            return False
        pos = self.position()
        self.prev_image = pos.image
        # the board it leaves, known for a move made on the board (matched)
        after = pos.image_after(action) if on_board else None
        bust = ready[3] if ready else game.busts(action)
        game.push_held(action)  # packed into the history by a quiet cycle (build())
        self.last_on_board = on_board
        self.last_by = by
        self.last_bust = bust
        self.look_first = on_board
        if not on_board:
            self.must_match = GAME
        self.changed(after)
        self.committed = True
        self.collect_first = True
        if ready:
            self.link.send_text("action", ready[2])
        else:
            self.link.send_action(len(game.history), text, session.hash(), by, bust)
        return True

    def words(self, text, hash_after, bust, again):
        # What the commit of a move made on the board writes and sends, made
        # while its turtle is in the air (Position.ready): (its text, its log
        # line, its `action` frame's payload, whether it busts, whether its
        # player moves again).
        n = len(self.session.game.history) + 1
        line = self.session.log.action_line(text)
        return (text, line, action_payload(n, text, hash_after, "sensors", bust), bust, again)

    def takeback(self, by):
        # Take back the last action; one the board drew itself (its dice,
        # the cards it deals) goes with the actions before it back to the
        # last one a person made: drawn again it would come out the same
        # (Session.throw). One `undone` frame per action.
        game = self.session.game
        if not game.history:
            raise IllegalAction("nothing to undo: the game is at its start")
        drawn = self.drawn_behind()
        if drawn == len(self.session.game.history):
            raise IllegalAction("nothing to undo: the board drew every action so far itself, and "
                                "would draw the same again")
        close_prompt(self, None)
        try:
            for _ in range(drawn + 1):
                self.take_back_one()
        finally:  # (a log that could not be changed stops it between two actions)
            self.computer.paused = True  # so a person can take back more than one move
            self.must_match = None if by == "sensors" else TAKEN
            self.look_first = by == "sensors"
            self.changed()
            self.committed = True

    def drawn_behind(self):
        # How many of the last actions the board drew itself (electronic
        # dice, the cards it deals): found by undoing them and playing them
        # again; behind a snapshot the whole game is replayed first.
        session = self.session
        while True:
            game = session.game
            undone = []
            drawn = 0
            while game.history.n:
                undone.append(game.undo())
                if not self.board_draws(game):
                    break
                drawn += 1
            behind = drawn == len(undone) and game.history.base
            for i in range(len(undone) - 1, -1, -1):
                game.push(undone[i])
            if not behind:
                return drawn
            session.whole_history()  # the draws go on behind the snapshot
            self.computer.reset(self.computer.seats)

    def board_draws(self, game):
        # Does the board draw this position's chance itself?
        session = self.session
        return game.to_move() == CHANCE and session.dice == "electronic" \
            and flows.device_rolls(session.name, game)

    def take_back_one(self):
        # The last action out of the log, then out of the game; `undone`.
        session = self.session
        game = session.game
        if game.history.base and not game.history.n:
            session.whole_history()  # behind the snapshot the game was resumed from
            game = session.game
            self.computer.reset(self.computer.seats)  # it thinks about the game it knows
        try:
            session.log.pop()
        except Exception as e:
            raise GameError("the game log could not be changed (%s); nothing was undone" % (e,))
        game.undo()
        self.prev_image = None
        self.last_on_board = False
        self.last_by = None
        self.last_bust = False
        self.display.shown_dice = 0
        self.collect_first = True
        self.link.send_undone(len(game.history), session.hash())

    # ---- the host ----------------------------------------------------------

    def resend(self):
        # The open prompt, the status and the LEDs again (after a sync).
        if self.prompt is not None:
            self.link.send("prompt", self.prompt.payload(self.session.game))
        self.display.forget()
        self.dirty = True

    def ok_waits(self, now, steady):
        # OK pressed while a turtle settled (a wobble as it is put down) is
        # taken once the board is still, as the game, with no question open
        # (a wobble read as the turtle lifted again asks one for a moment,
        # seed 2465: not OK's to answer); dropped if the game moved
        # meanwhile (a move answers it). After OK_HOLD_MS: dropped for a
        # question open (OK answers that now), else why it did nothing.
        at, changes = self.ok_held
        late = self.hal.ticks_diff(now, at) >= OK_HOLD_MS
        if changes != self.changes:
            self.ok_held = None
        elif steady and self.prompt is None and (late or self.board_image() == self.position().image):
            self.ok_held = None
            confirm(self, self.session.game)  # (late, the board differing: it says so)
        elif late:
            self.ok_held = None
            if self.prompt is None:
                self.link.error("refused", "OK: the board is not still (a turtle moving, a sensor unclear); "
                                "press OK again once it is")

    # ---- one cycle ----------------------------------------------------------

    def step(self, now):
        hal = self.hal
        sensing = self.sensing
        display = self.display
        sensing.scan(now)  # refreshes the HAL
        if sensing.version != self.seen_version:
            self.seen_version = sensing.version
            self.hold_from = None  # a change counted: what follows is new work
            self.stable_since = now
            self.sensed = None
            self.dirty = True
        steady = not sensing.pending
        if steady != self.steady:
            self.steady = steady
            if steady:  # a change that settled back: nothing new, but look again
                self.dirty = True
        for seq, kind, payload in self.link.poll():
            run_command(self, seq, kind, payload)
        if self.selftest is not None:  # `turtleboard board test`: the game stands still
            self.selftest.step(now)
            sensing.check(now)
            return
        for name in self.buttons.poll(now):
            press(self, name)
        if self.ok_held is not None:
            self.ok_waits(now, steady)
        if sensing.faults != display.faults_sent:
            display.report_faults(sensing.faults)
            self.dirty = True
        if self.wake_ms is not None and hal.ticks_diff(now, self.stable_since) >= self.wake_ms:
            self.dirty = True
        if self.collect_first and self.session.log.behind is not None:
            collect(self)  # a proven move's line, written behind its frame: first, whatever the board does
            return
        if not steady:
            # A change is settling: the rest waits (commands were answered
            # above), so that the cycle that sees it count comes at once; for
            # two windows at most (a turtle in transit, a reading not clear,
            # a flickering sensor), counted from when the work last had its
            # turn or a change last counted.
            if self.hold_from is None:
                self.hold_from = now
            if hal.ticks_diff(now, self.hold_from) < HOLD_WINDOWS * sensing.stable_ms:
                self.settle_work(now)
                return
        if self.collect_first:
            collect(self)  # the cycle after a commit: its garbage, before the next move comes
            return
        rounds = 0
        self.committed = False
        looked = self.look_first and self.dirty and self.pos is None and self.session.game is not None
        if looked:
            # after a move made on the board: the new position's legal
            # actions are this cycle's work (the engine's move generation),
            # its candidates begun and the board matched in the next
            self.look(self.session.game)
            rounds = 1
        while self.dirty and not looked and rounds < 4 and not self.committed:
            # a commit may lead to a roll, a prompt: thought about in the
            # next cycle, so that the cycle that commits sends its action
            # frame and no more
            self.think(now)
            rounds += 1
        # One piece of work a cycle, so that no cycle keeps the next scan
        # waiting long: matching (think), else the LEDs (render), else a
        # state frame to the host (flush), else candidates (build).
        to_draw = display.scene is not display.drawn or display.level != display.drawn_level
        if not rounds:
            self.hold_from = None  # the waiting work has its turn
        if not rounds and not to_draw:
            session = self.session
            game = session.game
            unsent = display.status_out is not None or display.frame is not display.frame_sent
            restless = self.rested != self.changes + self.seen_version  # chores or snapshots may have work
            pos = self.pos
            if pos is not None and not pos.done():
                if not unsent:
                    self.build()  # not in a cycle that sends the host a state frame
            elif not unsent and pos is not None and pos.to_ready and pos.ready(self.words):
                pass  # a move of the turtle in the air, readied
            elif game is not None and game.history.pack():
                pass  # a commit's history entry, packed
            elif restless and not unsent and chores(self, now):
                pass  # a garbage collection, the log area erased ahead
            elif not unsent and sensing.check(now):
                pass  # the sensors' slow checks, when due
            elif restless and session.keep_snapshot():
                pass  # a snapshot in the log
            else:
                key = self.changes + self.seen_version
                if self.chores_done == key and self.collected == self.changes:
                    # chores() and the snapshots have nothing to do until the
                    # game or the board changes, or the log area's sectors
                    # are to be erased ahead: skipped until then (~0.25 ms)
                    still = self.prepared == key or hal.ticks_diff(now, self.stable_since) < PREPARE_MS
                    self.rested = key if still else -1
                computer = self.computer
                if not computer.people or computer.hint_by is not None:
                    computer.tick(self)  # one slice of the computer's thought
        drew = False
        if (to_draw and not rounds) or display.ledtest_at is not None:
            frame = display.frame
            display.render(now)  # else render() has nothing new to draw
            drew = display.frame is not frame
        if self.committed:
            self.waited = 0  # the action frame was this cycle's work
        elif (rounds == 0 and not drew) or self.waited >= 3:
            self.waited = 0
            if display.frame is not display.frame_sent or display.status_out is not None:
                display.flush()
            else:
                display.sent_status = False  # all flush() does when nothing waits for the host
        else:
            self.waited += 1  # matching or the LEDs were this cycle's work: the host waits
        if self.diag and hal.ticks_diff(now, self.diag_at) >= SENSE_EVERY_MS:
            self.diag_at = now
            self.link.send("sense", {"raw": list(sensing.raw), "image": list(sensing.image)})

    def run(self, period_ms=5):
        hal = self.hal
        try:
            while True:
                start = hal.ticks_ms()
                try:
                    self.step(start)
                except Exception as e:  # never KeyboardInterrupt: Ctrl-C gets out
                    self.trouble(start, e)
                if period_ms > 0:  # (a Pico runs flat out: 0, no clock read for it)
                    spent = hal.ticks_diff(hal.ticks_ms(), start)
                    if spent < period_ms:
                        hal.sleep_ms(period_ms - spent)
        finally:  # Ctrl-C: the REPL's tools (mpremote) find the filesystem mounted, the log whole
            hal.wake_files()
            try:
                self.session.log.write_behind()
            except Exception:
                pass  # (the boot reads the move again from the pieces)

    def settle_work(self, now):
        # While a change settles, one piece of the new position's work (its
        # legal actions, a slice of its candidates, one move of the lifted
        # turtle readied), so that a move seen whole at once (its lift behind
        # a flash erase on a stock Pico) or put down soon after its lift
        # finds them done when it commits; only while the piece ends before
        # the change can count, so as never to delay it. Matching, the LEDs
        # and the host wait for the board to be still.
        game = self.session.game
        if game is None:
            return
        left = self.sensing.stable_ms - self.hal.ticks_diff(now, self.sensing.changed_at)
        if left < PIECE_MS:
            return
        pos = self.pos
        if pos is None:
            if self.look_first:
                self.look(game)
            elif self.next_actions is not None:
                self.position()
        elif not pos.done():
            self.build()
        elif pos.to_ready and left >= READY_MS:
            pos.ready(self.words)

    def look(self, game):
        # The new position's legal actions, for position() to take.
        self.look_first = False
        if game.to_move() >= 0:
            self.next_actions = list(game.legal_actions())

    def build(self):
        # Candidates of the new position, for BUILD_MS of this cycle; once
        # they are all known, think again (what may move is lit then).
        hal = self.hal
        pos = self.pos
        start = hal.ticks_ms()
        self.session.game.history.pack()  # a commit's history entry, left for a quiet cycle
        while pos.fill():
            if hal.ticks_diff(hal.ticks_ms(), start) >= BUILD_MS:
                break
        if pos.done():
            self.dirty = True

    def trouble(self, now, e):
        # A bug must not stop the board: report it (once a second at most).
        text = "the controller hit %r; the game goes on" % (e,)
        if text != self.trouble_text or self.hal.ticks_diff(now, self.trouble_at) >= 1000:
            self.trouble_text = text
            self.trouble_at = now
            try:
                self.link.error("internal", text)
            except Exception:
                pass
        self.dirty = True

    def board_image(self):
        if self.sensed is None:
            img = self.sensing.image
            session = self.session
            if session.cells_in_order:  # (the board file lists the game's cells in its order)
                self.sensed = bytes(img[:len(session.cell_map)])
            else:
                self.sensed = bytes([img[j] for j in session.cell_map])
        return self.sensed

    def think(self, now):
        self.dirty = False
        self.wake_ms = None
        display = self.display
        shown = display.scene
        scene = scenes.Scene()
        display.scene = scene
        decide(self, now, scene)
        if self.committed and self.dirty:
            display.scene = shown  # the LEDs change when the next cycle thinks
            return
        if display.faults_sent:
            scene.status = "error"  # a dead or stuck sensor: see the error frames
        recal = self.recal
        if recal is not None and recal[1]:  # the cells recalibrated, until the game's next action
            game = self.session.game
            if game is recal[2] and (game is None or len(game.history) == recal[3]):
                scene.leds = recal[1] + scene.leds  # (what the game asks of them shows over it)
                scene.status = "error"
            else:
                self.recal = (recal[0], [], None, 0)
