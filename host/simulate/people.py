"""The people at a simulated table: a family whose members each have a
manner drawn by the seed, playing game after game on every surface that
offers a verb (docs/simulation.md, docs/verbs.md).

They know what people at the table know: the game as the board shows and
says it (the table's tap of the board's frames), the lights, their cards
on their own phone. They move the pieces with their hands (the sim world)
and decide with the engine's random player; the pieces are moved with the
scripted hands' own planning (sim/hands.py: Hands.arrange, run on a copy
of the pieces), one touch at a time at the person's pace.
"""

from __future__ import annotations

import json
import random

from controller import flows
from turtleboard.connection.link import LinkError
from turtleboard.sim.hands import Hands, Timing, _visible_moves
from turtleboard.sim.world import World, WorldError
from turtleboard.simulate.clock import Until
from turtles import CHANCE, TERMINAL
from turtles.bots import random_action
from turtles.rng import Rng

# between moves, between two touches of one move (ms)
PACES = {"slow": ((3000, 8000), (300, 900)), "human": ((500, 3000), (100, 400)),
         "fast": ((50, 300), (20, 70))}
HOLD_MS = (60, 200)   # a button held down
ANSWER_MS = 10000     # a person waits this long for the board to take a move, a question to open
INSTANT = Timing(touch=(0, 0), hop=0, press=0)


class Manner:
    def __init__(self, rng: random.Random, keys: bool = False):
        self.pace = rng.choice(("slow", "human", "human", "fast"))
        self.hesitant = rng.random() < 0.25
        self.sloppy = rng.random() < 0.2
        self.impatient = rng.random() < 0.2
        self.cheating = rng.random() < 0.3  # (takes back a roll or card not liked: promise 4 is tried often)
        # where this person answers the board's questions, asks for hints, takes back
        # (and the terminal mirror's keys where the PC shows it)
        self.surface = rng.choice(("board", "board", "table", "seat") + (("keys", "keys") if keys else ()))

    def words(self) -> str:
        traits = [t for t in ("hesitant", "sloppy", "impatient", "cheating") if getattr(self, t)]
        return "%s%s, answers on the %s" % (self.pace, "".join(", " + t for t in traits), self.surface)


class Plan(World):
    """A copy of the pieces on which the hands plan a move: records what
    they do (World's own rules: nothing a person could not do)."""

    def __init__(self, world: World):
        import threading

        self.board = world.board
        self.lock = threading.RLock()
        self.stacks = world.pieces()
        self.hand = [list(p) for p in world.hand]
        self.held = []
        self.button_names = list(world.button_names)
        self._settling = {}
        self.bounce = False
        self.noise = 0
        self.follow = False
        self.clock = world.clock
        self.ops: list = []

    def _changed(self) -> None:
        pass

    def _write_buttons(self) -> None:
        pass

    def lift(self, cell, count=None):
        World.lift(self, cell, count)
        self.ops.append(("lift", cell, count))

    def lift_more(self, cell):
        World.lift_more(self, cell)
        self.ops.append(("lift_more", cell))

    def place(self, cell, count=None, up=None):
        World.place(self, cell, count, up)
        self.ops.append(("place", cell, count, up))

    def slide(self, src, dst, count=None):
        World.slide(self, src, dst, count)
        self.ops.append(("slide", src, dst, count))

    def flip(self, cell):
        World.flip(self, cell)
        self.ops.append(("flip", cell))

    def take(self, name="turtle", up=True):
        World.take(self, name, up)
        self.ops.append(("take", name, up))

    def put_away(self):
        World.put_away(self)
        self.ops.append(("put_away",))


def plan(world: World, target, before=None, along: bool = True) -> list:
    """The touches that make the pieces show `target` (a game state)."""
    p = Plan(world)
    hands = Hands(p, None, timing=INSTANT)
    hands.arrange(target, before, along=along)
    return p.ops


def do(world: World, op) -> None:
    getattr(world, op[0])(*op[1:])


class Person:
    def __init__(self, seat: int, rng: random.Random, keys: bool = False):
        self.seat = seat
        self.manner = Manner(rng, keys)
        self.refused = None  # a question its page may not answer (the page said why): the buttons then


