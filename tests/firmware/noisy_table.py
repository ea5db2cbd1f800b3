# Whole games on a noisy board, in simulated time: the real controller,
# sensing, game log and a reference board file, with sensor readings made as
# the virtual board's world makes them (sim/world.py: per-sensor offsets, a
# turtle's field, Gaussian noise drawn afresh every 10 ms, a turtle wobbling
# for 150 ms as it is put down) and scripted hands that move the turtles,
# answer prompts and check every commit against the move they made.
import random

from ctl_rig import FakeHal, Rig, only

from turtleboard.paths import reference_board
from turtleboard.sim.hands import TRACK_GAMES, _counts, _visible_moves
from turtleboard.sim.world import BOUNCE_MS, reading
from turtles import CHANCE, TERMINAL
from turtles.game import DOWN, EMPTY, UP

TICK_MS = 10  # the world's readings change this often
WAIT_MS = 10000  # longest the hands wait for the board before they call it stuck
STILL_MS = 600  # a board untouched this long has settled, bounce and all


class NoisyHal(FakeHal):
    def __init__(self, board, noise, bounce, seed):
        FakeHal.__init__(self, 48)
        self.board = board
        self.noise = noise
        self.bounce = bounce
        self.random = random.Random(seed)
        self.stacks = {c: [] for c in board.cells}  # [up] per turtle, bottom first
        self.settling = {}  # cell -> until when it wobbles
        self.tick = None
        self.touched = 0  # when a hand last changed the board

    def read_channel(self, ch):
        self._fresh()
        return self.adc[ch]

    def read_cells(self, plan, out):
        self._fresh()
        FakeHal.read_cells(self, plan, out)

    def _fresh(self):
        if self.tick is None or self.clock >= self.tick + TICK_MS:
            self.tick = self.clock - self.clock % TICK_MS
            self._draw()

    def _draw(self):
        board = self.board
        values = [reading(ch, []) for ch in range(48)]
        for i, cell in enumerate(board.cells):
            ch = board.sensor_of[i]
            stack = [["t", up] for up in self.stacks[cell]]
            full = reading(ch, stack)
            if self.settling.get(cell, -1) > self.clock:
                empty = reading(ch, [])
                full = self.random.choice((empty, (empty + full) // 2, full))
            values[ch] = full
        if self.noise:
            g = self.random.gauss
            values = [max(0, min(65535, int(v + g(0, self.noise)))) for v in values]
        self.adc = values

    def still(self, ms):
        return self.clock - self.touched >= ms

    def set(self, cell, stack, wobble):
        self.touched = self.clock
        self.stacks[cell] = list(stack)
        if wobble and self.bounce and stack:
            self.settling[cell] = self.clock + BOUNCE_MS
        self.tick = None


class Table:
    """One game on a noisy reference board, played by seeded hands."""

    def __init__(self, game, noise=0, bounce=False, seed=1, players=2):
        text = reference_board(game).read_text()
        self.rig = Rig(game, board_text=text, seed=seed)
        board = self.rig.board
        self.hal = NoisyHal(board, noise, bounce, seed)
        # Boot on the noisy board: calibration reads the noise too.
        self.rig.hal = self.hal
        self.rig.sensing.hal = self.hal
        self.rig.sensing._read = self.hal.read_cells
        self.rig.ctl.hal = self.hal
        self.rig.ctl.display.hal = self.hal
        self.rig.ctl.link.hal = self.hal
        self.rig.ctl.buttons.hal = self.hal
        self.rig.sensing.calibrate(self.hal.clock)
        self.rng = random.Random(seed * 7919 + 1)
        self.game_name = game
        self.players = players
        self.wrong = []  # (made, recorded)
        self.stalls = 0
        self.cancelled = 0  # prompts closed by the board itself with no choice
        self.takebacks = 0  # takebacks the hands never made
        self.actions = 0  # moves the hands made on the board and the board recorded
        self.frames = []
        # Prompts the board closed by itself while no hand touched the board
        # (noise); one closed and opened again as the hands lay the board out
        # is the board asking afresh.
        # A prompt opens and closes with its `prompt` and `closed` frames
        # (controller/prompts.py): the frames the board sends are watched.
        ctl = self.rig.ctl
        opened = {}
        send = ctl.link.send

        def on_send(kind, payload=None):
            if kind == "prompt":
                opened.setdefault(payload["id"], self.hal.clock)  # sent again on NEXT, a sync
            elif kind == "closed" and payload["choice"] is None and not self._closing \
                    and opened.get(payload["id"]) != self.hal.clock and self.hal.still(STILL_MS):
                self.cancelled += 1
            send(kind, payload)

        takeback = ctl.takeback

        def on_takeback(by):
            if by == "sensors" and self.hal.still(STILL_MS):
                self.takebacks += 1  # nobody touched the board: noise took a move back
            takeback(by)

        ctl.link.send, ctl.takeback = on_send, on_takeback
        self._closing = False

    # ---- time ----------------------------------------------------------

    def run(self, ms):
        self.frames += self.rig.run(ms)

    def until(self, done, ms=WAIT_MS):
        end = self.hal.clock + ms
        while not done():
            if self.hal.clock >= end:
                return False
            self.run(20)
        return True

    def _seen(self):
        self.frames = []

    # ---- the pieces ----------------------------------------------------

    def arrange(self, target, before):
        # Move turtles until the table shows `target`'s image: lift what is
        # too much, carry it (hop by hop along a track) to what is missing.
        hal = self.hal
        cells = target.cells()
        image = target.image()
        counts = _counts(target)
        want = {c: 0 for c in hal.board.cells}
        up = {}
        for i, cell in enumerate(cells):
            want[cell] = counts[i] if image[i] != EMPTY else 0
            up[cell] = image[i] == UP
        have = {c: len(hal.stacks[c]) for c in hal.board.cells}
        order = list(hal.board.cells)
        surplus = [c for c in order if have[c] > want[c]]
        deficit = [c for c in order if have[c] < want[c]]
        for src in surplus:
            extra = have[src] - want[src]
            hand = hal.stacks[src][-extra:]
            hal.set(src, hal.stacks[src][:-extra], False)
            self.run(self.rng.randrange(100, 300))
            while hand and deficit:
                dst = deficit[0]
                k = min(len(hand), want[dst] - len(hal.stacks[dst]))
                self._carry(src, dst, target, hand[:k])
                piece = hand[:k]
                if not hal.stacks[dst]:
                    piece[0] = up.get(dst, True)
                hal.set(dst, hal.stacks[dst] + piece, True)
                hand = hand[k:]
                self.run(self.rng.randrange(100, 300))
                if len(hal.stacks[dst]) >= want[dst]:
                    deficit.pop(0)
        for dst in deficit:
            while len(hal.stacks[dst]) < want[dst]:
                first = not hal.stacks[dst]
                hal.set(dst, hal.stacks[dst] + [up.get(dst, True) if first else True], True)
                self.run(self.rng.randrange(100, 300))
        for i, cell in enumerate(cells):
            stack = hal.stacks[cell]
            if stack and (UP if stack[0] else DOWN) != image[i]:
                hal.set(cell, [], False)  # lift, turn over, put back
                self.run(self.rng.randrange(100, 300))
                hal.set(cell, [image[i] == UP] + stack[1:], True)
                self.run(self.rng.randrange(100, 300))

    def _carry(self, src, dst, game, hand):
        if game.name not in TRACK_GAMES:
            return
        cells = game.cells()
        if src not in cells or dst not in cells:
            return
        a, b = cells.index(src), cells.index(dst)
        step = 1 if b > a else -1
        for j in range(a + step, b, step):
            cell = cells[j]
            if not self.hal.stacks[cell]:
                self.hal.set(cell, hand, True)
                self.run(120)
                self.hal.set(cell, [], False)
                self.run(120)

    def matches(self, game):
        image = game.image()
        stacks = self.hal.stacks
        for i, cell in enumerate(game.cells()):
            look = EMPTY if not stacks[cell] else (UP if stacks[cell][0] else DOWN)
            if look != image[i]:
                return False
        return True

    # ---- playing ---------------------------------------------------------

    def play(self, max_actions=60):
        # Until the game is over or has max_actions actions.
        rig = self.rig
        rig.new(players=self.players, game=self.game_name, seed=self.rng.randrange(1 << 29))
        ctl = rig.ctl
        while len(ctl.session.game.history) < max_actions:
            game = ctl.session.game
            self._seen()
            if ctl.prompt is not None:
                self.answer(None)
                continue
            if not self.matches(game):
                self.arrange(game, None)
                self.run(50)
                continue
            who = game.to_move()
            if who == TERMINAL:
                return
            n = len(game.history)
            if who == CHANCE:
                if not self.until(lambda g=game, k=n: len(g.history) != k or ctl.prompt is not None):
                    self.stall()
                continue
            self.move(game)

    def stall(self):
        # The board did not react: the hands enter the move from the host.
        self.stalls += 1
        game = self.rig.ctl.session.game
        if self.rig.ctl.prompt is not None:
            return
        action = self.rng.choice(game.legal_actions())
        self.rig.send("enter", {"text": game.action_text(action)})

    def move(self, game):
        ctl = self.rig.ctl
        action = self.rng.choice(game.legal_actions())
        text = game.action_text(action)
        after = game.copy()
        after.apply(action)
        n = len(game.history)
        if after.image() == game.image():
            # A move the board cannot see: OK asks which (when other moves
            # could be seen). As a person does, press it on a settled board
            # and again when the board shows no reaction.
            reacted = False
            for _ in range(3):
                if _visible_moves(game):
                    self.until(lambda: self.hal.still(STILL_MS), STILL_MS)
                    self.rig.press("ok")
                if self.until(lambda: ctl.prompt is not None or len(game.history) != n, 3000):
                    reacted = True
                    break
            if not reacted:
                self.stall()
                return
            if ctl.prompt is not None:
                self.answer(text)
            return
        self.arrange(after, game)
        if not self.until(lambda: len(game.history) != n or ctl.prompt is not None):
            self.stall()
            return
        if ctl.prompt is not None and len(game.history) == n:
            self.answer(text)
        if len(game.history) > n:
            self.actions += 1
            got = game.action_text(game.history[n])
            if got != text:
                self.wrong.append((text, got))

    def answer(self, wanted):
        ctl = self.rig.ctl
        p = ctl.prompt
        game = ctl.session.game
        choices = [None if a is None else "takeback" if a == "takeback" else game.action_text(a)
                   for a in p.actions]
        if wanted not in choices:
            if p.kind == "decide" or p.kind == "chance":
                legal = [game.action_text(a) for a in game.legal_actions()]
                wanted = self.rng.choice([c for c in choices if c in legal] or [choices[0]])
            elif p.kind == "hidden":
                wanted = None
            else:
                # asked about a moment of the move: it closes by itself, or
                # the hands cancel it and lay the board out again
                if self.until(lambda: ctl.prompt is not p, 1000):
                    return
                wanted = None if None in choices else choices[0]
        self._closing = True
        self.frames += self.rig.send("answer", {"id": p.id, "choice": choices.index(wanted)})
        self._closing = False

    def report(self):
        return {"actions": len(self.rig.ctl.session.game.history), "moves": self.actions,
                "wrong": len(self.wrong), "stalls": self.stalls,
                "cancelled": self.cancelled, "takebacks": self.takebacks,
                "faults": only(self.rig.got, "error")}
