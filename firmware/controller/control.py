# The controller: one cycle = scan the sensors, read the serial port and the
# buttons, match the board against the game, light the LEDs. The board file,
# the HAL, the sensing and the game log are injected.
#
# What the controller does is decided afresh whenever something changed:
#   - the board matches the game: show whose turn and what may move; at a
#     chance node roll (electronic dice) or ask (physical); when only a
#     decision the board cannot show is left, ask (a `decide` prompt);
#   - the game moved without the board (entered by the host, Mahé's turtle
#     after `stop`, a bust, a new game): light what must change at once;
#     only a board showing one legal move from there commits; after a power
#     cut (restored from the log) nothing commits until the board matches;
#   - the board shows the result of one legal action: commit it; of several:
#     a `move` prompt; the position before the last move: take it back;
#     a board that only lost a turtle (a turtle in the air looks so too) is
#     confirmed with OK, never read;
#   - a turtle lifted: light its legal destinations;
#   - anything else, stable for GRACE_MS: light the cells that differ.

import gc

from turtles import BadSetup, GameError, IllegalAction, game_class
from turtles.game import CHANCE, TERMINAL
from turtles.rng import Rng, derived

from . import flows, scenes
from .buttons import Buttons
from .commands import run_command
from .computer import Computer, check_seats, no_hint
from .link import Link
from .matcher import Position, chains, diff, image_after
from .prompts import TAKEBACK, Prompt, choice_text

GRACE_MS = 1500        # an unmatched stable board is guided after this
SENSE_EVERY_MS = 250   # `sense` frames while diagnostics are on
LEDTEST_STEP_MS = 400  # each colour of the LED test
LEDS_PER_FRAME = 16    # `leds` frames carry at most this many colours: one frame, one short cycle
BUILD_MS = 3           # a cycle with nothing else to do adds candidates this long
GAME = "game"          # must_match: the game moved (host, dice, engine, new game)
RESTORE = "restore"    # must_match: the game came back from the log
SNAPSHOT_EVERY = 50    # a snapshot in the log after this many actions: boot replays fewer
STILL_MS = 300         # the board this still after a change: the log written behind, a collection
COLLECT_EVERY = 4      # game changes without a still board: collect in a quiet cycle all the same
HOLD_WINDOWS = 2       # while a change settles, other work waits this many stability windows at most


