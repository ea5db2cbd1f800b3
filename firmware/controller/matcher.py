# Move recognition by position: what the board would show after each legal
# action. A candidate is the cells its action changes on the board (cell,
# value, cell, value...: all the candidates' in one bytearray), found
# without doing the action where the engine can say (image_changes), else
# by doing and undoing it; they are worked out a few at a time after the
# game changed (fill(), in the controller's spare cycles), or all at once
# when the board is read against them before that (finish()). Whole
# images are made only where one is asked for (groups, nearest).

from array import array

from turtles.game import EMPTY


def image_bytes(game):
    return bytes(game.image())


def image_after(game, action, base=None):
    # The board `action` leaves (`base`: the game's image, if known).
    if base is None:
        base = image_bytes(game)
    return apply(base, changes_of(game, action, base))


def changes_of(game, action, base):
    # (cell, value, ...): the cells of `base` (the game's image) that
    # `action` changes, each once. From the engine where it can say; else
    # the engine's own do and undo, without writing the action into the
    # game's packed history as push() does (ten times the move itself on
    # the Pico).
    changes = game.image_changes(action)
    if changes is not None:
        return changes
    return _done(game, action, base)


def _done(game, action, base):
    token = game._do(action)
    img = game.image()
    game._undo(token)
    out = []
    for i in range(len(base)):
        if img[i] != base[i]:
            out.append(i)
            out.append(img[i])
    return tuple(out)


def apply(base, changes, start=0, end=-1):
    # `base` with the changes (cell, value, ...; those from start to end)
    if end < 0:
        end = len(changes)
    img = bytearray(base)
    i = start
    while i < end:
        img[changes[i]] = changes[i + 1]
        i += 2
    return bytes(img)


