"""The web server of the table's page: Starlette on uvicorn, in a thread of
its own beside the thread that reads the board.

    web = WebServer(mirror, board_def, lan=False, port=8765)
    web.start()                 # serving; web.links: [(who, url)]
    ...                         # whoever polls the mirror (the TUI, the demo's hands)
    web.stop()

Links: /k/<key>/ is a page, /k/<key>/ws its live WebSocket, /k/<key>/app.js
and style.css its only files (packaged, read once at start). A key is a role:
the table's shared page (sees what an onlooker sees, answers the board's
questions), a spectator (sees the same, cannot act) or a player's seat (sees
that player's view: their hand, their questions). On 127.0.0.1 the keys are
plain names (table, watch, seat1..); with `lan` the server listens on every
interface and every key is a random token: any other path gets 403. Every
request names this server in its Host header, or gets a 421 (DNS rebinding:
another site's name pointed at this computer): on 127.0.0.1 only localhost,
127.0.0.1 and [::1] with the server's port; with `lan` also any address
(an IP cannot be rebound) and this computer's own name.

The board's thread never waits on a page: a Mirror watcher notes the events
and wakes the server's loop (call_soon_threadsafe). The loop builds the state
of each role (the table's and spectators' pages, each seat's) and language
once per change, under the mirror's lock, and gives the same text to every
page of it: its writer sends the newest one (a state not sent yet is
replaced by a newer one). A page whose bounded queue fills up, or that
passes over too many states in a row (a slow or stalled client), is dropped.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import ipaddress
import json
import re
import secrets
import socket
import threading
import time
from importlib import resources

from starlette.applications import Starlette
from starlette.responses import PlainTextResponse, RedirectResponse, Response
from starlette.routing import Route, WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect

from turtleboard.web.views import (
    ground_of,
    page_state,
    private_choices,
    seat_in_play,
    seat_may_answer,
    takeback_owner,
)

MAX_SEATS = 5
SPACING = 0.1           # seconds between two states, unless the game moved: the LEDs and
                        # status that follow a move go out together, not one state each
QUEUE_MAX = 16          # messages waiting for one page; more and it is dropped
MESSAGE_MAX = 2048      # bytes of one message from a page
RATE = 4.0              # commands a second a page may send, on average
BURST = 8               # ... and at once
PLAY_MAX = 80           # characters of a card played (the protocol's `enter`)

CSP = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' blob:; "
       "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
HEADERS = [
    (b"content-security-policy", CSP.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),  # the links carry their token
    (b"cache-control", b"no-store"),
    (b"x-frame-options", b"DENY"),
]
STATIC = {"": ("index.html", "text/html; charset=utf-8"),
          "app.js": ("app.js", "text/javascript; charset=utf-8"),
          "style.css": ("style.css", "text/css; charset=utf-8")}


def load_static() -> dict:
    """The page's files, read once from the package: name -> (bytes, type)."""
    folder = resources.files("turtleboard.web").joinpath("static")
    return {name: (folder.joinpath(file).read_bytes(), kind) for name, (file, kind) in STATIC.items()}


LOCAL_NAMES = ("localhost", "127.0.0.1", "[::1]")
HOST = re.compile(r"(\[[0-9a-f:.]+\]|[a-z0-9.-]+)(?::([0-9]{1,5}))?")


def machine_names() -> set[str]:
    """This computer's own names as a phone on the network may type them:
    its host name, alone and with `.local` (mDNS)."""
    name = socket.gethostname().lower().rstrip(".")
    first = name.split(".")[0]
    return {n for n in (name, first, first + ".local") if n}


