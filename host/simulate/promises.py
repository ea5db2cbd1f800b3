"""The seven promises of the table, checked after every step of a
simulated table (docs/simulation.md):

1. nothing reported is lost (every action the board announced survives a power cut);
2. every view in step (the host's replica and every page show the board's game within 1 s);
3. every verb answered (its effect or a one-line reason within 2 s);
4. chance belongs to the board (a take-back never changes a die, a card,
   a deal; only the seat that acted, or the table, takes back from a page);
5. secrets stay secret (a page shows its own seat's view only);
6. the rules hold (every action replays in the engine; every commit is the move the hands meant);
7. bounded (threads, files, processes; nothing left behind).

A broken promise becomes a `Broken` in table.broken; the run stops there.
"""

from __future__ import annotations

import json
import os
import threading

from controller import frames

VIEW_MS = 1000     # promise 2
ANSWER_MS = 2000   # promise 3
REBOOT_GRACE_MS = 3000  # after a boot, the pieces have this long to commit a move again (promise 1)
THREADS_MAX = 60
FDS_MAX = 400
PORTS_MAX = 4       # the web server's
CHILDREN_MAX = 3    # the virtual Pico (and one being replaced)
GROWTH_MB = 200     # the simulator's process, since the table began
FIRMWARE_MB = 64    # the virtual Pico's process


class Broken(Exception):
    """A promise broken: its number, what happened, where (seed, step) and how to replay it."""

    def __init__(self, promise: int, what: str):
        Exception.__init__(self, "promise %d: %s" % (promise, what))
        self.promise = promise
        self.what = what
        self.seed = None
        self.step = None
        self.replay = None


def _norm(obj):
    return json.loads(json.dumps(obj))


class Expect:
    def __init__(self, surface: str, verb: str, done, detail: str, deadline: int):
        self.surface = surface
        self.verb = verb
        self.done = done
        self.detail = detail
        self.deadline = deadline


