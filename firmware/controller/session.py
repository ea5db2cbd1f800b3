# The game session: the game being played, on which of the board's cells,
# and its log, which keeps what has been played through a power cut. A new
# game begins the log; at boot the log is replayed (from its last snapshot);
# a quiet cycle adds a snapshot now and then. The control cycle
# (control.py) commits and takes back actions: log first, then the game.

from turtles import BadSetup, GameError, game_class
from turtles.rng import Rng

from . import flows
from .computer import check_seats
from .frames import fit_text

SNAPSHOT_EVERY = 50    # a snapshot in the log after this many actions: boot replays fewer


class Session:
    def __init__(self, board, log, link, seed):
        self.board = board
        self.log = log
        self.link = link         # the log's troubles are reported as error frames
        self.rng = Rng(seed)     # picks each game's dice seed (new_seed())
        self.game = None
        self.name = None
        self.dice = "electronic"
        self.dice_seed = None    # the game's dice: its chance at action n is stream(n)
        self.stream_at = None    # (n, hi, lo): the dice stream's state after n steps, kept
        self.seats = None        # who plays each seat (None: people), as logged
        self.cell_map = []       # game cell -> board cell
        self.cells_in_order = False  # cell_map is 0, 1, 2, ...: the game's cells first on the board

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
        self.game = game
        self.name = name
        self.dice = dice
        self.dice_seed = seed
        self.stream_at = None
        self.seats = seats
        self.cell_map = cell_map
        self.cells_in_order = cell_map == list(range(len(cell_map)))

    def new_seed(self, now):
        # A game's dice seed (0..2**30-1), from the boot's seed stirred by
        # the moment of the `new`.
        rng = self.rng
        rng.stir(now)
        return (rng.next16() << 14) ^ rng.next16()

    def start(self, name, players, options, dice, seed, seats=None):
        # A new game, its header the log's first line. `seed`: its dice
        # (the host's, or new_seed()), kept in the header.
        game, cell_map = self.make_game(name, players, options)
        try:
            seats = check_seats(seats, players, name)
        except ValueError as e:
            raise BadSetup(str(e))
        extra = {"dice": dice, "seed": seed}
        if seats is not None:
            extra["seats"] = seats
        self.log.begin(name, players, game.options, extra)
        # The old log is gone, and what it lost with it: the host starting
        # this game had the report in its hello (its copy stays in <log>.bad).
        self.log.forget_report()
        self.install(name, game, cell_map, dice, seed, seats)

    def trouble(self, msg):
        # What the log lost, found at boot: said now and kept in the log's
        # report, which `hello` and `state` repeat until a host acknowledges
        # it (on a Pico nothing sent before a host is attached reaches anyone).
        try:
            self.log.add_report(msg)
        except Exception:  # the report only repeats what is said now
            pass
        self.link.error("log", msg)

    def restore(self):
        # At boot: replay the game in the log. True if there was one.
        try:
            header = self.log.scan()
        except Exception as e:
            self.trouble("the game log cannot be read (%s); start a new game" % (e,))
            return False
        if self.log.damage is not None:
            self.trouble(self.log.damage)
        if header is None:
            return False
        try:
            extra = header.get("extra") or {}
            dice = extra.get("dice", "electronic")
            game, cell_map = self.make_game(header["game"], header["players"], header["options"])
        except (GameError, KeyError, TypeError, AttributeError) as e:
            self.trouble("the game log holds no game this board can play (%s); start a new game" % (e,))
            return False
        game, bad = self.replay(header, game, True)
        if bad is not None and game.history.base:  # found again with every action held
            game, bad = self.replay(header, self.make_game(header["game"], header["players"], header["options"])[0], False)
        if bad is not None:  # keep the log to what the game is now
            self.trouble("%s; the log as it was %s" % (bad, self.log.keep_copy()[1]))
            try:
                self.log.begin(header["game"], header["players"], header["options"], extra)
                for action in game.history:
                    self.log.append(game.action_text(action))
            except Exception as e:
                self.trouble("the game log could not be rewritten (%s)" % (e,))
        try:
            seats = check_seats(extra.get("seats"), game.players, header["game"])
        except ValueError:
            seats = None  # a log from another firmware: people play every seat
        seed = extra.get("seed")
        if not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed < 0x40000000:
            seed = self.new_seed(0)  # a log from an older firmware: dice keyed from this boot on
        self.install(header["game"], game, cell_map, dice, seed, seats)
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
                    # (the text and the reason cut short: the report must still say where the log is kept)
                    bad = "the game log stops making sense at action %d (%s: %s); the game goes on before it" % (
                        len(game.history) + 1, fit_text(text, 40), fit_text(str(e), 120))
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

    def throw(self):
        # Electronic dice and cards, weighted by the rules. -> the chance action.
        # Chance belongs to the board: the outcome at action n is drawn from
        # stream(n), so a chance taken back and drawn again, or replayed
        # after a power cut, comes out the same.
        game = self.game
        return self.stream(len(game.history)).weighted(game.chance_outcomes())

    def stream(self, n):
        # The game's dice seed's xorshift stream stepped n times: its outputs
        # from there draw the chance at action n (consecutive outputs of one
        # stream, so the draws are as good as the PRNG's). The state is kept
        # and stepped on; a takeback or a boot starts again from the seed.
        at = self.stream_at
        r = Rng(self.dice_seed)
        if at is not None and at[0] <= n:
            r.hi = at[1]
            r.lo = at[2]
            i = at[0]
        else:
            i = 0
        while i < n:
            r.next16()
            i += 1
        self.stream_at = (n, r.hi, r.lo)
        return r

    def hash(self):
        return "%08x" % self.game.state_hash()