class Access:
    """Which key opens which role: (role, seat) with role table, watch or seat;
    and which names a request may give this server (its Host header)."""

    def __init__(self, lan: bool, seats: int = MAX_SEATS):
        self.lan = lan
        self.names = set(LOCAL_NAMES) | (machine_names() if lan else set())
        if lan:
            def make(_name):
                return secrets.token_urlsafe(16)
        else:
            def make(name):
                return name
        self.keys = {make("table"): ("table", None), make("watch"): ("watch", None)}
        for s in range(seats):
            self.keys[make("seat%d" % (s + 1))] = ("seat", s)

    def role(self, key: str):
        # (a dict lookup: the key is compared as a whole, never as a path)
        return self.keys.get(key)

    def key_of(self, role: str, seat=None) -> str:
        return next(k for k, v in self.keys.items() if v == (role, seat))

    def host_ok(self, host: str, port: int) -> bool:
        """Does a Host header name this server? Its port must be the one the
        request came in on (none: 80); the name a local one, or with `lan` an
        address or this computer's name."""
        m = HOST.fullmatch(host.strip().lower())
        if m is None or int(m.group(2) or 80) != port:
            return False
        name = m.group(1)
        if name in self.names:
            return True
        if not self.lan:
            return False
        try:
            ipaddress.ip_address(name[1:-1] if name.startswith("[") else name)
        except ValueError:
            return False
        return True

    def host_words(self) -> str:
        if self.lan:
            return "this computer's address or name"
        return "localhost, 127.0.0.1 or [::1]"


STATE = object()  # in a page's queue: "send its newest state now"


class Client:
    def __init__(self, ws, role: str, seat, lang: str):
        self.ws = ws
        self.role = role
        self.seat = seat
        self.lang = lang
        self.queue: asyncio.Queue = asyncio.Queue(QUEUE_MAX)
        self.last = ""          # the last state given it (unchanged states are not sent again)
        self.newest = None      # a state not sent yet: a newer one takes its place
        self.ground = None      # the id of the board's ground picture it has (or is about to get)
        self.ground_due = None  # ... that message, to go before its next state
        self.skipped = 0        # states passed over in a row (the page is that far behind)
        self.tokens = float(BURST)
        self.at = time.monotonic()
        self.dropped = False

    def allow(self) -> bool:
        """Rate limit: a token bucket of BURST commands, refilled at RATE a second."""
        now = time.monotonic()
        self.tokens = min(BURST, self.tokens + (now - self.at) * RATE)
        self.at = now
        if self.tokens < 1:
            return False
        self.tokens -= 1
        return True

    def offer(self, text) -> None:
        """Queue a message; a page that lets its queue fill up is dropped."""
        if self.dropped:
            return
        try:
            self.queue.put_nowait(text)
        except asyncio.QueueFull:
            self.drop()

    def offer_state(self, text: str, ground=None) -> None:
        """The page's newest state: it replaces one still waiting to go (a page
        shows the game as it is now, not each step it missed); a page that
        passed over QUEUE_MAX states in a row (a stalled phone) is dropped.
        `ground`: (id, message) of the board's ground picture it shows, sent
        first when the page has not got that one yet."""
        self.last = text
        if ground is not None and ground[0] != self.ground:
            self.ground, self.ground_due = ground
        if self.newest is not None:
            self.newest = text
            self.skipped += 1
            if self.skipped > QUEUE_MAX:
                self.drop()
            return
        self.newest = text
        self.offer(STATE)

    def drop(self) -> None:
        self.dropped = True
        self.newest = self.ground_due = None
        while not self.queue.empty():
            self.queue.get_nowait()
        self.queue.put_nowait(None)  # its writer closes it


class BadCommand(Exception):
    """A page's message that cannot be done: (code, words); nothing was sent."""

    def __init__(self, code: str, words: str):
        super().__init__(words)
        self.code = code