class Promises:
    def __init__(self, table):
        self.table = table
        self.announced: dict[int, str] = {}  # promise 1: n -> text, as the board announced it
        self.before_cut: dict[int, str] | None = None  # ... as it stood at the last power cut
        self.chance: dict = {}               # promise 4: (game, n, hash before) -> outcome
        self.expects: list[Expect] = []
        self.hints = 0
        self.undone = 0
        self.closed: set = set()
        self.errors = 0
        self.boot_check = None   # promise 1: when to look again after a boot
        self.behind: dict = {}   # promise 2: view -> since when it differs (None: in step)
        self.new_pending = False
        self.host_reader = frames.LineReader()
        self.game_id = 0
        self.cuts = 0  # power cuts and unplugs so far (what was asked before one has no answer to come)
        self.last_by = None  # who made the last action the board announced ("dice": its chance)
        table.tap.listeners.append(self.frame)
        table.board.host_tap = self.host_bytes

    # -- what happened --------------------------------------------------------

    def broken(self, promise: int, what: str) -> None:
        t = self.table
        b = Broken(promise, what)
        b.step = t.step_n
        b.seed = t.seed
        b.replay = t.replay_command()
        t.broken.append(b)
        t.note("BROKEN %s (seed %d, step %d): replay with: %s" % (b, t.seed, t.step_n, b.replay))

    def host_bytes(self, data: bytes) -> None:
        for line in self.host_reader.feed(data):
            if line is None or not frames.is_frame(line):
                continue
            try:
                _seq, kind, _payload = frames.decode(line.strip())
            except Exception:
                continue
            if kind == "new":
                self.new_pending = True

    def frame(self, f) -> None:
        kind, p = f.kind, f.payload
        tap = self.table.tap
        now = self.table.clock.now
        if kind == "action":
            n, text = p.get("n"), p.get("text")
            self.announced[n] = text
            was = (self.before_cut or {}).get(n)
            if was is not None and was != text:
                self.broken(1, "the board announced action %d as %s before a power cut; after it, "
                            "action %d is %s" % (n, was, n, text))
            self.last_by = p.get("by")
            if p.get("by") == "dice":
                self.check_chance(n, text)
            meant = self.table_family_meant(n)
            if p.get("by") == "sensors" and meant is not None and meant != text:
                self.broken(6, "the hands made %s but the board recorded %s (action %d)" % (meant, text, n))
            self.table.stats["actions"] += 1
        elif kind == "undone":
            self.undone += 1
            for k in [k for k in self.announced if k > p.get("n", 0)]:
                del self.announced[k]
            for k in [k for k in self.before_cut or () if k > p.get("n", 0)]:
                del self.before_cut[k]  # taken back on purpose after the boot: not lost
            fam = getattr(self.table, "family", None)
            if fam is not None:  # a move taken back: what the hands meant by it is over
                for k in [k for k in fam.meant if k > p.get("n", 0)]:
                    del fam.meant[k]
        elif kind == "state":
            if self.new_pending and p.get("n") == 0:
                self.new_pending = False
                self.announced = {}
                self.before_cut = None
                self.game_id += 1
                self.table.stats.setdefault("started", 0)
                self.table.stats["started"] += 1
        elif kind == "hint":
            self.hints += 1
        elif kind == "closed":
            self.closed.add(p.get("id"))
        elif kind == "error":
            self.errors += 1
        elif kind == "hello":
            self.boot_check = now + REBOOT_GRACE_MS
        if tap.ready() and kind in ("action", "undone", "synced"):
            self.consistent()

    def table_family_meant(self, n):
        fam = getattr(self.table, "family", None)
        return fam.meant.get(n) if fam is not None else None

    def consistent(self) -> None:
        """The board's game agrees with every action it announced (promise 1)."""
        game = self.table.tap.game
        if game is None:
            return
        texts = None
        for n, text in sorted(self.announced.items()):
            if n > len(game.history):
                break
            if texts is None:
                texts = [game.action_text(a) for a in _history(game)]
            if texts[n - 1] != text:
                self.broken(1, "the board announced action %d as %s; its game has %s there"
                            % (n, text, texts[n - 1]))
                return

    def check_chance(self, n: int, text: str) -> None:
        game = self.table.tap.game
        if game is None or len(game.history) != n:
            return
        before = game.copy()
        before.undo()
        key = (self.game_id, n, before.state_hash())
        old = self.chance.get(key)
        if old is not None and old != text:
            self.broken(4, "action %d drawn again after a takeback came out %s, it was %s"
                        % (n, text, old))
        self.chance[key] = text

    def host_lagged(self) -> None:
        """The table's time goes on without the host (it was not done after
        QUIET_WAIT_S of the machine's time: a loaded machine): neither a
        view nor an answer carried by the host is held to its time limit
        across it, that time being the machine's, not the table's."""
        self.behind.clear()
        now = self.table.clock.now
        for e in self.expects:
            e.deadline = max(e.deadline, now + ANSWER_MS)

    def power_cut(self, torn: bool = False) -> None:
        # what was announced must all come back (a second cut before the
        # check: what the first one found announced too)
        self.before_cut = dict(self.before_cut or {})
        self.before_cut.update(self.announced)
        self.boot_check = None
        self.behind.clear()  # the views are looked at again once the board is back
        self.expects = []  # what was asked of a board that lost power has no answer to come
        self.cuts += 1

    # -- verbs (promise 3) ---------------------------------------------------------

    def expect(self, surface: str, verb: str, done, detail: str) -> None:
        t = self.table
        self.expects.append(Expect(surface, verb, done, detail, t.clock.now + ANSWER_MS))

    def expect_undo(self, surface: str, verb: str) -> None:
        undone, errors, status = self.undone, self.errors, self.table.tap.status
        tap = self.table.tap
        self.expect(surface, verb, lambda: self.undone != undone or self.errors != errors
                    or tap.status is not status, "a takeback or a reason")

    def unanswered(self, surface: str, verb: str, detail) -> None:
        self.broken(3, "%s on the %s had no effect and no reason within %d s (%s)"
                    % (verb, surface, ANSWER_MS // 1000, detail))

    def page_sent(self, page, msg: dict) -> None:
        do = msg.get("do")
        replies = page.replies_n
        tap = self.table.tap
        undone, hints, changes, n = self.undone, page.hints_n, tap.changes, tap.replica.n
        joins = page.joins
        pid = msg.get("id")
        before_undo = None
        if do == "undo" and tap.game is not None and tap.game.history:
            g = tap.game.copy()
            g.undo()
            before_undo = g.to_move()

        def reply():
            return page.replies_since(replies)

        def done() -> bool:
            if not page.reading:
                return True  # its phone froze after it sent: the answer waits to be read
            if page.joins != joins or (not page.connected and not page.joining):
                return True  # its connection went (the host killed, say): the page says so (seed 607)
            got = reply()
            if any(r.get("t") == "error" for r in got):
                return True
            if not got:
                return False
            if do == "answer":
                return pid in self.closed or tap.prompt is None or tap.prompt.get("id") != pid
            if do == "undo":
                if self.undone != undone and page.role == "seat" and before_undo is not None \
                        and before_undo >= 0 and before_undo != page.seat:
                    self.broken(4, "seat %d's page took back action %d, made by player %d"
                                % (page.seat + 1, n, before_undo + 1))
                return self.undone != undone
            if do == "hint":
                return page.hints_n != hints
            if do in ("new", "play"):
                return tap.changes != changes
            return True

        self.expect("page " + page.role, do, done, json.dumps(msg)[:120])

    # -- after every step ------------------------------------------------------------

    def pages_quiet(self) -> bool:
        """Has every page that reads had its answers and the state its
        host would send it now?"""
        return next(self._pages_behind(), None) is None

    def pages_behind(self) -> str:
        """Which pages are not quiet, and why (for the table's log)."""
        return "; ".join(self._pages_behind())

    def _pages_behind(self):
        t = self.table
        if t.pages is None or not t.host.up or t.host.web is None:
            return
        cache: dict = {}
        for p in t.pages.pages:
            if not p.quiet():
                yield "%s: joining %s, asked %d, answered %d" % (p.name, p.joining, p.asked, p.answered)
            elif p.connected and p.reading and p.state_text != self.expected(p, cache):
                yield "%s: its state behind the host's" % p.name

    def expected(self, page, cache: dict) -> str:
        """The state the host's web server sends this page now (built by
        the server's own cache of states, once per change of the game)."""
        seat = page.seat if page.role == "seat" else None
        key = (seat, page.lang)
        if key not in cache:
            hub = self.table.host.web.hub
            m = self.table.host.mirror
            with m.lock:
                cache[key] = hub.state_text(_Reader(seat, page.lang), hub.version())[0]
        return cache[key]

    def check(self) -> None:
        t = self.table
        now = t.clock.now
        tap = t.tap
        # 6: the board's record replays in the engine
        if tap.unreplayable:
            self.broken(6, "the board's game does not replay in the engine: %s" % tap.unreplayable[0])
            return
        # 3: verbs
        still = []
        for e in self.expects:
            if e.done():
                continue
            if t.host.stalled or not t.host.up:
                e.deadline = max(e.deadline, now + ANSWER_MS)  # the answer waits for the host
            if now >= e.deadline:
                self.broken(3, "%s from the %s had no effect and no reason within %d s (%s)"
                            % (e.verb, e.surface, ANSWER_MS // 1000, e.detail))
                return
            still.append(e)
        self.expects = still
        # 1: after a boot, the announced actions are all back
        if self.boot_check is not None and now >= self.boot_check and tap.ready():
            self.boot_check = None
            n = tap.replica.n
            before, self.before_cut = self.before_cut or {}, None
            lost = sorted(k for k in before if k > n)
            if lost:
                self.broken(1, "after a power cut the board is at action %d; it had announced %s"
                            % (n, ", ".join("%d %s" % (k, before[k]) for k in lost)))
                return
            self.consistent()
        if not tap.ready():
            self.behind.clear()  # the board's game is not known yet: nothing to be in step with
            return
        # 2 and 5: the views
        host_live = (t.host.mirror is not None and t.host.up and not t.host.stalled
                     and t.host.link is not None and t.host.link.listening)
        self.view("host", host_live, lambda: t.host.in_step(tap), now)
        if t.pages is not None:
            for page in t.pages.pages:
                self.secrets(page)
                # a page sees the board through the host: looked at while the host is
                live = host_live and page.connected and page.reading and page.state is not None
                self.view("page " + page.name, live, lambda p=page: self.page_in_step(p), now)
        if t.step_n % 200 == 0:
            self.bounded()

    def view(self, name: str, live: bool, in_step, now: int) -> None:
        """Promise 2 for one view: out of step since the first step that
        saw it so (a change of the board's is seen at the step it comes),
        for longer than VIEW_MS."""
        if not live or in_step():
            self.behind[name] = None
            return
        since = self.behind.get(name)
        if since is None:
            self.behind[name] = now
        elif now - since > VIEW_MS:
            self.broken(2, "the %s has not shown the board's game (action %d) for %d ms"
                        % (name, self.table.tap.replica.n, now - since))

    def secrets(self, page) -> None:
        """Promise 5 on every state and hint a page got since the last
        step: a hint in a game of hidden hands only to its player, a
        question whose choices are a hand only to that player's page, and
        the view of the page's seat in each state of the board's game."""
        from turtleboard.web.views import private_choices

        msgs, page.unchecked = page.unchecked, []
        game = self.table.tap.game
        if game is None:
            return
        seat = page.seat if page.role == "seat" and page.seat < game.players else None
        private = private_choices(game)
        for msg in msgs:
            if msg.get("t") == "hint":
                if private and msg.get("player") != seat:
                    self.broken(5, "the %s page got player %s's hint in a game of hidden hands"
                                % (page.name, msg.get("player")))
                continue
            g = msg.get("game") or {}
            if not msg.get("in_step") or g.get("name") != game.name or g.get("n") != self.table.tap.replica.n:
                continue  # of another moment of the game: its view is not known here
            prompt = g.get("prompt") or {}
            if private and prompt.get("choices") and game.to_move() != seat \
                    and game.to_move() >= 0 and prompt.get("kind") != "chance":
                self.broken(5, "the %s page was shown the choices %s of player %d's hand"
                            % (page.name, prompt.get("choices"), game.to_move() + 1))
            want = _norm(game.view(seat))
            if g.get("view") != want and not self.table.tap.was_seen(game.name, g.get("n"), g.get("view"), seat, _norm):
                self.broken(5, "the %s page (seat %s) was sent the view %s; its seat's view is %s"
                            % (page.name, seat, json.dumps(g.get("view"))[:200], json.dumps(want)[:200]))

    def page_in_step(self, page) -> bool:
        tap = self.table.tap
        g = (page.state or {}).get("game")
        if g is None or not page.state.get("in_step"):
            return False
        if g.get("n") != tap.replica.n or g.get("name") != tap.game.name:
            return False
        seat = page.seat if page.role == "seat" else None
        if seat is not None and seat >= tap.game.players:
            seat = None  # a seat the game has not: an onlooker (docs/web.md)
        want = _norm(tap.game.view(seat))
        if g.get("view") != want:
            if tap.was_seen(tap.game.name, g.get("n"), g.get("view"), seat, _norm):
                return False  # a state of an earlier moment at this count (a take-back and another action since)
            self.broken(5, "the %s page (seat %s) shows the view %s; its seat's view is %s"
                        % (page.role, seat, json.dumps(g.get("view"))[:200], json.dumps(want)[:200]))
        return True

    # -- promise 7 ----------------------------------------------------------------

    def bounded(self) -> None:
        """Threads, files, listening ports, processes and memory of the
        table stay under their bounds while it runs."""
        use = usage()
        stats = self.table.stats
        for key, value in use.items():
            stats[key + "_max"] = max(stats.get(key + "_max", 0), value)
        first = stats.setdefault("rss_mb_first", use["rss_mb"])
        fw = firmware_rss_mb(self.table.board)
        stats["firmware_rss_mb_max"] = max(stats.get("firmware_rss_mb_max", 0), fw)
        for key, bound, what in (("threads", THREADS_MAX, "threads"), ("fds", FDS_MAX, "open files"),
                                 ("ports", PORTS_MAX, "listening ports"),
                                 ("children", CHILDREN_MAX, "processes started")):
            if use[key] > bound:
                self.broken(7, "%d %s in the simulator's process (at most %d)" % (use[key], what, bound))
                return
        if use["rss_mb"] - first > GROWTH_MB:
            self.broken(7, "the simulator's process grew by %d MB since the table began (at most %d)"
                        % (use["rss_mb"] - first, GROWTH_MB))
        elif fw > FIRMWARE_MB:
            self.broken(7, "the virtual Pico uses %d MB (at most %d)" % (fw, FIRMWARE_MB))

    def finish(self) -> None:
        self.bounded()

    def left_behind(self, before: dict) -> None:
        """After the table is closed: no thread, file, port or process of it remains."""
        use = usage()
        threads = [th.name for th in threading.enumerate()]
        stats = self.table.stats
        for key in ("fds", "threads", "ports", "children"):
            stats[key + "_left"] = use[key] - before[key]
        board = self.table.board
        port = self.table.host.web_port
        if board.child is not None and board.child.poll() is None:
            self.broken(7, "the virtual Pico (pid %d) still runs after the table closed" % board.child.pid)
        elif use["children"] > before["children"]:
            self.broken(7, "%d processes left after the table closed" % (use["children"] - before["children"]))
        elif use["fds"] - before["fds"] > 3:
            self.broken(7, "%d files left open after the table closed" % (use["fds"] - before["fds"]))
        elif use["threads"] - before["threads"] > 1:
            self.broken(7, "threads left after the table closed: %s" % ", ".join(threads))
        elif use["ports"] > before["ports"] or (port and listening(port)):
            self.broken(7, "the web server's port %s still listens after the table closed" % port)


def usage() -> dict:
    """What the simulator's process holds now (Linux's /proc)."""
    fds = os.listdir("/proc/self/fd") if os.path.isdir("/proc/self/fd") else []
    sockets = set()
    for fd in fds:
        try:
            target = os.readlink("/proc/self/fd/" + fd)
        except OSError:
            continue
        if target.startswith("socket:["):
            sockets.add(target[8:-1])
    ports = 0
    for name in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            with open(name) as f:
                for line in f.readlines()[1:]:
                    parts = line.split()
                    if len(parts) > 9 and parts[3] == "0A" and parts[9] in sockets:
                        ports += 1
        except OSError:
            pass
    return {"threads": threading.active_count(), "fds": len(fds), "ports": ports,
            "children": len(children()), "rss_mb": _rss_mb("/proc/self/status")}


def children() -> list[int]:
    me = str(os.getpid())
    out = []
    for pid in os.listdir("/proc") if os.path.isdir("/proc") else []:
        if not pid.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % pid) as f:
                stat = f.read()
        except OSError:
            continue
        if stat[stat.rindex(")") + 2:].split()[1] == me:
            out.append(int(pid))
    return out


def firmware_rss_mb(board) -> int:
    pid = board.firmware_pid()
    return _rss_mb("/proc/%d/status" % pid) if pid else 0


def _rss_mb(path: str) -> int:
    try:
        with open(path) as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) // 1024
    except (OSError, ValueError):
        pass
    return 0


def listening(port: int) -> bool:
    import socket

    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1):
            return True
    except OSError:
        return False


class _Reader:
    """Who a state is for, as the web server's Hub.state_text asks it."""

    def __init__(self, seat, lang: str):
        self.seat = seat
        self.lang = lang


def _history(game):
    """The game's actions from its start (a game resumed from a snapshot
    holds them behind its base)."""
    return list(game.history)