class Family:
    """Everybody at the table, as one actor: whoever's turn it is acts."""

    def __init__(self, table):
        self.table = table
        self.rng = random.Random(table.seed * 7919 + 1)
        self.bot = Rng(table.seed or 1)
        self.people = [Person(i, self.rng, table.tui or table.console) for i in range(5)]
        self.wanted: str | None = None
        self.meant: dict = {}  # n -> the action the hands made (promise 6)
        self.key_sent = True  # the last key or console line went out
        self.page_of: dict = {}  # seat (None: the table, "watch") -> Page

    def person(self, seat: int) -> Person:
        """The person at `seat` (a sixth one joins for a six-player Race)."""
        while seat >= len(self.people):
            self.people.append(Person(len(self.people), random.Random(self.table.seed * 31 + seat),
                                      self.table.tui or self.table.console))
        return self.people[seat]

    # -- what the table sees --------------------------------------------------

    @property
    def tap(self):
        return self.table.tap

    def pause(self, person: Person, touch: bool = True) -> int:
        lo, hi = PACES[person.manner.pace][1 if touch else 0]
        return self.rng.randint(lo, hi)

    def changed(self, n: int, boots: int, changes: int | None = None):
        """The board answered: it booted, its game is at another count or
        asks a question; or (`changes`: the tap's count when the verb began)
        its game changed at all, as a take-back and a new action since do,
        which leave the count where it was (seed 2286)."""
        tap = self.tap
        return lambda: self.table.board.boots != boots or (changes is not None and tap.changes != changes) or (
            tap.ready() and (tap.replica.n != n or tap.prompt is not None))

    def changed_or_waits_for_ok(self, n: int, boots: int):
        """changed(), or the board's computer says it waits for OK after a takeback."""
        changed = self.changed(n, boots)
        return lambda: changed() or "OK lets it play" in str((self.tap.status or {}).get("text"))

    # -- playing --------------------------------------------------------------

    def run(self):
        table = self.table
        tap = self.tap
        yield Until(lambda: table.host.up, 60000)
        if table.pages is not None:
            table.clock.spawn("pages", self.open_pages(), self.rng.randint(0, 3000))
        while True:
            if not tap.known():
                yield Until(tap.known, 2000)
                continue
            game = tap.game
            if game is None or game.is_over():
                if game is not None and game.is_over():
                    table.stats["games"] += 1
                yield self.rng.randint(500, 5000)
                yield from self.new_game()
                continue
            if tap.prompt is not None:
                yield from self.answer(tap.prompt)
                continue
            if not self.board_matches(game):
                yield self.rng.randint(300, 1500)  # looking at the lights
                if tap.ready() and tap.prompt is None and not self.board_matches(tap.game):
                    yield from self.lay_out(tap.game)
                continue
            who = game.to_move()
            n, boots = len(game.history), table.board.boots
            cuts = table.promises.cuts
            if who == TERMINAL:
                continue
            seats = tap.seats or []
            if who == CHANCE or (0 <= who < len(seats) and seats[who] != "person"):
                if "OK lets it play" in str((tap.status or {}).get("text")):
                    # the board's computer waits after a takeback: somebody presses OK
                    yield self.rng.randint(300, 2000)
                    if "OK lets it play" in str((tap.status or {}).get("text")):
                        yield from self.press(self.person(0), "ok")
                    continue
                waits = self.changed_or_waits_for_ok(n, boots)
                if not (yield Until(waits, ANSWER_MS)) and table.promises.cuts == cuts:
                    # (the computer waiting after a takeback says so: a reason, and OK is pressed above)
                    table.promises.unanswered("board", "roll the dice / play the computer's move",
                                              "game at action %d" % n)
                continue
            if flows.decide_all(game.name):
                yield Until(self.changed(n, boots), ANSWER_MS)
                continue
            person = self.person(who)
            yield self.pause(person, touch=False)
            if not tap.ready() or tap.replica.n != n or tap.prompt is not None:
                continue
            yield from self.extras(person, game)
            if not tap.ready() or tap.replica.n != n or tap.prompt is not None:
                continue
            yield from self.move(person, tap.game)

    def board_matches(self, game) -> bool:
        return Hands(self.table.world, None).board_matches(game)

    def touches(self, person: Person, ops: list):
        world = self.table.world
        for op in ops:
            if self.table.trace:
                self.table.note("hands: player %d %s" % (person.seat + 1, " ".join(map(str, op))))
            try:
                do(world, op)
            except WorldError:
                return False
            yield self.pause(person)
        return True

    def lay_out(self, game):
        person = self.person(self.rng.randrange(game.players))
        world = self.table.world
        self.table.note("lays out the board as lit")
        # a move the board did not take (the power went before it could): the
        # hands now undo it, and what they meant by it is over (seed 603)
        n = len(game.history)
        for k in [k for k in self.meant if k > n]:
            del self.meant[k]
        if world.hand:
            world.put_away()
        yield from self.touches(person, plan(world, game, None, along=False))

    def choose(self, game) -> str:
        return game.action_text(random_action(game, self.bot))

    def move(self, person: Person, game):
        table = self.table
        world = table.world
        text = self.choose(game)
        after = game.copy()
        after.apply(game.parse_action(text))
        n, boots = len(game.history), table.board.boots
        cuts = table.promises.cuts
        hellos = self.tap.hellos  # the board that says hello during the move came back from a cut
        changes = self.tap.changes
        self.wanted = text
        if after.image() == game.image():
            # a decision the board cannot see: OK asks which move was made
            errors = table.promises.errors
            if _visible_moves(game):
                yield from self.press(person, "ok")
            changed = self.changed(n, boots, changes)
            # (a reason is an answer: OK with nothing to confirm says why)
            if not (yield Until(lambda: changed() or table.promises.errors != errors, ANSWER_MS)) \
                    and table.promises.cuts == cuts:
                table.promises.unanswered("board", "OK on a still board (a hidden move)",
                                          "player %d wanted %s" % (person.seat + 1, text))
            return
        table.note("player %d (%s) moves %s" % (person.seat + 1, person.manner.words(), text))
        ops = plan(world, after, game)
        if person.manner.hesitant and ops and ops[0][0] in ("lift", "slide") and self.rng.random() < 0.5:
            cell = ops[0][1]
            yield from self.touches(person, [("lift", cell, 1)])
            yield self.rng.randint(500, 3000)
            yield from self.touches(person, [("place", cell, None, None)])
        sloppy = person.manner.sloppy and self.rng.random() < 0.4
        if sloppy:
            ops = self.sloppy(ops)
        impatient = person.manner.impatient and self.rng.random() < 0.4
        for i, op in enumerate(ops):
            if impatient and i == len(ops) // 2:
                yield from self.press(person, self.rng.choice(("next", "ok")))
            ok = yield from self.touches(person, [op])
            if not ok:
                return
        self.meant[n + 1] = None if (sloppy or impatient) else text
        if not (yield Until(self.changed(n, boots, changes), ANSWER_MS)) and self.board_matches(after) \
                and table.promises.cuts == cuts and self.tap.hellos == hellos:
            # (the cable out or the power cut meanwhile: no frame could say it;
            # a board that booted during the move lights what it asks back, seed 719)
            table.promises.unanswered("board", "a move made on the board",
                                      "player %d made %s" % (person.seat + 1, text))

    def sloppy(self, ops: list) -> list:
        """The wrong cell first, then the right one; or a turtle put down flipped, then turned."""
        world = self.table.world
        out = []
        cells = list(world.board.cells)
        for op in ops:
            if op[0] == "place" and self.rng.random() < 0.5:
                wrong = self.rng.choice(cells)
                if wrong != op[1]:
                    out.append(("place", wrong, op[2], op[3]))
                    out.append(("lift", wrong, op[2] or None))
            out.append(op)
        return out

    def extras(self, person: Person, game):
        """What a person does besides moving: asks for a hint, cheats."""
        if self.rng.random() < 0.08:
            yield from self.verb(person, "hint")
        if not person.manner.cheating or not game.history:
            return
        # a take-back to get another roll or card: most of all right after
        # the board's dice or cards gave one they did not like
        if self.rng.random() < (0.5 if self.table.promises.last_by == "dice" else 0.2):
            yield from self.verb(person, "undo")

    # -- questions ---------------------------------------------------------------

    def wanted_choice(self, prompt: dict, game):
        choices = prompt.get("choices") or []
        kind = prompt.get("kind")
        if kind == "chance":
            return game.action_text(self.bot.weighted(game.chance_outcomes()))
        if self.wanted in choices:
            return self.wanted
        if kind == "decide":
            legal = [a for a in game.legal_actions() if game.action_text(a) in choices]
            return game.action_text(self.bot.choice(legal)) if legal else choices[0]
        if kind == "hidden":
            return "cancel" if "cancel" in choices else choices[-1]
        return None

    def answer(self, prompt: dict):
        table = self.table
        tap = self.tap
        game = tap.game
        who = game.to_move()
        person = self.person(who if who >= 0 else 0)
        yield self.pause(person, touch=False)
        if tap.prompt is None or tap.prompt.get("id") != prompt.get("id"):
            return
        prompt = tap.prompt
        want = self.wanted_choice(prompt, game)
        table.note("player %d answers %s %r: %s (on the %s)" % (
            who + 1, prompt.get("kind"), prompt.get("text"), want, person.manner.surface))
        if want is None:
            # about a moment of the move under way: it closes by itself
            pid = prompt.get("id")
            if not (yield Until(lambda: tap.prompt is None or tap.prompt.get("id") != pid, ANSWER_MS)):
                want = prompt["choices"][-1]
            else:
                return
        choices = prompt.get("choices") or []
        index = choices.index(want)
        surface = person.manner.surface
        if surface != "board" and table.pages is not None and person.refused != prompt.get("id"):
            page = self.page_for(surface, who)
            if page is not None and page.connected and page.reading and page.state is not None:
                replies = page.replies_n
                yield from self.page_verb(page, {"do": "answer", "id": prompt.get("id"),
                                                 "choice": index}, "answer")
                if any(r.get("t") == "error" and r.get("code") == "turn" for r in page.replies_since(replies)):
                    person.refused = prompt.get("id")  # read: "for another player"; the board's buttons next
                if person.manner.cheating and self.rng.random() < 0.3:
                    other = self.page_for("seat", (who + 1) % game.players)
                    if other is not None and other is not page:
                        yield from self.page_verb(other, {"do": "answer", "id": prompt.get("id"),
                                                          "choice": index}, "answer")
                return
        if surface == "keys" and (table.tui or table.console) and table.host.up and index < 10 \
                and person.refused != prompt.get("id"):
            yield from self.key_verb(person, "answer", index)
            if not self.key_sent:
                person.refused = prompt.get("id")  # the console said why: the board's buttons next
            return
        pid = prompt.get("id")
        boots = table.board.boots
        cuts = table.promises.cuts
        presses = 0

        def gone():  # the question is over, or the board lost power (a new boot numbers its own)
            return table.board.boots != boots or tap.prompt is None or tap.prompt.get("id") != pid

        while not gone() and tap.prompt.get("current") != index:
            current = tap.prompt.get("current")
            yield from self.press(person, "next")
            presses += 1
            if not (yield Until(lambda c=current: gone() or tap.prompt.get("current") != c, 2000)):
                if table.promises.cuts != cuts:
                    return
                table.promises.unanswered("board", "NEXT on an open question", prompt.get("text"))
                return
            if presses > len(choices) + 2:
                return
        if not gone():
            yield from self.press(person, "ok")
            if not (yield Until(gone, 2000)) and table.promises.cuts == cuts:
                table.promises.unanswered("board", "OK on an open question", prompt.get("text"))

    # -- surfaces -----------------------------------------------------------------

    def press(self, person: Person, name: str):
        world = self.table.world
        self.table.count("verbs", "press " + name, "board buttons")
        if self.table.trace:
            self.table.note("press %s (player %d)" % (name.upper(), person.seat + 1))
        world.press(name)
        yield self.rng.randint(*HOLD_MS)
        world.release(name)
        yield self.rng.randint(60, 150)

    def page_for(self, surface: str, seat):
        if surface == "table":
            return self.page_of.get("table")
        return self.page_of.get(seat)

    def verb(self, person: Person, verb: str):
        """hint or undo, from the person's surface."""
        table = self.table
        surface = person.manner.surface
        if surface != "board" and table.pages is not None:
            page = self.page_for(surface, person.seat)
            if page is not None and page.connected and page.reading:  # (a frozen phone is not used)
                yield from self.page_verb(page, {"do": verb}, verb)
                return
        if surface == "keys" and (table.tui or table.console) and table.host.up:
            yield from self.key_verb(person, verb)
            return
        if verb == "hint":
            tap = self.tap
            promises = table.promises
            hints, errors, cuts = promises.hints, promises.errors, promises.cuts
            yield from self.press(person, "next")
            if promises.cuts == cuts:  # (the cable pulled or the power cut during the press: no answer to come)
                promises.expect("board buttons", "NEXT for a hint", lambda: (
                    promises.hints != hints or promises.errors != errors or tap.prompt is not None),
                    "a hint or a reason")
        else:
            table.promises.expect_undo("board buttons", "UNDO")  # (what it finds before the press)
            yield from self.press(person, "undo")

    def key_verb(self, person: Person, verb: str, choice: int | None = None):
        """h (a hint), u (take back) or a digit (answer the question) on
        the terminal mirror, or the console's `hint`, `undo`, `answer N`;
        the effect or the board's reason must follow."""
        table = self.table
        tap = self.tap
        promises = table.promises
        if table.console:
            key = verb if choice is None else "answer %d" % (choice + 1)
            surface = "console"
        else:
            key = {"hint": "h", "undo": "u"}.get(verb) or str((choice + 1) % 10)
            surface = "mirror keys"
        table.count("verbs", verb, surface)
        if table.trace:
            table.note("player %d types %s on the %s" % (person.seat + 1, key, surface))
        hints, errors, prompt = promises.hints, promises.errors, tap.prompt
        if verb == "undo":
            promises.expect_undo(surface, key)
        elif verb == "hint":
            promises.expect(surface, key, lambda: (
                promises.hints != hints or promises.errors != errors or tap.prompt is not prompt),
                "a hint or a reason")
        else:
            pid = prompt.get("id")
            promises.expect(surface, key + " (an answer)", lambda: (
                promises.errors != errors or pid in promises.closed or tap.prompt is None
                or tap.prompt.get("id") != pid), "the question closed or a reason")
        sent = self.key_sent = table.host.type(key) if table.console else table.host.keys(key)
        if not sent:
            # not sent: the console printed why (`not sent: ...`, the board
            # unplugged, seed 823), or the mirror was not running to take the key
            promises.expects.pop()
        yield self.rng.randint(100, 600)

    def page_verb(self, page, msg: dict, verb: str):
        table = self.table
        table.count("verbs", verb, "page " + page.role)
        if table.trace:
            table.note("page %s sends %s" % (page.name, msg))
        table.promises.page_sent(page, msg)
        table.pages.send(page, msg)
        yield self.rng.randint(100, 600)

    def new_game(self):
        """Somebody starts a game: from a page's New game, else the host's dialog."""
        table = self.table
        page = None
        if table.pages is not None:
            live = [p for p in table.pages.pages if p.connected and p.role != "watch"
                    and p.received and p.received[0].get("t") == "hello"]
            if live:
                page = self.rng.choice(live)
        games = None
        if page is not None:
            games = page.received[0].get("games")
        if not games:
            from turtleboard.web.server import new_game_choices

            games = new_game_choices(table.board_def)
        g = self.rng.choice(games)
        chosen = {}
        for f in g["fields"]:
            values = [v[1] for v in f["values"]]
            if f["key"].startswith("seat") and "host" in values and self.rng.random() < 0.7:
                chosen[f["key"]] = "person"
                continue
            chosen[f["key"]] = self.rng.choice(values)
        msg = {"do": "new", "game": g["key"], "chosen": chosen}
        changes = self.tap.changes
        if page is not None:
            yield from self.page_verb(page, msg, "new")
        else:
            from turtleboard.web.server import new_game_payload

            payload = new_game_payload(g["key"], chosen, table.board_def)
            if table.console:  # no PC seats without play: the console's `send new {...}`
                if isinstance(payload.get("seats"), list):
                    payload["seats"] = ["person" if s == "host" else s for s in payload["seats"]]
                table.count("verbs", "new", "console")
                if not table.host.type("send new " + json.dumps(payload)):
                    yield 1000
                    return
            else:
                mirror = table.host.mirror
                if mirror is None or not mirror.link.listening:
                    yield 1000
                    return
                table.count("verbs", "new", "host dialog")
                try:
                    mirror.send("new", payload)
                except LinkError:  # the cable came out as it was sent: the dialog says so, nothing more
                    yield 1000
                    return
        yield Until(lambda: self.tap.changes != changes, 5000)
        self.wanted = None
        self.meant = {}

    def open_pages(self):
        """Every printed link opened, in any order, at any time."""
        table = self.table
        keys = ["table", "watch"] + list(range(5))
        self.rng.shuffle(keys)
        for key in keys:
            yield self.rng.randint(0, 20000)
            if not table.host.up or table.host.web is None:
                yield Until(lambda: table.host.up and table.host.web is not None, 60000)
            port = table.host.web_port
            if key in ("table", "watch"):
                page = table.pages.open(port, str(key), key, None, self.rng.choice(("en", "en", "fr")))
                self.page_of[key] = page
            else:
                page = table.pages.open(port, "seat%d" % (key + 1), "seat", key,
                                        self.rng.choice(("en", "en", "fr")))
                self.page_of[key] = page
            table.count("verbs", "open", "page " + page.role)