class Hub:
    """The pages and the board: states out, commands in."""

    def __init__(self, mirror, board_def, access: Access):
        self.mirror = mirror
        self.board_def = board_def
        self.access = access
        self.clients: set[Client] = set()
        self.loop = None
        self.wake = None
        self.notes: collections.deque = collections.deque(maxlen=256)  # from the board's thread
        self.asked: collections.OrderedDict = collections.OrderedDict()  # seq -> client
        self.hinted: collections.OrderedDict = collections.OrderedDict()  # a hint's seq -> client
        self.pictures: dict = {}
        self.made_for = None    # the version the states in `texts` are of
        self.texts: dict = {}   # (seat, or "out"; language) -> (its state's text, its ground)
        self.encoded: dict = {}  # a board picture -> its JSON text
        self.grounds: dict = {}  # a ground picture's id -> its message's text
        self.mark = secrets.token_hex(8)  # where a picture goes in a state's text
        self.shown = None       # (the game, its action count) of the last states
        self.sent = 0           # states given to pages (the bench counts them)
        self.built = 0          # states built
        self.dropped = 0

    # ---- the board's thread: must return at once ---------------------------

    def watch(self, events) -> None:
        for kind, data in events:
            if kind == "frame" and data.kind in ("error", "hint", "ok"):
                self.notes.append((data.kind, dict(data.payload)))
        loop = self.loop
        if loop is not None:
            try:
                loop.call_soon_threadsafe(self.wake.set)
            except RuntimeError:
                pass  # the server is stopping

    # ---- the server's loop --------------------------------------------------

    async def run(self) -> None:
        self.loop = asyncio.get_running_loop()
        self.wake = asyncio.Event()
        sent_at = -SPACING
        while True:
            await self.wake.wait()
            self.wake.clear()
            self.route_notes()
            wait = sent_at + SPACING - self.loop.time()
            if wait > 0 and not self.moved():
                # a state went out just now: this change (LEDs, status) goes with what follows it
                await asyncio.sleep(wait)
                self.wake.clear()
                self.route_notes()
            self.broadcast()
            sent_at = self.loop.time()

    def moved(self) -> bool:
        """Has the game moved (an action, a take-back, a new game) since the
        pages' last state? Such a change goes out at once."""
        game = self.mirror.replica.game
        return (id(game), len(game.history) if game is not None else -1) != self.shown

    def route_notes(self) -> None:
        while self.notes:
            kind, p = self.notes.popleft()
            client = self.asked.pop(p.get("re"), None) if kind in ("error", "ok") else None
            if kind == "error" and client is None:
                client = self.hinted.pop(p.get("re"), None)  # a hint the board cannot give: why
            if kind == "error" and client is not None:
                client.offer(json.dumps({"t": "error", "code": "board", "board": str(p.get("code"))[:40],
                                         "msg": str(p.get("msg"))[:300]}))
            elif kind == "hint":
                self.hint(p)

    def hint(self, p) -> None:
        game = self.mirror.replica.game
        text = json.dumps({"t": "hint", "player": p.get("player"), "text": str(p.get("text"))[:80]})
        for c in list(self.clients):
            # a hint in the Race dealt by the board plays from a hand: its player's only
            if game is None or not private_choices(game) or c.seat == p.get("player"):
                c.offer(text)

    def version(self) -> tuple:
        """All a page's state is made of, in brief: when it is unchanged, so
        are the states (call with the mirror's lock held)."""
        m = self.mirror
        rep = m.replica
        game = rep.game
        return (m.connected, rep.in_sync, rep.awaiting, (m.hello or {}).get("board"), id(game),
                len(game.history) if game is not None else -1, rep.hash(), repr(m.status),
                repr(m.prompt), repr(m.seats), tuple(m.leds))

    def state_text(self, c: Client, version: tuple) -> tuple:
        """The state for a page and the ground picture it shows, (text,
        (id, message) or None): built once per change (`version`) for each
        role (the table's and spectators' pages, each seat's; the seats outside
        the game share one) and language, and the same text given to every
        page of it. Call with the mirror's lock held."""
        if version != self.made_for:
            self.made_for = version
            self.texts = {}
        game = self.mirror.replica.game
        key = (c.seat if seat_in_play(game, c.seat) else "out", c.lang)
        got = self.texts.get(key)
        if got is None:
            self.built += 1
            state = page_state(self.mirror, self.board_def, c.seat, c.lang, self.pictures)
            got = self.texts[key] = (self.encode(state), self.ground(game, c.lang))
        return got

    def ground(self, game, lang: str):
        """(id, message text) of the game's ground picture in `lang` (the
        board under its turtles: sent to a page once, not with every state)."""
        if game is None:
            return None
        msg = ground_of(game, lang, self.pictures)
        text = self.grounds.get(msg["id"])
        if text is None:
            if len(self.grounds) > 8:
                self.grounds.clear()
            text = self.grounds[msg["id"]] = json.dumps(msg, separators=(",", ":"))
        return msg["id"], text

    def encode(self, state: dict) -> str:
        """A state's JSON text; its board pictures (most of its bytes, the same
        for every role) are encoded once each and put in by name."""
        g = state.get("game")
        parts = {}
        for name in ("svg", "svg_narrow"):
            svg = g.get(name) if g else None
            if svg is not None:
                if svg not in self.encoded:
                    if len(self.encoded) > 16:
                        self.encoded.clear()
                    self.encoded[svg] = json.dumps(svg)
                mark = "%s-%s" % (name, self.mark)  # (no text of the board's can know it)
                parts['"%s"' % mark] = self.encoded[svg]
                g[name] = mark
        text = json.dumps(state, separators=(",", ":"))
        for mark, encoded in parts.items():
            text = text.replace(mark, encoded, 1)
        return text

    def broadcast(self) -> None:
        with self.mirror.lock:
            version = self.version()
            game = self.mirror.replica.game
            self.shown = (id(game), len(game.history) if game is not None else -1)
            for c in list(self.clients):
                text, ground = self.state_text(c, version)
                if text is not c.last and text != c.last:
                    c.offer_state(text, ground)
                    self.sent += 1

    def send_state(self, c: Client) -> None:
        with self.mirror.lock:
            text, ground = self.state_text(c, self.version())
        c.offer_state(text, ground)

    # ---- one page --------------------------------------------------------

    async def serve(self, ws: WebSocket, role: str, seat, lang: str) -> None:
        await ws.accept()
        c = Client(ws, role, seat, lang)
        self.clients.add(c)
        writer = asyncio.create_task(self.write(c))
        try:
            c.offer(json.dumps({"t": "hello", "role": role, "seat": seat,
                                "games": new_game_choices(self.board_def)}))
            self.send_state(c)
            while True:
                text = await ws.receive_text()
                if c.dropped:
                    continue  # read on (a socket closed with unread bytes resets) until the close is done
                reply = self.handle(c, text)
                if reply is not None:
                    c.offer(json.dumps(reply))
        except (WebSocketDisconnect, RuntimeError, KeyError):
            pass  # gone, or a binary message: the page is closed either way
        finally:
            self.clients.discard(c)
            if not c.dropped:
                writer.cancel()  # (a dropped page's writer ends with its close frame)

    async def write(self, c: Client) -> None:
        try:
            while True:
                text = await c.queue.get()
                if text is None:
                    self.dropped += 1
                    await c.ws.close(1013, "too slow: reload the page")
                    return
                if text is STATE:
                    text, c.newest, c.skipped = c.newest, None, 0
                    if text is None:
                        continue
                    ground, c.ground_due = c.ground_due, None
                    if ground is not None:  # the board under the turtles first
                        await c.ws.send_text(ground)
                await c.ws.send_text(text)
        except Exception:
            self.clients.discard(c)

    def handle(self, c: Client, text: str):
        """A page's message -> the reply for that page (None: none)."""
        try:
            if len(text) > MESSAGE_MAX:
                raise BadCommand("bad", "a message of %d characters; at most %d" % (len(text), MESSAGE_MAX))
            try:
                msg = json.loads(text)
            except ValueError:
                raise BadCommand("bad", "a message that is not JSON")
            if not isinstance(msg, dict) or not isinstance(msg.get("do"), str):
                raise BadCommand("bad", "a message needs a \"do\": what to do")
            if msg["do"] == "lang":
                if msg.get("lang") not in ("en", "fr"):
                    raise BadCommand("bad", "the languages are en and fr")
                c.lang = msg["lang"]
                self.send_state(c)
                return None
            if c.role == "watch":
                raise BadCommand("watch", "this link only watches the game; a player's link can play")
            if not c.allow():
                raise BadCommand("rate", "too many commands at once: wait a moment")
            kind, payload = self.command(c, msg)
        except BadCommand as e:
            return {"t": "error", "code": e.code, "msg": str(e)}
        if kind == "sync":
            self.mirror.replica.sync_sent()
        try:
            seq = self.mirror.send(kind, payload)
        except Exception as e:  # the board is away: the page says so, nothing changed
            return {"t": "error", "code": "link", "msg": "not sent: %s" % e}
        self.asked[seq] = c
        while len(self.asked) > 64:
            self.asked.popitem(last=False)
        if kind == "hint":  # answered by `ok`, then the hint or an error saying why not
            self.hinted[seq] = c
            while len(self.hinted) > 16:
                self.hinted.popitem(last=False)
        return {"t": "sent", "do": msg["do"]}

    def command(self, c: Client, msg: dict):
        """The board command for a page's message, checked: (kind, payload)."""
        do = msg["do"]
        with self.mirror.lock:
            game = self.mirror.replica.game
            prompt = self.mirror.prompt
            who = game.to_move() if game is not None else None
            legal = game.legal_texts() if game is not None and who == c.seat and who is not None else []
            owner = takeback_owner(game, self.mirror.dice) if do == "undo" and game is not None \
                and c.seat is not None and game.history else None
        if do == "answer":
            if prompt is None:
                raise BadCommand("closed", "no question is open now")
            if msg.get("id") != prompt.get("id"):
                raise BadCommand("closed", "that question is over; here is the one open now")
            choice = msg.get("choice")
            n = len(prompt.get("choices") or [])
            if type(choice) is not int or not 0 <= choice < n:
                raise BadCommand("bad", "a choice is a number from 0 to %d" % (n - 1))
            if not seat_may_answer(game, prompt, c.seat):
                raise BadCommand("turn", "this question is for another player")
            return "answer", {"id": prompt["id"], "choice": choice}
        if do == "play":
            text = msg.get("text")
            if game is None or not private_choices(game):
                raise BadCommand("bad", "cards are played from a phone only in the Race dealt by the board")
            if c.seat is None or who != c.seat:
                raise BadCommand("turn", "it is not your turn")
            if not isinstance(text, str) or len(text) > PLAY_MAX or text not in legal:
                raise BadCommand("bad", "that card cannot be played now")
            return "enter", {"text": text}
        if do == "hint":
            if game is not None and private_choices(game) and c.seat != who:
                raise BadCommand("turn", "a hint comes on the phone of the player to move")
            return "hint", {}
        if do == "undo":
            # a player's page takes back that player's own action; the table's any
            if c.seat is not None and game is not None and game.history and owner != c.seat:
                raise BadCommand("undo", "a player's page takes back only that player's own last "
                                 "move; the table's page takes back any")
            return "undo", {}
        if do == "sync":
            return "sync", {}
        if do == "new":
            return "new", new_game_payload(msg.get("game"), msg.get("chosen"), self.board_def)
        raise BadCommand("bad", "%r is not something a page can do (answer, play, hint, undo, "
                         "new, sync, lang)" % do[:20])


