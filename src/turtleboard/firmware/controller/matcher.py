# Move recognition by position: what the board would show after each legal
# action. The candidates of a position are worked out a few at a time after
# the game changed (fill(), in the controller's spare cycles), or all at once
# when the board is read against them before that (finish()); then every
# cycle only compares bytes.

from turtles.game import EMPTY


def image_bytes(game):
    return bytes(game.image())


def image_after(game, action):
    # The board `action` leaves. The engine's own do and undo, without
    # writing the action into the game's packed history as push() does
    # (that costs ten times the move itself on the Pico).
    token = game._do(action)
    img = image_bytes(game)
    game._undo(token)
    return img


class Position:
    # The candidates of the game's current position (of `actions` when given:
    # none, for adding them one by one with add()).
    def __init__(self, game, actions=None):
        self.game = game
        self.image = image_bytes(game)
        self.groups = []  # [(image, [actions])], in legal-action order
        self.unseen = []  # player actions that leave the board as it is
        self._movable = None
        self._dest = {}   # lifted cells (tuple) -> destinations
        who = game.to_move()
        self.player = who >= 0
        # the actions still to add (a copy: an engine may reuse its list)
        if who < 0:
            self._todo = ()
        else:
            self._todo = list(game.legal_actions() if actions is None else actions)
        self._next = 0

    def done(self):
        # Are all the candidates known?
        return self._next >= len(self._todo)

    def fill(self):
        # Adds the next candidate; False when there was none left.
        if self._next >= len(self._todo):
            return False
        self.add(self.game, self._todo[self._next])
        self._next += 1
        return True

    def finish(self):
        while self.fill():
            pass

    def add(self, game, action):
        # One candidate: the board `action` leaves, with the others that
        # leave the same board.
        img = image_after(game, action)
        if img == self.image:
            self.unseen.append(action)
            return
        for other, actions in self.groups:
            if other == img:
                actions.append(action)
                return
        self.groups.append((img, [action]))

    def match(self, sensed):
        # The actions whose resulting board is `sensed` (an empty list if none).
        self.finish()
        for img, actions in self.groups:
            if img == sensed:
                return actions
        return []

    def lifted(self, sensed):
        # Cells from which a turtle was taken off (and nothing else changed),
        # or None when the board shows something else.
        out = []
        for i in range(len(sensed)):
            s = sensed[i]
            if s != self.image[i]:
                if s != EMPTY:
                    return None
                out.append(i)
        return out or None

    def destinations(self, lifted):
        # Empty cells where a legal action puts a turtle while it takes the
        # lifted turtle(s) off their cells. Kept per position.
        key = tuple(lifted)
        out = self._dest.get(key)
        if out is not None:
            return out
        self.finish()
        out = []
        cur = self.image
        for img, _ in self.groups:
            if _changes_all(img, cur, lifted):
                for i in range(len(img)):
                    if cur[i] == EMPTY and img[i] != EMPTY and i not in out:
                        out.append(i)
        out.sort()
        self._dest[key] = out
        return out

    def movable(self):
        # Cells whose turtle some legal action takes away. Kept per position.
        if self._movable is None:
            self.finish()
            out = []
            cur = self.image
            for img, _ in self.groups:
                for i in range(len(img)):
                    if cur[i] != EMPTY and img[i] == EMPTY and i not in out:
                        out.append(i)
            out.sort()
            self._movable = out
        return self._movable

    def nearest(self, sensed):
        # The one candidate board closest to `sensed`, if it is strictly
        # closer than the position itself; else the position's board.
        self.finish()
        best = self.image
        best_d = distance(sensed, best)
        tie = False
        for img, _ in self.groups:
            d = distance(sensed, img)
            if d < best_d:
                best, best_d, tie = img, d, False
            elif d == best_d and best is not self.image:
                tie = True
        return self.image if tie else best


def chains(game, sensed, depth=4, budget=200):
    # Sequences of 2..depth actions of the player to move, each changing the
    # board, whose end shows `sensed`: a Tortuga jump chain made in one go
    # (hop by hop the engine needs one action per hop). Explores at most
    # `budget` positions. -> [[action, ...], ...]
    who = game.to_move()
    out = []
    if who < 0:
        return out
    left = [budget]

    def walk(path, before):
        for action in game.legal_actions():
            if left[0] <= 0:
                return
            left[0] -= 1
            token = game._do(action)  # as image_after(), without the history
            img = image_bytes(game)
            if img != before:
                path.append(action)
                if len(path) > 1 and img == sensed:
                    out.append(list(path))
                elif len(path) < depth and game.to_move() == who:
                    walk(path, img)
                path.pop()
            game._undo(token)

    walk([], image_bytes(game))
    return out


def _changes_all(img, cur, cells):
    # Does `img` differ from `cur` on every one of `cells`? (A loop, not
    # all() over a generator: that costs a heap block per call.)
    for c in cells:
        if img[c] == cur[c]:
            return False
    return True


def distance(a, b):
    n = 0
    for i in range(len(a)):
        if a[i] != b[i]:
            n += 1
    return n


def diff(sensed, target):
    # -> (off, on, flip): cells to clear, to fill, to turn over.
    off = []
    on = []
    flip = []
    for i in range(len(target)):
        s = sensed[i]
        t = target[i]
        if s == t:
            continue
        if t == EMPTY:
            off.append(i)
        elif s == EMPTY:
            on.append(i)
        else:
            flip.append(i)
    return off, on, flip
