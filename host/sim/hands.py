"""Scripted hands: play a game physically on the virtual board.

The hands do what the people at the table do, nothing more. They know the rules
(their own engine copy: the host mirror's replica, kept in step from the
device's frames, as a player sees the dice and the board) and decide with a
script of actions or a simple bot. They lift, carry hop by hop, put down, stack
and flip turtles in the sim world and press the NEXT/OK buttons. They never
send an action to the device: it must recognise every move from its sensors.

    hands = Hands(world, mirror, seed=1, timing=FAST)
    hands.play()                  # to the end of the game
    hands.done                    # the action texts the game went through

Decisions the board cannot see (Mahé's roll or stop, a physical die, which of
several moves that look alike) are answered at the device's prompt: NEXT until
the wanted choice is the current one, then OK.

The hands never act on timing. Before each decision they wait for the device
to answer a `ping` (its answer comes after every frame it sent before, so the
mirror then shows the device as it is); a button is held down until the
device shows it reacted, and after it is let go the hands wait for two more
answers, so the device has seen it up before the next press. However busy
the machine, a press is never lost nor counted twice.
"""

from __future__ import annotations

import random
import time

from controller import flows
from turtleboard.connection.link import Disconnected
from turtleboard.sim.world import World
from turtles import CHANCE, TERMINAL
from turtles.bots import random_action
from turtles.game import DOWN, EMPTY, UP
from turtles.rng import Rng


class Timing:
    """How fast the hands are (milliseconds)."""

    def __init__(self, touch=(100, 300), hop=120, press=120, wait_s=20.0):
        self.touch = touch  # between two touches of the pieces
        self.hop = hop      # a carried turtle rests this long on each cell it passes
        self.press = press  # a button is held this long
        self.wait_s = wait_s  # longest wait for the device to answer


REAL = Timing()
BRISK = Timing(touch=(60, 120), hop=25, press=60)  # the demo: quick, still watchable
FAST = Timing(touch=(60, 90), hop=0, press=45, wait_s=15.0)  # tests

RELEASE_MS = 60  # longer up than the device's debounce (40 ms) before the next press
TRACK_GAMES = ("mahe", "race")  # a carried turtle passes the cells between


class HandsError(RuntimeError):
    """The device did not do what the hands' play called for."""