# ---- a new game: the mirror's dialog, as data ---------------------------------

RACE_CARDS = ("option:mode", "cards", [("dealt by the board, each hand on its player's phone", "dealt"),
                                       ("real cards in the players' hands", "physical")], "dealt")


def board_games(board_def) -> list[str]:
    return [str(g) for g in (board_def or {}).get("games") or ["mahe", "race", "tortuga"]]


def new_game_choices(board_def) -> list[dict]:
    """The games this board plays, each with its fields (key, label, values, default)."""
    from turtleboard.games import GAMES
    from turtleboard.mirror.newgame import fields

    out = []
    for g in GAMES:
        if g.rules not in board_games(board_def):
            continue
        fs = [{"key": f.key, "label": f.label, "values": [[str(t), v] for t, v in f.values],
               "value": f.value} for f in fields(g.key)]
        if g.rules == "race":
            key, label, values, value = RACE_CARDS
            fs.insert(1, {"key": key, "label": label, "values": [list(v) for v in values], "value": value})
        out.append({"key": g.key, "title": g.title, "fields": fs})
    return out


def new_game_payload(key, chosen, board_def) -> dict:
    """The `new` command for a page's choices, each checked against its field."""
    from turtleboard.mirror.newgame import payload

    games = {g["key"]: g for g in new_game_choices(board_def)}
    if key not in games:
        raise BadCommand("bad", "this board plays %s" % ", ".join(games))
    if not isinstance(chosen, dict):
        raise BadCommand("bad", "a new game needs its choices")
    values = {}
    for f in games[key]["fields"]:
        v = chosen.get(f["key"], f["value"])
        if v not in [x[1] for x in f["values"]]:
            raise BadCommand("bad", "%s cannot be %r" % (f["label"], v))
        values[f["key"]] = v
    out = payload(key, values)
    if key == "race":
        out["options"]["mode"] = values["option:mode"]
        if out["options"]["mode"] == "dealt":
            out["dice"] = "electronic"  # the board deals: its own draws
    return out