class Controller:
    def __init__(self, hal, board, sensing, log, seed=1):
        self.hal = hal
        self.board = board
        self.sensing = sensing
        sensing.idle_checks = True  # its slow checks: a cycle's only work (step())
        self.log = log
        self.link = Link(hal)
        self.link.set_cells(board.cells)
        self.buttons = Buttons(hal, [b[0] for b in board.buttons])
        self.rng = Rng(seed)
        self.computer = Computer(Rng(seed + 1))
        self.last_by = None      # who made the last action (`action` frame's by)
        self.level = 255
        self.diag = False
        self.diag_at = 0
        self.ledtest_at = None   # when the LED test started
        self.game = None
        self.name = None
        self.dice = "electronic"
        self.dice_seed = None
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
        self.prompt_seq = 0
        self.shown_dice = 0
        self.seen_version = -1
        self.steady = True       # no cell had a change not yet steady (sensing.pending)
        self.hold_from = None    # when the work began to wait for a change to settle (step())
        self.stable_since = 0
        self.sensed = None       # the stable board, per game cell (bytes)
        self.dirty = True        # something changed: think again
        self.wake_ms = None      # think again when the board has been still this long
        self.scene = scenes.Scene()
        self.frame = None        # on the LEDs
        self.frame_sent = None   # as the host knows it (None: send it whole)
        self.scene_key = None
        self.drawn = None        # the scene last rendered, and at what level
        self.drawn_level = None
        self.status_sent = None
        self.status_out = None   # a status payload the host has not had yet
        self.sent_status = False  # the last state frame was a status
        self.waited = 0          # cycles the host's state frame waited (step())
        self.faults_sent = []
        self.trouble_text = None
        self.trouble_at = 0
        self.cell_map = []       # game cell -> board cell
        self.cells_in_order = False  # cell_map is 0, 1, 2, ...: the game's cells first on the board
        self.selftest = None     # a running self-test (controller/selftest.py)
        self.chores_done = -1    # the change after which chores() last finished
        self.collected = 0       # self.changes at the last collection (chores())

    # ---- the game -----------------------------------------------------------

    def make_game(self, name, players, options):
        # -> (game, cell map). Raises GameError saying what is wrong.
        if name not in self.board.games:
            raise GameError(
                "this board is for %s, not %s; pick one of those" % (", ".join(self.board.games), name)
            )
        cls = game_class(name)
        game = cls(players, flows.device_options(name, cls, options), self.board.geometry)
        where = {}
        for i, cell in enumerate(self.board.cells):
            where[cell] = i
        cell_map = []
        for cell in game.cells():
            i = where.get(cell)
            if i is None:
                raise GameError(
                    "the board has no cell %s, which %s needs; flash a board file made for %s"
                    % (cell, name, name)
                )
            cell_map.append(i)
        return game, cell_map

    def install(self, name, game, cell_map, dice, seed=None, seats=None):
        self.computer.reset(seats)
        self.game = game
        self.name = name
        self.dice = dice
        self.dice_seed = seed
        self.cell_map = cell_map
        self.cells_in_order = cell_map == list(range(len(cell_map)))
        self.prev_image = None
        self.last_on_board = False
        self.look_first = False
        self.must_match = GAME
        self.shown_dice = 0
        self.sensed = None
        self.close_prompt(None)
        self.changed()

    def new(self, name, players, options, dice, seed=None, seats=None):
        game, cell_map = self.make_game(name, players, options)
        try:
            seats = check_seats(seats, players, name)
        except ValueError as e:
            raise BadSetup(str(e))
        extra = {"dice": dice}
        if seed is not None:
            extra["seed"] = seed
        if seats is not None:
            extra["seats"] = seats
        self.log.begin(name, players, game.options, extra)
        self.install(name, game, cell_map, dice, seed, seats)

    def restore(self):
        # At boot: replay the game in the log. True if there was one.
        try:
            header = self.log.scan()
        except Exception as e:
            self.link.error("log", "the game log cannot be read (%s); start a new game" % (e,))
            return False
        if self.log.damage is not None:
            self.link.error("log", self.log.damage)
        if header is None:
            return False
        try:
            extra = header.get("extra") or {}
            dice = extra.get("dice", "electronic")
            game, cell_map = self.make_game(header["game"], header["players"], header["options"])
        except (GameError, KeyError, TypeError, AttributeError) as e:
            self.link.error("log", "the game log holds no game this board can play (%s); start a new game" % (e,))
            return False
        game, bad = self.replay(header, game, True)
        if bad is not None and game.history.base:  # found again with every action held
            game, bad = self.replay(header, self.make_game(header["game"], header["players"], header["options"])[0], False)
        if bad is not None:  # keep the log to what the game is now
            self.link.error("log", "%s; the log as it was %s" % (bad, self.log.keep_copy()[1]))
            try:
                self.log.begin(header["game"], header["players"], header["options"], extra)
                for action in game.history:
                    self.log.append(game.action_text(action))
            except Exception as e:
                self.link.error("log", "the game log could not be rewritten (%s)" % (e,))
        try:
            seats = check_seats(extra.get("seats"), game.players, header["game"])
        except ValueError:
            seats = None  # a log from another firmware: people play every seat
        self.install(header["game"], game, cell_map, dice, extra.get("seed"), seats)
        self.must_match = RESTORE
        return True

    def replay(self, header, game, resume):
        # The game in the log from the fresh `game`: from its last snapshot
        # when `resume` and it fits, then the actions after it.
        # -> (game, what stopped the replay or None).
        start = 0
        snap = None
        if resume and game.STATE:
            try:
                snap = self.log.last_snapshot()
                if snap is not None:
                    game.resume(snap[0], snap[2], snap[1])
                    start = snap[0]
            except Exception:  # it only saves time: replay every action instead
                game = self.make_game(header["game"], header["players"], header["options"])[0]
        bad = None
        for text in self.log.actions(start):  # one at a time: a long game's texts never all in the heap
            if bad is None:
                try:
                    game.apply_text(text)
                except GameError as e:
                    bad = "the game log stops making sense at action %d (%s: %s); the game goes on before it" % (
                        len(game.history) + 1, text, e)
        return game, bad

    def action_texts(self):
        # Every action's text, in order: those a game resumed from a
        # snapshot does not hold come from the log.
        history = self.game.history
        if history.base:
            for text in self.log.actions(0, history.base):
                yield text
        for action in history.actions_held():
            yield self.game.action_text(action)

    def whole_history(self):
        # Replay the actions a game resumed from a snapshot does not hold (for
        # a takeback behind it): the same game, every action held.
        game = self.game
        if not game.history.base:
            return
        whole = self.make_game(self.name, game.players, game.options)[0]
        for text in self.log.actions(0, game.history.base):
            whole.apply_text(text)
        for action in game.history.actions_held():
            whole.push(action)
        if whole.state_hash() != game.state_hash() or len(whole.history) != len(game.history):
            raise GameError("the game log does not give the game being played")
        self.game = whole
        self.computer.reset(self.computer.seats)

    def keep_snapshot(self):
        # In a quiet cycle: a snapshot in the log once SNAPSHOT_EVERY actions
        # followed the last. True if one was written (one flash page).
        game = self.game
        log = self.log
        if game is None or not game.STATE or log.count - log.snapped < SNAPSHOT_EVERY:
            return False
        if log.count != len(game.history):
            return False  # the log is not this game's (it could not be written)
        try:
            log.snapshot(game.state_hash(), game.state_text())
        except Exception as e:
            log.snapped = log.count  # not again at once
            self.link.error("log", "could not write a snapshot to the game log (%s); the game goes on" % (e,))
        return True

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
        if self.pos is None and self.game is not None:
            self.pos = Position(self.game, self.next_actions, self.next_image)
            self.next_actions = None
            self.next_image = None
        return self.pos

    def commit(self, action, by, on_board=False):
        # Log first (a move read off the board: queued, on flash by
        # chores()), then apply, then report. False if it could not be logged.
        game = self.game
        text = game.action_text(action)
        try:
            if by == "sensors":
                self.log.queue(text)  # to flash by chores(): the pieces show it again after a power cut
            else:
                self.log.append(text)
        except Exception as e:
            self.link.error("log", "could not write %s to the game log (%s); nothing was done" % (text, e))
            return False
        pos = self.position()
        self.prev_image = pos.image
        # the board it leaves, known for a move made on the board (matched)
        after = pos.image_after(action) if on_board else None
        game.push_held(action)  # packed into the history by a quiet cycle (build())
        self.last_on_board = on_board
        self.last_by = by
        self.look_first = on_board
        if not on_board:
            self.must_match = GAME
        self.changed(after)
        self.committed = True
        self.link.send_action(len(game.history), text, self.hash(), by)
        return True

    def takeback(self, by):
        game = self.game
        if not game.history:
            raise IllegalAction("nothing to undo: the game is at its start")
        if game.history.base and not game.history.n:
            self.whole_history()  # behind the snapshot the game was resumed from
            game = self.game
        try:
            self.log.pop()
        except Exception as e:
            raise GameError("the game log could not be changed (%s); nothing was undone" % (e,))
        game.undo()
        self.prev_image = None
        self.last_on_board = False
        self.last_by = None
        self.computer.paused = True  # so a person can take back more than one move
        self.must_match = None if by == "sensors" else GAME
        self.look_first = by == "sensors"
        self.shown_dice = 0
        self.close_prompt(None)
        self.changed()
        self.committed = True
        self.link.send_undone(len(game.history), self.hash())

    def hash(self):
        return "%08x" % self.game.state_hash()

    # ---- prompts ------------------------------------------------------------

    def open_prompt(self, kind, text, actions, image=None):
        self.prompt_seq += 1
        self.prompt = Prompt(self.prompt_seq, kind, text, actions, image)
        self.link.send("prompt", self.prompt.payload(self.game))

    def close_prompt(self, choice):
        if self.prompt is not None:
            self.link.send("closed", {"id": self.prompt.id, "choice": choice})
            self.prompt = None
            self.dirty = True

    def answer(self, index, by):
        p = self.prompt
        action = p.actions[index]
        self.close_prompt(index)
        if action is None:
            return True
        if action == TAKEBACK:
            self.takeback(by)
            return True
        return self.commit(action, by, on_board=p.kind == "move")

    # ---- one cycle ----------------------------------------------------------

    def step(self, now):
        hal = self.hal
        sensing = self.sensing
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
            self.press(name)
        if sensing.faults != self.faults_sent:
            self.report_faults()
            self.dirty = True
        if self.wake_ms is not None and hal.ticks_diff(now, self.stable_since) >= self.wake_ms:
            self.dirty = True
        if not steady:
            # A change is settling: the rest waits (commands were answered
            # above), so that the cycle that sees it count comes at once; for
            # two windows at most (a turtle in transit, a reading not clear,
            # a flickering sensor), counted from when the work last had its
            # turn or a change last counted.
            if self.hold_from is None:
                self.hold_from = now
            if hal.ticks_diff(now, self.hold_from) < HOLD_WINDOWS * sensing.stable_ms:
                return
        rounds = 0
        self.committed = False
        looked = self.look_first and self.dirty and self.pos is None and self.game is not None
        if looked:
            # after a move made on the board: the new position's legal
            # actions are this cycle's work (the engine's move generation),
            # its candidates begun and the board matched in the next
            self.look_first = False
            if self.game.to_move() >= 0:
                self.next_actions = list(self.game.legal_actions())
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
        to_draw = self.scene is not self.drawn or self.level != self.drawn_level
        if not rounds:
            self.hold_from = None  # the waiting work has its turn
        if not rounds and not to_draw:
            unsent = self.status_out is not None or self.frame is not self.frame_sent
            if self.pos is not None and not self.pos.done():
                if not unsent:
                    self.build()  # not in a cycle that sends the host a state frame
            elif self.game is not None and self.game.history.pack():
                pass  # a commit's history entry, packed
            elif not unsent and self.chores(now):
                pass  # the log written behind, a garbage collection
            elif not unsent and sensing.check(now):
                pass  # the sensors' slow checks, when due
            elif not self.keep_snapshot():
                self.computer.tick(self)  # one slice of the computer's thought
        drew = False
        if (to_draw and not rounds) or self.ledtest_at is not None:
            frame = self.frame
            self.render(now)  # else render() has nothing new to draw
            drew = self.frame is not frame
        if self.committed:
            self.waited = 0  # the action frame was this cycle's work
        elif (rounds == 0 and not drew) or self.waited >= 3:
            self.waited = 0
            if self.frame is not self.frame_sent or self.status_out is not None:
                self.flush()
            else:
                self.sent_status = False  # all flush() does when nothing waits for the host
        else:
            self.waited += 1  # matching or the LEDs were this cycle's work: the host waits
        if self.diag and hal.ticks_diff(now, self.diag_at) >= SENSE_EVERY_MS:
            self.diag_at = now
            self.link.send("sense", {"raw": list(sensing.raw), "image": list(sensing.image)})

    def run(self, period_ms=5):
        hal = self.hal
        while True:
            start = hal.ticks_ms()
            try:
                self.step(start)
            except Exception as e:  # never KeyboardInterrupt: Ctrl-C gets out
                self.trouble(start, e)
            spent = hal.ticks_diff(hal.ticks_ms(), start)
            if spent < period_ms:
                hal.sleep_ms(period_ms - spent)

    def build(self):
        # Candidates of the new position, for BUILD_MS of this cycle; once
        # they are all known, think again (what may move is lit then).
        hal = self.hal
        pos = self.pos
        start = hal.ticks_ms()
        self.game.history.pack()  # a commit's history entry, left for a quiet cycle
        while pos.fill():
            if hal.ticks_diff(hal.ticks_ms(), start) >= BUILD_MS:
                break
        if pos.done():
            self.dirty = True

    def chores(self, now):
        # Once the board has been still STILL_MS after a change: the actions
        # the sensors committed to flash (a write stalls the cycle: on a Pico
        # ~0.8 ms a page, ~45 ms a sector erased), then in the next such
        # cycle a garbage collection (~12 ms on the emulated Pico), so that
        # no commit meets one; one also after COLLECT_EVERY game changes
        # when moves come quicker than that (gc.mem_free() would tell when
        # the heap runs low, but it costs a collection's time). True if this
        # cycle did one of them.
        key = self.changes + self.seen_version  # grows with either
        if key == self.chores_done or self.hal.ticks_diff(now, self.stable_since) < STILL_MS:
            if self.changes - self.collected < COLLECT_EVERY:
                return False
        elif self.log.pending():
            try:
                self.log.write_pending()
            except Exception as e:
                self.chores_done = key  # tried again after the next change
                self.link.error("log", "could not write %d actions to the game log (%s); a power cut "
                                "before they are written loses them" % (self.log.pending(), e))
            return True
        else:
            self.chores_done = key
        gc.collect()
        self.collected = self.changes
        return True

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
            if self.cells_in_order:  # (the board file lists the game's cells in its order)
                self.sensed = bytes(img[:len(self.cell_map)])
            else:
                self.sensed = bytes([img[j] for j in self.cell_map])
        return self.sensed

    def think(self, now):
        self.dirty = False
        self.wake_ms = None
        shown = self.scene
        scene = scenes.Scene()
        self.scene = scene
        self.decide(now, scene)
        if self.committed and self.dirty:
            self.scene = shown  # the LEDs change when the next cycle thinks
            return
        if self.faults_sent:
            scene.status = "error"  # a dead or stuck sensor: see the error frames

    def decide(self, now, scene):
        game = self.game
        if game is None:
            self.set_status("no game: start one from the host", {})
            return
        pos = self.position()
        sensed = self.board_image()
        # A cell with a change not yet steady: a turtle may be in transit, and
        # the stable image is not the board. Nothing matches until it is still.
        steady = self.steady
        if sensed == pos.image and steady:
            self.must_match = None
            self.in_sync(scene)
            return
        if self.must_match is not None:
            self.close_prompt(None)
            actions = pos.match(sensed) if pos.player else []  # (RESTORE: a move the log had not yet written)
            if len(actions) == 1 and pos.lifted(sensed) is None and steady:
                # set right and moved on before the board was read in between
                self.commit(actions[0], "sensors", on_board=True)
                return
            text = "put the pieces where the lights show"
            if self.last_by == "computer" and game.history:
                text = "the computer plays %s: make its move as lit" % game.action_text(game.history[-1])
            self.guide(scene, sensed, pos.image, text)
            return
        p = self.prompt
        if p is not None and p.kind == "move" and p.image == sensed:
            self.show_prompt(scene)
            return
        if not steady:  # looked at again once steady (step())
            if p is not None and sensed == pos.image:
                self.show_prompt(scene)  # the game's question stays open
                return
            self.close_prompt(None)
            self.settling(scene)
            return
        self.close_prompt(None)
        settle = flows.settle_ms(self.name)
        if settle and self.hal.ticks_diff(now, self.stable_since) < settle:
            self.wait(scene, settle)  # a turtle counted along the track rests on each cell
            return
        lifted = pos.lifted(sensed)
        back = self.last_on_board and sensed == self.prev_image
        actions = pos.match(sensed) if pos.player else []
        if back and not actions and lifted is None:
            self.takeback("sensors")
            return
        if pos.player or back:
            if back:  # also a move (a Race "-" card), or a turtle in the air
                actions = actions + [TAKEBACK]
            if len(actions) == 1 and lifted is None and not back:
                self.commit(actions[0], "sensors", on_board=True)
                return
            if actions:
                # Several moves fit; or the board only lost a turtle, which is
                # how a turtle held in the air looks too: the player confirms.
                text = "which move was it? NEXT shows the next, OK confirms"
                if lifted is not None:
                    text = "moved onto a stack? OK confirms (NEXT: the next choice); else put the turtle down"
                self.open_prompt("move", text, actions, sensed)
                self.show_prompt(scene)
                return
            if lifted is None:
                if self.chain_checked != sensed:
                    self.chain_checked = sensed  # searched once per board
                    found = chains(game, sensed)
                    if len(found) == 1:  # a whole jump chain made in one go
                        for action in found[0]:
                            if not self.commit(action, "sensors", on_board=True):
                                break
                        return
            else:
                dest = pos.destinations(lifted)
                if dest:
                    self.idle_scene(scene)
                    scene.leds = self.leds(dest, scenes.DEST)
                    self.set_status("put the turtle on a lit cell", {"dest": self.names(dest)})
                    return
        if self.hal.ticks_diff(now, self.stable_since) >= GRACE_MS:
            self.guide(scene, sensed, pos.nearest(sensed), "that is no legal move: change the lit cells")
            return
        self.wait(scene, GRACE_MS)

    def wait(self, scene, ms):
        # Nothing to do before the board has been still for `ms`.
        self.wake_ms = ms
        self.settling(scene)

    def settling(self, scene):
        self.idle_scene(scene)
        self.set_status("waiting for the board to settle", {})

    def in_sync(self, scene):
        game = self.game
        pos = self.position()
        who = game.to_move()
        p = self.prompt
        if p is not None and p.kind == "move":
            self.close_prompt(None)
            p = None
        if who == TERMINAL:
            winners = (game.result() or {}).get("winners") or []
            scene.status = "over"
            scene.players = game.players
            scene.seats = [(w, scenes.player_colour(w)) for w in winners]
            self.set_status("the game is over", {})
            return
        if p is not None:
            self.show_prompt(scene)
            return
        if who == CHANCE:
            if self.dice == "electronic" and flows.device_rolls(self.name):
                self.roll()
                return
            self.open_prompt("chance", flows.chance_text(self.name) + " NEXT shows the next, OK confirms",
                             game.legal_actions())
            self.show_prompt(scene)
            return
        if self.computer.playing(game):
            self.idle_scene(scene)
            self.computer.light(scene)  # the thinking light
            self.set_status(self.computer.status(game), {})
            return
        if not pos.done() and not flows.decide_all(self.name):
            # until the candidates are known (build()): whose turn only
            self.idle_scene(scene)
            self.set_status("player %d to move" % (who + 1), {})
            return
        hint = self.computer.hint_action(game)
        if hint is not None:
            self.show_hint(scene, hint)
            return
        if flows.decide_all(self.name) or (pos.unseen and not pos.seen()):
            choices = game.legal_actions() if flows.decide_all(self.name) else pos.unseen
            self.open_prompt("decide", "player %d decides: NEXT shows the next choice, OK confirms"
                             % (who + 1), choices)
            self.show_prompt(scene)
            return
        self.idle_scene(scene)
        scene.leds = self.leds(pos.movable(), scenes.MOVABLE)
        text = "player %d to move" % (who + 1)
        if self.last_by == "computer" and game.history:
            # a choice the board cannot show (a tattoo, a team) is said
            text += " (the computer played %s)" % game.action_text(game.history[-1])
        self.set_status(text, {})

    def idle_scene(self, scene):
        who = self.game.to_move()
        scene.status = "idle"
        scene.dice = self.shown_dice
        scene.players = self.game.players
        if who >= 0:
            scene.seats = [(who, scenes.player_colour(who))]
        elif who == CHANCE:
            scene.seats = [(i, scenes.CHANCE) for i in range(self.game.players)]

    def preview(self, img):
        # LEDs of what changes from the game's board to `img`.
        off, on, flip = diff(self.position().image, img)
        return self.leds(off, scenes.TAKE) + self.leds(on, scenes.PREVIEW) + self.leds(flip, scenes.FLIP)

    def show_hint(self, scene, action):
        # The `good` level's choice for the person to move, as a preview.
        game = self.game
        self.idle_scene(scene)
        scene.leds = self.preview(image_after(self.game, action))
        self.set_status("hint for player %d: %s" % (game.to_move() + 1, game.action_text(action)),
                        {"choice": game.action_text(action)})

    def show_prompt(self, scene):
        # The preview: what the current choice changes on the board.
        p = self.prompt
        self.idle_scene(scene)
        scene.status = "prompt"
        action = p.chosen()
        game = self.game
        if action is not None:
            scene.leds = self.preview(self.prev_image if action == TAKEBACK else image_after(game, action))
            colour = None if action == TAKEBACK else flows.colour_of(self.name, game, action)
            if colour is not None and scene.seats:  # on the deciding seat
                scene.seats = [(scene.seats[0][0], colour)]
            if p.kind == "chance":
                scene.dice = flows.dice_value(game, action)
        self.set_status(p.text, {"choice": choice_text(self.game, action)})

    def guide(self, scene, sensed, target, text):
        self.idle_scene(scene)
        scene.status = "wait"
        off, on, flip = diff(sensed, target)
        scene.leds = self.leds(off, scenes.TAKE) + self.leds(on, scenes.PUT) + self.leds(flip, scenes.FLIP)
        self.set_status(text, {"off": self.names(off), "on": self.names(on), "flip": self.names(flip)})

    def leds(self, cells, colour):
        led_of = self.board.led_of
        return [(led_of[self.cell_map[c]], colour) for c in cells]

    def names(self, cells):
        return [self.board.cells[self.cell_map[c]] for c in cells]

    def set_status(self, text, expect):
        key = (text, sorted(expect.items()))
        if key != self.status_sent:
            self.status_sent = key
            self.status_out = {"text": text, "expect": expect}  # sent by flush()

    def roll(self):
        # Electronic dice and cards: our PRNG, weighted by the rules, stirred
        # by the moment of the roll.
        game = self.game
        if self.dice_seed is None:
            rng = self.rng
            rng.stir(self.hal.ticks_ms())
        else:
            # Fixed dice (a demo or a test): the same seed rolls the same game,
            # before and after a power cut.
            rng = derived(self.dice_seed, len(game.history))  # Rng(seed * 7919 + n + 1)
        action = rng.weighted(game.chance_outcomes())
        value = flows.dice_value(game, action)
        if self.commit(action, "dice"):
            self.shown_dice = value

    def report_faults(self):
        faults = list(self.sensing.faults)
        for cell, reason in faults:
            if (cell, reason) not in self.faults_sent:
                self.link.error("sensor", "the sensor of cell %s: %s; check its wiring" % (cell, reason))
        self.faults_sent = faults

    # ---- LEDs ---------------------------------------------------------------

    def render(self, now):
        if self.ledtest_at is not None:
            step = self.hal.ticks_diff(now, self.ledtest_at) // LEDTEST_STEP_MS
            if step < 4:
                # a loop, not a comprehension: one using `self` boxes it in
                # a heap cell at every call of render(), quiet cycles too
                frame = []
                for c in scenes.ledtest_frame(step, self.board.led_count):
                    frame.append(scenes.scale(c, self.level))
                self.show(frame)
                return
            self.ledtest_at = None
            self.scene_key = None
            self.drawn = None
        if self.scene is self.drawn and self.level == self.drawn_level:
            return  # nothing new to draw: no work, no garbage
        self.drawn = self.scene
        self.drawn_level = self.level
        key = (self.scene.key(), self.level)
        if key == self.scene_key:
            return
        self.scene_key = key
        self.show(scenes.render(self.board, self.scene, self.level))

    def resend(self):
        # The open prompt, the status and the LEDs again (after a sync).
        if self.prompt is not None:
            self.link.send("prompt", self.prompt.payload(self.game))
        self.status_sent = None
        self.frame = None
        self.frame_sent = None
        self.scene_key = None
        self.drawn = None
        self.dirty = True

    def show(self, frame):
        # To the LEDs now; to the host by flush().
        if frame == self.frame:
            return
        self.frame = frame
        self.hal.write_leds(frame)

    def flush(self):
        # One state frame to the host at most, of the newest state: the
        # status, or the span of LEDs that differs from what the host was
        # sent (at most LEDS_PER_FRAME of them); the two in turn when both
        # wait. Event frames (action, prompt, answers) never wait.
        frame = self.frame
        sent = self.frame_sent
        first = last = 0
        if frame is not sent and frame is not None:
            last = len(frame)
            if sent is not None and len(sent) == last:
                while first < last and frame[first] == sent[first]:
                    first += 1
                while last > first and frame[last - 1] == sent[last - 1]:
                    last -= 1
            else:
                sent = [None] * last  # the host has nothing of this frame yet
            if first == last:
                self.frame_sent = frame  # back to what the host has
        if self.status_out is not None and (first == last or not self.sent_status):
            self.link.send_status(self.status_out["text"], self.status_out["expect"])
            self.status_out = None
            self.sent_status = True
            return
        self.sent_status = False
        if first < last:
            end = min(last, first + LEDS_PER_FRAME)
            self.link.send_leds(first, scenes.hex_frame(frame[first:end]))
            self.frame_sent = frame if end == last else frame[:end] + sent[end:]  # the rest next cycle

    # ---- buttons ------------------------------------------------------------

    def press(self, name):
        p = self.prompt
        if p is not None:
            if name == "next":
                p.next()
                self.link.send("prompt", p.payload(self.game))
                self.dirty = True
            elif name == "ok":
                self.answer(p.current, "buttons")
            return
        if name == "next" and self.game is not None and self.must_match is None \
                and not self.computer.playing(self.game) and no_hint(self.game) is None:
            self.computer.ask_hint("buttons")  # NEXT with no question open: a hint
            return
        if name == "ok" and self.computer.paused and self.computer.playing(self.game):
            self.computer.paused = False  # the computer plays on
            self.dirty = True
            return
        if name != "ok" or self.game is None or not self.position().player:
            return
        pos = self.pos
        if self.board_image() != pos.image or not self.steady:
            return
        pos.finish()
        if pos.unseen:
            self.open_prompt("hidden", "which move was made? the last choice cancels",
                             pos.unseen + [None])
            self.dirty = True
