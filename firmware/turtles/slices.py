# A search that thinks in slices of a few nodes (a node is one action
# tried), so a device can sense and light the board between slices. The
# search itself is a generator, search(), written as a plain recursive
# search that pauses before trying a node once the slice's nodes are spent.
# Then the line it is in (the actions tried from the root down to where it
# paused) is taken back, so between slices the game is exactly as it was,
# and tried again when the next slice starts. Where it pauses never changes
# what it finds: a slice is counted in nodes, never in time.

SLICE_NODES = 8  # nodes a slice at most (docs/bots.md: ~10 ms on a Pico)


class Sliced:
    def __init__(self, game, rng):
        self.game = game
        self.rng = rng
        self.nodes = 0
        self.action = None
        self.slice_nodes = SLICE_NODES
        self.pause_at = 0     # pause before trying a node once nodes reach this
        self.line = []        # the actions tried from the root, in order
        self.tokens = []      # and what takes each back
        self.run = self.search()

    def search(self):
        # A generator: yields (None) to pause; sets self.action and returns.
        raise NotImplementedError

    def step(self):
        # One slice; True when the choice is made (self.action).
        if self.action is not None:
            return True
        line = self.line
        tokens = self.tokens
        for i in range(len(line)):  # back to where the last slice paused
            tokens[i] = self.redo(line[i])
        self.pause_at = self.nodes + self.slice_nodes
        try:
            next(self.run)
        except StopIteration:
            return True
        except Exception:
            self.back()  # whatever went wrong, the game as it was
            raise
        self.back()  # until the next slice
        return False

    def back(self):
        # Take back the line (it stays, to be tried again).
        tokens = self.tokens
        i = len(tokens)
        while i > 0:
            i -= 1
            self.undo(tokens[i])

    # A step of the line tried again and taken back (a search may put
    # steps of its own on the line: expectimax.py).
    def redo(self, action):
        return self.game.try_action(action)

    def undo(self, token):
        self.game.take_back(token)

    def down(self, action):
        # Try an action, one step further down the line.
        self.line.append(action)
        self.tokens.append(self.game.try_action(action))
        self.nodes += 1

    def up(self):
        self.line.pop()
        self.game.take_back(self.tokens.pop())

    def choose(self, choices):
        # The choice among equally good actions, by the bot's own Rng.
        self.action = choices[0] if len(choices) == 1 else self.rng.choice(choices)