# ---- the app ---------------------------------------------------------------


class HostCheck:
    """Requests that name another server in their Host header (a site whose
    name was pointed at this computer: DNS rebinding) get a 421, the
    WebSocket's handshake included (ASGI middleware)."""

    def __init__(self, app, access: Access):
        self.app = app
        self.access = access

    async def __call__(self, scope, receive, send):
        if scope["type"] not in ("http", "websocket"):
            return await self.app(scope, receive, send)
        host = dict(scope.get("headers") or []).get(b"host", b"").decode("latin-1")
        port = (scope.get("server") or (None, None))[1]
        if port is not None and self.access.host_ok(host, port):
            return await self.app(scope, receive, send)
        words = PlainTextResponse("421: this page is served under %s only (port %s); open the link "
                                  "the table printed" % (self.access.host_words(), port), 421)
        if scope["type"] == "http":
            return await words(scope, receive, send)
        ws = WebSocket(scope, receive, send)
        if "websocket.http.response" in scope.get("extensions") or {}:
            await ws.send_denial_response(words)
        else:
            await ws.close(1008)  # (a server without denial responses: a plain 403)


class Headers:
    """Security headers on every HTTP answer (ASGI middleware)."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)

        async def with_headers(message):
            if message["type"] == "http.response.start":
                message = dict(message)
                message["headers"] = list(message.get("headers", [])) + HEADERS
            await send(message)

        return await self.app(scope, receive, with_headers)


def make_app(hub: Hub, access: Access, static: dict | None = None) -> Starlette:
    files = static or load_static()
    denied = PlainTextResponse("403: this link needs its key (ask for the table's links)", 403)

    def same_origin(conn) -> bool:
        # a page of another site may not drive the board from this browser
        origin = conn.headers.get("origin")
        if origin is None:
            return True
        host = conn.headers.get("host", "").lower()
        return origin.lower() in ("http://" + host, "https://" + host)

    async def root(request):
        if access.lan:
            return denied
        return RedirectResponse("/k/table/", 303)

    async def page(request):
        if access.role(request.path_params["key"]) is None:
            return denied
        body, kind = files[""]
        return Response(body, media_type=kind)

    async def asset(request):
        if access.role(request.path_params["key"]) is None:
            return denied
        got = files.get(request.path_params["name"])
        if got is None or request.path_params["name"] == "":
            return PlainTextResponse("404: no such file", 404)
        return Response(got[0], media_type=got[1])

    async def live(ws: WebSocket):
        role = access.role(ws.path_params["key"])
        if role is None or not same_origin(ws):
            await ws.close(1008)  # before accept: the handshake is refused (403)
            return
        lang = ws.query_params.get("lang")
        await hub.serve(ws, role[0], role[1], lang if lang in ("en", "fr") else "en")

    async def nothing(request):
        return denied if access.lan else PlainTextResponse("404: nothing here", 404)

    @contextlib.asynccontextmanager
    async def lifespan(app):
        task = asyncio.create_task(hub.run())
        yield
        task.cancel()

    routes = [
        Route("/", root),
        Route("/k/{key}/", page),
        WebSocketRoute("/k/{key}/ws", live),
        Route("/k/{key}/{name}", asset),
        Route("/{rest:path}", nothing, methods=["GET", "HEAD", "POST", "PUT", "DELETE", "PATCH"]),
    ]
    app = Starlette(routes=routes, lifespan=lifespan)
    app.add_middleware(HostCheck, access=access)
    app.add_middleware(Headers)  # (the outer one: the 421 carries the headers too)
    return app


def lan_address() -> str:
    """This computer's address on the local network (no packet is sent)."""
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        s.connect(("10.255.255.255", 1))
        return s.getsockname()[0]
    except OSError:
        return "127.0.0.1"
    finally:
        s.close()