class Position:
    # The candidates of the game's current position. `actions` (a list of
    # its legal actions) and `image` (its board, bytes), where they are
    # known already, are taken as they are.
    def __init__(self, game, actions=None, image=None):
        self.game = game
        self.image = image_bytes(game) if image is None else image
        # The candidates' changes, one after another (a tuple a candidate
        # took ~1 KB of a Pico's heap in a Tortuga game): candidate k's are
        # cells[at[k]:at[k + 1]].
        self.cells = bytearray()
        self.at = array("H", [0])
        self.unseen = []   # player actions that leave the board as it is
        self._movable = None
        self._dest = {}    # lifted cells (tuple) -> destinations
        self.readied = {}  # candidate index -> its commit's words worked out ahead (ready())
        self.to_ready = []  # the candidates still to ready
        self._lifted = None  # the lifted cells they are the moves of
        who = game.to_move()
        self.player = who >= 0
        # the actions (a copy: an engine may reuse its list)
        if who < 0:
            self._todo = ()
        elif actions is None:
            self._todo = list(game.legal_actions())
        else:
            self._todo = actions
        self._next = 0

    def done(self):
        # Are all the candidates known?
        return self._next >= len(self._todo)

    def fill(self, n=1):
        # Adds the next n candidates (fewer if fewer are left); False when
        # there was none left.
        todo = self._todo
        k = self._next
        if k >= len(todo):
            return False
        end = min(k + n, len(todo))
        game = self.game
        base = self.image
        cells = self.cells
        at = self.at
        while k < end:
            action = todo[k]
            k += 1
            ch = game.image_changes(action)
            if ch is None:
                ch = _done(game, action, base)
            for v in ch:
                cells.append(v)
            at.append(len(cells))
            if not ch:
                self.unseen.append(action)
        self._next = k
        return True

    def finish(self):
        self.fill(len(self._todo))

    def seen(self):
        # Does some legal action change the board?
        self.finish()
        return len(self.unseen) < len(self._todo)

    @property
    def groups(self):
        # [(image, [actions])]: the boards the actions leave (unseen ones
        # left out), each with its actions, in legal-action order. Made
        # afresh each time (kept, they would hold ~3 KB of the heap).
        self.finish()
        out = []
        index = {}
        base = self.image
        cells = self.cells
        at = self.at
        for k in range(len(self._todo)):
            if at[k] < at[k + 1]:
                img = apply(base, cells, at[k], at[k + 1])
                j = index.get(img)
                if j is None:
                    index[img] = len(out)
                    out.append((img, [self._todo[k]]))
                else:
                    out[j][1].append(self._todo[k])
        return out

    def image_after(self, action):
        # The board `action` leaves (bytes).
        k = self._todo.index(action)
        if k >= self._next:
            self.fill(k + 1 - self._next)
        return apply(self.image, self.cells, self.at[k], self.at[k + 1])

    def match(self, sensed):
        # The actions whose resulting board is `sensed` (an empty list if none).
        self.finish()
        base = self.image
        cells = self.cells
        at = self.at
        out = []
        for k in range(len(at) - 1):
            a = at[k]
            b = at[k + 1]
            # shows the first change, then all of them, then nothing else
            if a < b and sensed[cells[a]] == cells[a + 1] and _shows(sensed, cells, a, b) and \
                    apply(base, cells, a, b) == sensed:
                out.append(self._todo[k])
        return out

    def match_lifted(self, sensed):
        # The actions whose board `sensed` shows but for turtles in the air
        # (cells empty where the action leaves a turtle: the next turtle
        # lifted, or this move's own lifted again to hop on). What the
        # pieces show besides must be the action's (decide.py asks it only
        # of a board that is not just turtles lifted off this position).
        self.finish()
        base = self.image
        cells = self.cells
        at = self.at
        out = []
        for k in range(len(at) - 1):
            a = at[k]
            b = at[k + 1]
            if a < b:
                after = apply(base, cells, a, b)
                for i in range(len(sensed)):
                    if sensed[i] != after[i] and sensed[i] != EMPTY:
                        break
                else:
                    out.append(self._todo[k])
        return out

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
        cells = self.cells
        at = self.at
        one = lifted[0] if len(lifted) == 1 else -1  # the usual case, looked for inline
        for k in range(len(at) - 1):
            a = at[k]
            b = at[k + 1]
            if one >= 0:
                i = a
                while i < b and cells[i] != one:
                    i += 2
                if i >= b:
                    continue
            elif not _changes_all(cells, a, b, lifted):
                continue
            for i in range(a, b, 2):
                c = cells[i]
                if cur[c] == EMPTY and cells[i + 1] != EMPTY and c not in out:
                    out.append(c)
        out.sort()
        self._dest[key] = out
        return out

    def ready_lifted(self, lifted):
        # The moves of the lifted turtle(s) are readied while it is in the
        # air (ready(), one a spare cycle), so that the cycle that commits one
        # only writes it and sends its frame. Another turtle lifted instead
        # has its own moves readied, and only those are kept.
        if lifted == self._lifted:
            return
        self._lifted = lifted
        self.readied = {}
        self.to_ready = []
        self.finish()
        at = self.at
        for k in range(len(at) - 1):
            if at[k] < at[k + 1] and _changes_all(self.cells, at[k], at[k + 1], lifted):
                self.to_ready.append(k)

    def ready(self, words):
        # Readies one candidate: what words(its text, the state hash after
        # it (text), whether it busts, whether its player moves again) makes
        # of them, found with the engine's own do and undo. False when none
        # is left to ready.
        if not self.to_ready:
            return False
        k = self.to_ready.pop()
        game = self.game
        action = self._todo[k]
        text = game.action_text(action)
        bust = game.busts(action)
        who = game.to_move()
        token = game._do(action)
        try:
            after = "%08x" % game.state_hash()
            again = game.to_move() == who
        finally:
            game._undo(token)
        self.readied[k] = words(text, after, bust, again)
        return True

    def moves_again(self, action):
        # Does the player of `action` move again after it (a hop on)? The
        # engine's do and undo (ready() finds it with the rest, ahead).
        game = self.game
        who = game.to_move()
        token = game._do(action)
        try:
            return game.to_move() == who
        finally:
            game._undo(token)

    def turns_over(self, action):
        # Does `action` leave a turtle changed (turned over) where one was?
        # Then its board proves it even with the turtles it put down lifted
        # again (decide.py's RESTORE, match_lifted()).
        k = self._todo.index(action)
        if k >= self._next:
            self.fill(k + 1 - self._next)
        cells = self.cells
        for i in range(self.at[k], self.at[k + 1], 2):
            if cells[i + 1] != EMPTY and self.image[cells[i]] != EMPTY:
                return True
        return False

    def readied_for(self, action):
        # What ready() worked out for `action`, or None.
        if not self.readied:
            return None
        return self.readied.get(self._todo.index(action))

    def movable(self):
        # Cells whose turtle some legal action takes away. Kept per position.
        if self._movable is None:
            self.finish()
            out = []
            cells = self.cells
            for i in range(0, len(cells), 2):
                c = cells[i]
                if cells[i + 1] == EMPTY and c not in out:
                    out.append(c)
            out.sort()
            self._movable = out
        return self._movable

    def nearest(self, sensed):
        # The one candidate board closest to `sensed`, if it is strictly
        # closer than the position itself; else the position's board.
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


def _shows(sensed, changes, start, end):
    # Does `sensed` show every one of the changes (from start to end)?
    for i in range(start, end, 2):
        if sensed[changes[i]] != changes[i + 1]:
            return False
    return True


def _changes_all(changes, start, end, cells):
    # Do the changes (from start to end) take in every one of `cells`? (A
    # loop, not all() over a generator: that costs a heap block per call.)
    for c in cells:
        i = start
        while i < end and changes[i] != c:
            i += 2
        if i >= end:
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