class Hands:
    def __init__(self, world: World, mirror, seed: int = 1, script: list[str] | None = None,
                 timing: Timing = FAST, hops: bool = True, slides: bool = True, log=None):
        self.world = world
        self.mirror = mirror
        self.rng = Rng(seed or 1)
        self.clock = random.Random(seed)
        self.script = list(script or [])
        self.timing = timing
        self.hops = hops
        self.slides = slides  # push turtles along a track (else lift, carry, put down)
        self.log = log or (lambda text: None)
        self.done: list[str] = []        # the game's actions as the device reported them
        self.made: list[str] = []        # what the hands did or chose (moves, prompt answers)
        self.wanted: str | None = None   # a decision waiting for its prompt
        self.on_event = None             # called with every mirror event (for the demo's view)
        self.boots = 0                   # hello frames seen (a device reboot sends one)
        # The computer's seats: the hands make its moves as the board lights
        # them and choose none. computer_turn(game, player) is called first
        # (the demo enters a host seat's move there).
        self.computer: set[int] = set()
        self.computer_turn = None
        self._answered: set[int] = set()  # seq numbers of the device's `ok` frames

    # -- the device, as a player sees it -----------------------------------------

    @property
    def game(self):
        return self.mirror.replica.game

    def pump(self, timeout: float = 0.02) -> None:
        for ev in self.mirror.poll(timeout):
            if ev[0] == "frame" and ev[1].kind == "hello":
                self.boots += 1
            if ev[0] == "frame" and ev[1].kind == "ok":
                self._answered.add(ev[1].payload.get("re"))
            if ev[0] == "frame" and ev[1].kind == "action":
                self.done.append(ev[1].payload.get("text"))
            elif ev[0] == "frame" and ev[1].kind == "undone":
                if self.done:
                    self.done.pop()
            if self.on_event is not None:
                self.on_event(ev)

    def ready(self) -> bool:
        rep = self.mirror.replica
        return rep.game is not None and rep.in_sync and not rep.awaiting

    def wait(self, until, what: str) -> None:
        end = time.monotonic() + self.timing.wait_s
        while not until():
            if time.monotonic() > end:
                raise HandsError("the board did not %s within %.0f s (status: %s)" % (
                    what, self.timing.wait_s, (self.mirror.status or {}).get("text")))
            self.pump(0.02)

    def settle(self) -> None:
        """Wait until the device answers a ping: every frame it sent before
        has then reached the mirror (a reboot on the way ends the wait)."""
        if not self.mirror.connected:
            return
        boots = self.boots
        try:
            seq = self.mirror.send("ping")
        except Disconnected:  # the mirror reconnects on its next poll
            return
        self.wait(lambda: seq in self._answered or self.boots != boots
                  or not self.mirror.connected, "answer a ping")
        self._answered.discard(seq)

    def sleep(self, ms: float) -> None:
        end = time.monotonic() + ms / 1000
        while True:
            left = end - time.monotonic()
            if left <= 0:
                return
            self.pump(min(left, 0.02))

    def touch_pause(self) -> None:
        self.sleep(self.clock.uniform(*self.timing.touch))

    # -- playing ----------------------------------------------------------------

    def play(self, max_actions: int | None = None, stop=None) -> None:
        """Play until the game is over (or `max_actions` more actions, or stop())."""
        self.wait(self.ready, "finish its sync")
        start = len(self.game.history)
        while True:
            self.pump(0.01)
            if not self.ready():
                continue
            self.settle()  # act on the device as it is, not as a late frame left it
            if not self.ready():
                continue
            game = self.game
            if stop is not None and stop():
                return
            if max_actions is not None and len(game.history) - start >= max_actions:
                return
            if self.mirror.prompt:
                self.answer_prompt(self.mirror.prompt)
                continue
            if not self.board_matches(game):
                self.lay_out(game)
                self.sleep(30)
                continue
            who = game.to_move()
            if who == TERMINAL:
                return
            if who == CHANCE:
                self.wait_change(len(game.history), "roll the dice")
                continue
            if who in self.computer:
                n = len(game.history)
                if self.computer_turn is not None:
                    self.computer_turn(game, who)
                self.wait_change(n, "play the computer's move")
                continue
            if flows.decide_all(game.name):
                # The board asks every decision itself (Mahé: roll or stop),
                # once it has read the board as the game has it: a player
                # waits for its question rather than moving the turtle (a
                # turtle moved before the board had read the last one put
                # right made it take the wrong decision).
                self.wait_change(len(game.history), "ask player %d's decision" % (who + 1))
                continue
            self.move(game)

    def wait_change(self, n: int, what: str) -> None:
        """Until the game has moved on from `n` actions, a prompt is open or the device rebooted."""
        boots = self.boots
        self.wait(lambda: self.boots != boots or (
            self.ready() and (len(self.game.history) != n or self.mirror.prompt)), what)

    def choose(self, game) -> str:
        if self.script:
            return self.script.pop(0)
        return game.action_text(random_action(game, self.rng))

    def move(self, game) -> None:
        text = self.choose(game)
        action = game.parse_action(text)
        after = game.copy()
        after.apply(action)
        n = len(game.history)
        if after.image() == game.image():
            # A decision the board cannot show: the device asks (decide), or
            # OK asks it when other moves could be made on the board.
            self.wanted = text
            self.log("decides %s" % text)
            if _visible_moves(game):
                boots = self.boots
                self.press_until("ok", lambda: self.boots != boots or not self.ready() or (
                    len(self.game.history) != n or self.mirror.prompt), "ask which move was made")
            self.wait_change(n, "ask which decision was made")
            return
        self.log("moves %s" % text)
        self.made.append(text)
        self.wanted = text
        self.arrange(after, game)
        boots = self.boots
        self.wait_change(n, "recognise %s" % text)
        if self.boots != boots:
            self.log("the board restarted; it goes on from its log")
            return
        if self.ready() and len(self.game.history) > n:
            got = self.game.action_text(self.game.history[n])
            if got != text:
                raise HandsError("the hands made %s but the board recorded %s" % (text, got))

    def answer_prompt(self, prompt: dict) -> None:
        choices = prompt.get("choices") or []
        kind = prompt.get("kind")
        game = self.game
        wanted = self.wanted
        if kind == "chance":
            wanted = self.script.pop(0) if self.script else game.action_text(
                self.rng.weighted(game.chance_outcomes()))
        elif wanted not in choices and self.script and self.script[0] in choices:
            wanted = self.script.pop(0)  # the script's next decision, asked before we moved
        elif wanted not in choices:
            if kind == "decide":
                legal = [a for a in game.legal_actions() if game.action_text(a) in choices]
                wanted = game.action_text(self.rng.choice(legal)) if legal else choices[0]
            elif kind == "hidden":
                wanted = "cancel"
            elif self._passing(prompt):
                return  # asked about a moment of the move the hands were making
            else:
                raise HandsError("the board asks %r with %s, but the hands made %s"
                                 % (prompt.get("text"), choices, self.wanted))
        if wanted not in choices:
            raise HandsError("the board offers %s, not %s" % (choices, wanted))
        want = choices.index(wanted)
        pid = prompt.get("id")
        self.log("answers %s: %s" % (kind, wanted))
        while self.mirror.prompt and self.mirror.prompt.get("id") == pid \
                and self.mirror.prompt.get("current") != want:
            current = self.mirror.prompt.get("current")
            self.press_until("next", lambda c=current: not self.mirror.prompt
                             or self.mirror.prompt.get("id") != pid
                             or self.mirror.prompt.get("current") != c, "show the next choice")
        if self.mirror.prompt and self.mirror.prompt.get("id") == pid:
            if kind != "move":
                self.made.append(wanted)
            self.press_until("ok", lambda: not self.mirror.prompt
                             or self.mirror.prompt.get("id") != pid, "close its prompt")
        self.wanted = None

    def press_until(self, name: str, reacted, what: str) -> None:
        """Hold a button down until the board shows `reacted()`, then let it go.

        Held, a button is one press however long the board takes to read it
        (a busy board reads it late, never twice); let go, the hands wait
        until the board has read it up (its debounce, then two ping answers:
        the second is read in a later cycle than the release)."""
        boots = self.boots
        self.world.press(name)
        try:
            self.sleep(self.timing.press)
            self.wait(lambda: reacted() or self.boots != boots, what)
        finally:
            self.world.release(name)
        self.sleep(max(self.timing.press, RELEASE_MS))
        self.settle()
        self.settle()

    def _passing(self, prompt: dict) -> bool:
        """Does a prompt the hands cannot answer close by itself (it was about
        a moment of the move the hands were making, and the board moved on)?"""
        try:
            self.wait(lambda: not self.mirror.prompt
                      or self.mirror.prompt.get("id") != prompt.get("id"), "close its prompt")
        except HandsError:
            return False
        return True

    # -- moving pieces ----------------------------------------------------------

    def board_matches(self, game) -> bool:
        image = game.image()
        stacks = self.world.stacks
        for i, cell in enumerate(game.cells()):
            if _look(stacks[cell]) != image[i]:
                return False
        return all(not stacks[c] for c in self.world.board.cells if c not in game.cells())

    def lay_out(self, game) -> None:
        """Make the board show the game (a start, a roll, a stop, a restore).

        As a person follows the lights: each turtle lifted and put down where
        it is lit, never pushed along the track. (Pushed through the cells
        between, a turtle the engine moved passes cells that a busy board,
        reading the track seldom, may see as the next player's move.)"""
        self.log("lays out the board")
        self.arrange(game, None, along=False)

    def arrange(self, target, before, along: bool = True) -> None:
        """Move pieces until the world shows `target` (a game state).

        Counts come from the game's stacks where it has them, so a turtle
        carried onto another lands on it; `before` (the state the move starts
        from) tells which way a carried turtle travels; `along` pushes or
        carries turtles along a track through the cells between (a player's
        own move), else they are lifted and put down."""
        world = self.world
        cells = target.cells()
        image = target.image()
        counts = _counts(target)
        want = {c: 0 for c in world.board.cells}
        for i, cell in enumerate(cells):
            want[cell] = counts[i] if image[i] != EMPTY else 0
        have = {c: len(world.stacks[c]) for c in world.board.cells}
        order = list(world.board.cells)
        surplus = [c for c in order if have[c] > want[c]]
        deficit = [c for c in order if have[c] < want[c]]
        up_of = {cell: image[i] == UP for i, cell in enumerate(cells)}
        for src in surplus:
            extra = have[src] - want[src]
            if along and self.slides and target.name in TRACK_GAMES:
                # Along a track turtles are pushed from cell to cell, never held up.
                while extra and deficit:
                    dst = deficit[0]
                    k = min(extra, want[dst] - len(world.stacks[dst]))
                    self.slide(src, dst, k, target)
                    extra -= k
                    self.touch_pause()
                    if len(world.stacks[dst]) >= want[dst]:
                        deficit.pop(0)
                if not extra:
                    continue
            world.lift(src, extra)
            self.touch_pause()
            while world.hand:
                if not deficit:
                    world.put_away()
                    self.touch_pause()
                    break
                dst = deficit[0]
                k = min(len(world.hand), want[dst] - len(world.stacks[dst]))
                if along:
                    self.carry(src, dst, target)
                world.place(dst, k, up=up_of.get(dst, True) if not world.stacks[dst] else None)
                self.touch_pause()
                if len(world.stacks[dst]) >= want[dst]:
                    deficit.pop(0)
        for dst in deficit:
            while len(world.stacks[dst]) < want[dst]:
                world.take()
                world.place(dst, 1, up=up_of.get(dst, True) if not world.stacks[dst] else None)
                self.touch_pause()
        for i, cell in enumerate(cells):
            stack = world.stacks[cell]
            if stack and _look(stack) != image[i]:
                if len(stack) == 1:
                    world.flip(cell)
                else:
                    world.lift(cell)
                    self.touch_pause()
                    world.place(cell, up=image[i] == UP)
                self.touch_pause()

    def slide(self, src: str, dst: str, count: int, game) -> None:
        """Push turtles along the track to `dst`, passing the free cells between."""
        at = src
        for cell in self._between(src, dst, game):
            self.world.slide(at, cell, count)
            if self.timing.hop:
                self.sleep(self.timing.hop)
            at = cell
        self.world.slide(at, dst, count)

    def _between(self, src: str, dst: str, game) -> list[str]:
        cells = game.cells()
        if not self.hops or src not in cells or dst not in cells:
            return []
        a, b = cells.index(src), cells.index(dst)
        step = 1 if b > a else -1
        return [cells[i] for i in range(a + step, b, step) if not self.world.stacks[cells[i]]]

    def carry(self, src: str, dst: str, game) -> None:
        """Hop by hop along a track: rest the carried turtles on the free cells between."""
        if game.name not in TRACK_GAMES:
            return
        for cell in self._between(src, dst, game):
            self.world.place(cell)
            if self.timing.hop:
                self.sleep(self.timing.hop)
            self.world.lift(cell)
            if self.timing.hop:
                self.sleep(self.timing.hop)


def _look(stack: list) -> int:
    return EMPTY if not stack else (UP if stack[0][1] else DOWN)


def _counts(game) -> list[int]:
    """Turtles per cell: from the game's stacks where it keeps them, else 1 per shown cell."""
    image = game.image()
    stacks = getattr(game, "stacks", None)
    out = []
    for i in range(len(image)):
        n = 1 if image[i] != EMPTY else 0
        if isinstance(stacks, list) and len(stacks) == len(image) and isinstance(stacks[i], list):
            n = max(n, len(stacks[i])) if n else 0
        out.append(n)
    return out


def _visible_moves(game) -> bool:
    """Does some legal move change what the board shows?"""
    image = game.image()
    for action in game.legal_actions():
        game.push(action)
        changed = game.image() != image
        game.undo()
        if changed:
            return True
    return False