def board_seats(board_def) -> int:
    """The seats of a board: the most players any game it plays allows (each
    seat has its link from the start, whatever game is on the board)."""
    from turtles import BadSetup, game_class

    counts = []
    for rules in board_games(board_def):
        try:
            counts.append(game_class(rules).max_players)
        except BadSetup:
            pass  # (a game this host does not know: `board check` says so)
    return max(counts or [MAX_SEATS])


class WebServer:
    def __init__(self, mirror, board_def=None, lan: bool = False, port: int = 8765,
                 host: str | None = None):
        self.mirror = mirror
        self.seats = board_seats(board_def)
        self.access = Access(lan, self.seats)
        self.hub = Hub(mirror, board_def, self.access)
        self.host = host or ("0.0.0.0" if lan else "127.0.0.1")
        self.port = port
        self.server = None
        self.thread = None

    def start(self, timeout: float = 10.0) -> None:
        import uvicorn

        from turtleboard.errors import UserError

        app = make_app(self.hub, self.access)
        config = uvicorn.Config(app, host=self.host, port=self.port, log_level="error",
                                ws_max_size=MESSAGE_MAX * 2, ws_ping_interval=10, ws_ping_timeout=20,
                                ws_per_message_deflate=False, lifespan="on", access_log=False)
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, name="web", daemon=True)
        self.thread.start()
        end = time.monotonic() + timeout
        while not self.server.started:
            if not self.thread.is_alive() or time.monotonic() > end:
                raise UserError("the web page could not start on %s port %d (in use? pick "
                                "another with --web-port)" % (self.host, self.port))
            time.sleep(0.02)
        self.port = self.server.servers[0].sockets[0].getsockname()[1]
        self.mirror.watchers.append(self.hub.watch)
        self.hub.watch([])  # the first states

    def stop(self) -> None:
        if self.hub.watch in self.mirror.watchers:
            self.mirror.watchers.remove(self.hub.watch)
        if self.server is not None:
            self.server.should_exit = True
            self.thread.join(5)

    def url(self, role: str = "table", seat=None) -> str:
        host = lan_address() if self.access.lan else "127.0.0.1"
        return "http://%s:%d/k/%s/" % (host, self.port, self.access.key_of(role, seat))

    def links(self, in_play=None) -> list[tuple[str, str, str]]:
        """(who, url, note): the table, the spectators and every seat of the
        board; `in_play` (the game's player count) notes the seats outside it."""
        out = [("the table", self.url("table"), ""), ("spectators", self.url("watch"), "")]
        for s in range(self.seats):
            note = "" if in_play is None or s < in_play else (
                "not in this game: its page follows from the next game with player %d" % (s + 1))
            out.append(("player %d" % (s + 1), self.url("seat", s), note))
        return out

    def seats_words(self, in_play=None) -> str:
        """The players' links on one line: those in play, then the others."""
        seats = self.links(in_play)[2:]
        words = ", ".join(u for _w, u, note in seats if not note)
        others = [u for _w, u, note in seats if note]
        if others:
            words += "; not in this game (each follows from the next game with its player): " + ", ".join(others)
        return words

    def print_links(self, in_play=None, file=None, qr: bool | None = None) -> None:
        """The links of every seat the board has (`in_play`: the game's player
        count, said beside each seat outside it), each with a QR code to scan
        when on the network."""
        import sys

        file = file or sys.stdout
        qr = self.access.lan if qr is None else qr
        print("the table's web page: %s" % self.url("table"), file=file)
        if not qr:
            for who, url, note in self.links(in_play)[2:]:
                print("  %s: %s%s" % (who, url, "  (%s)" % note if note else ""), file=file)
            print("  spectators: %s" % self.url("watch"), file=file)
            return
        import segno

        for who, url, note in self.links(in_play):
            print("\n%s: %s%s" % (who, url, "  (%s)" % note if note else ""), file=file)
            segno.make(url, error="l").terminal(out=file, compact=True, border=2)
        print("\n(keep the table's link to yourself: it answers for everybody)", file=file, flush=True)
