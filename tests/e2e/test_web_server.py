"""The web page's server (Starlette's TestClient) against the virtual board:
keys, headers, the packaged files only, bad input, the rate limit, slow pages
dropped, a page that comes back in step, and each seat's own view only."""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import threading
import time

import pytest

from turtleboard.paths import BOARDS

pytest.importorskip("starlette", reason="the web extra: pip install 'turtleboard[web]'")

from starlette.testclient import TestClient  # noqa: E402
from starlette.websockets import WebSocketDisconnect  # noqa: E402

from turtleboard.web import server  # noqa: E402
from turtleboard.web.server import BURST, QUEUE_MAX, Access, Client, Hub, make_app  # noqa: E402

pytestmark = [pytest.mark.e2e, pytest.mark.micropython]

STATIC = server.load_static()


class Board:
    """A virtual board with a game, its mirror read by a thread, and an app."""

    def __init__(self, vdev, game="tortuga", players=2, options=None, lan=False):
        self.v = vdev(game, board=str(BOARDS / ("%s.json" % game)))
        self.world = self.v.open_world()
        self.m = self.v.mirror()
        self.m.link.command("new", {"game": game, "players": players, "options": options or {},
                                    "dice": "electronic", "seed": 7}, timeout=5)
        self.m.wait_synced(10)
        with open(self.v.board_path) as f:
            self.board_def = json.load(f)
        self.access = Access(lan)
        self.hub = Hub(self.m, self.board_def, self.access)
        self.m.watchers.append(self.hub.watch)
        self.client = TestClient(make_app(self.hub, self.access), base_url="http://127.0.0.1:8765")
        self.client.__enter__()
        self.stop = threading.Event()
        self.reader = None

    def read(self):
        """Read the board in a thread of its own (as the TUI does)."""
        def run():
            while not self.stop.is_set():
                self.m.poll(0.02)
        self.reader = threading.Thread(target=run, daemon=True)
        self.reader.start()

    def page(self, key="table"):
        # (this server's own name and origin, as a browser's page of it sends them)
        return self.client.websocket_connect("ws://127.0.0.1:8765/k/%s/ws" % key,
                                             headers={"origin": "http://127.0.0.1:8765"})

    def close(self):
        self.stop.set()
        if self.reader is not None:
            self.reader.join(5)
        self.client.__exit__(None, None, None)


@pytest.fixture
def board(vdev):
    made = []

    def make(*a, **kw):
        b = Board(vdev, *a, **kw)
        made.append(b)
        return b

    yield make
    for b in made:
        b.close()


def receive_until(ws, want, limit=200):
    for _ in range(limit):
        m = ws.receive_json()
        if want(m):
            return m
    raise AssertionError("no such message")


def receive_within(ws, want, seconds=30.0):
    """receive_until with a deadline in time: a message that never comes fails the test."""
    got = []
    reader = threading.Thread(target=lambda: got.append(receive_until(ws, want, 10_000)), daemon=True)
    reader.start()
    reader.join(seconds)
    assert got, "no such message within %.0f s" % seconds
    return got[0]


def test_pages_carry_a_strict_policy_and_only_the_packaged_files(board):
    b = board()
    for path in ("/k/table/", "/k/table/app.js", "/k/table/style.css", "/k/nope/", "/nothing"):
        r = b.client.get(path)
        csp = r.headers["content-security-policy"]
        assert "script-src 'self'" in csp and "unsafe" not in csp and "default-src 'none'" in csp
        assert r.headers["x-content-type-options"] == "nosniff"
        assert r.headers["referrer-policy"] == "no-referrer"
    assert b.client.get("/k/table/").content == STATIC[""][0]
    assert b.client.get("/k/table/app.js").content == STATIC["app.js"][0]
    for path in ("/k/table/server.py", "/k/table/..%2F..%2Fpyproject.toml", "/k/table/__init__.py",
                 "/k/table/static%2Fapp.js"):
        assert b.client.get(path).status_code in (403, 404), path
    assert b.client.post("/k/table/").status_code in (403, 404, 405)
    # the page itself: no inline script, no event attribute, no markup built from data
    html = STATIC[""][0].decode()
    assert re.findall(r"<script[^>]*>", html) == ['<script src="app.js" defer>']
    assert not re.search(r"\son\w+=", html)
    js = STATIC["app.js"][0].decode()
    for bad in ("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(", "new Function"):
        assert bad not in js, bad


def test_the_network_mode_needs_a_key_and_a_spectator_cannot_act(board):
    b = board(lan=True)
    b.read()
    for path in ("/", "/k/table/", "/k/watch/", "/k/seat1/", "/k/table/app.js"):
        assert b.client.get(path).status_code == 403, path
    table, watch = b.access.key_of("table"), b.access.key_of("watch")
    assert len(table) >= 20 and table != watch
    assert b.client.get("/k/%s/" % watch).status_code == 200
    with pytest.raises(WebSocketDisconnect):
        with b.page("table") as ws:
            ws.receive_json()
    out = b.m.link.frames_out
    with b.page(watch) as ws:
        hello = ws.receive_json()
        assert hello["role"] == "watch"
        for msg in ({"do": "undo"}, {"do": "hint"}, {"do": "new", "game": "tortuga", "chosen": {}},
                    {"do": "answer", "id": 1, "choice": 0}):
            ws.send_json(msg)
            got = receive_until(ws, lambda m: m["t"] == "error")
            assert got["code"] == "watch"
    assert b.m.link.frames_out == out  # nothing went to the board
    # a page of another site may not open the live link
    with pytest.raises(WebSocketDisconnect):
        with b.client.websocket_connect("ws://127.0.0.1:8765/k/%s/ws" % table,
                                        headers={"origin": "http://evil.example"}) as ws:
            ws.receive_json()


def test_bad_input_gets_a_clear_error_and_changes_nothing(board):
    b = board()
    b.read()
    with b.page() as ws:
        receive_until(ws, lambda m: m["t"] == "state")
        n, out = len(b.m.replica.game.history), b.m.link.frames_out
        for text, code, words in (
            ("not json", "bad", "not JSON"),
            ("[1, 2]", "bad", '"do"'),
            ('{"do": "fly"}', "bad", "not something a page can do"),
            ('{"do": "answer", "id": 99, "choice": 0}', "closed", "no question"),
            ('{"do": "play", "text": "red+"}', "bad", "Race dealt by the board"),
            ('{"do": "new", "game": "chess", "chosen": {}}', "bad", "this board plays"),
            ('{"do": "new", "game": "tortuga", "chosen": {"players": 9}}', "bad", "players cannot be 9"),
            ('{"do": "lang", "lang": "de"}', "bad", "en and fr"),
            ('{"do": "x", "pad": "%s"}' % ("x" * 3000), "bad", "at most"),
        ):
            ws.send_text(text)
            got = receive_until(ws, lambda m: m["t"] == "error")
            assert got["code"] == code and words in got["msg"], (text, got)
        assert b.m.link.frames_out == out and len(b.m.replica.game.history) == n
        # the board's own refusal comes back to the page that asked
        ws.send_json({"do": "undo"})
        got = receive_until(ws, lambda m: m["t"] == "error")
        assert got["code"] == "board" and "undo" in got["msg"]


def test_commands_are_rate_limited_per_page(board):
    b = board()
    b.read()
    with b.page() as ws:
        receive_until(ws, lambda m: m["t"] == "state")
        for _ in range(BURST * 3):
            ws.send_json({"do": "sync"})
        replies = [receive_until(ws, lambda m: m["t"] in ("sent", "error") and m.get("code") != "board")
                   for _ in range(BURST * 3)]
    sent = [r for r in replies if r["t"] == "sent"]
    limited = [r for r in replies if r.get("code") == "rate"]
    assert BURST <= len(sent) < BURST * 2 and len(sent) + len(limited) == BURST * 3


def test_a_slow_page_is_dropped_and_the_board_thread_never_waits():
    async def go():
        c = Client(None, "table", None, "en")
        for i in range(QUEUE_MAX):
            c.offer("state %d" % i)
        assert not c.dropped
        c.offer("one more")
        assert c.dropped and c.queue.qsize() == 1 and c.queue.get_nowait() is None
        c.offer("after")  # nothing more is kept for it
        assert c.queue.empty()
    asyncio.run(go())
    hub = Hub(None, None, Access(False))
    start = time.monotonic()
    for _ in range(10000):  # no loop yet, then a full deque: never blocks
        hub.watch([])
    assert time.monotonic() - start < 5


def test_a_page_that_comes_back_gets_the_game_as_it_is_now(board):
    b = board()
    hands = b.v.hands(b.m, seed=2)
    with b.page() as ws:
        first = receive_until(ws, lambda m: m["t"] == "state")
        assert first["game"]["n"] == 0
    hands.play(max_actions=2)  # the page is away meanwhile
    b.read()
    with b.page() as ws:
        assert ws.receive_json()["t"] == "hello"
        ground, again = ws.receive_json(), ws.receive_json()  # the board under the turtles, then the state
        game = b.m.replica.game
        assert ground["t"] == "ground" and again["t"] == "state" and again["game"]["ground"] == ground["id"]
        assert again["game"]["n"] == len(game.history) >= 2
        assert [m["text"] for m in again["game"]["moves"]] == [game.action_text(a) for a in game.history]


def test_a_page_gets_the_board_under_the_turtles_once_and_each_state_only_what_lies_on_it(board):
    # The board's ground (its cells and their words) goes to a page once a
    # game; a state carries the turtles, lit cells and marks alone, drawn
    # over it (a few KB, not the whole board again with every move).
    b = board()
    hands = b.v.hands(b.m, seed=3)
    got = []
    with b.page() as ws:
        got += [ws.receive_json() for _ in range(3)]
        hands.play(max_actions=3)
        b.read()
        n = len(b.m.replica.game.history)
        got.append(receive_within(ws, lambda m: got.append(m) or (m["t"] == "state" and m["game"]["n"] == n)))
    grounds = [m for m in got if m["t"] == "ground"]
    states = [m for m in got if m["t"] == "state"]
    assert [m["t"] for m in got[:3]] == ["hello", "ground", "state"]
    assert len(grounds) == 1 and len(states) >= 2, [m["t"] for m in got]
    ground = grounds[0]
    assert ground["svg"].count('class="label"') == 37 and "<use" not in ground["svg"]  # every cell's name
    for state in states:
        g = state["game"]
        assert g["ground"] == ground["id"]
        assert 'class="label"' not in g["svg"] and g["svg"].count('<use href="#shell"') >= 10, g["svg"][:300]
    # a page in French: the ground in its words
    with b.page() as ws:
        ws.receive_json()
        ws.send_json({"do": "lang", "lang": "fr"})
        fr = receive_until(ws, lambda m: m["t"] == "ground" and m["id"] != ground["id"])
        assert "sud : joueur 1" in fr["svg"] and fr["svg_narrow"].startswith("<svg")


def test_each_seat_of_the_race_dealt_by_the_board_gets_its_own_hand_only(board):
    b = board("race", 3, {"mode": "dealt"})
    hands = b.v.hands(b.m, seed=2)
    hands.computer = {0, 1, 2}
    hands.play(stop=lambda: b.m.replica.game.to_move() >= 0 and hands.board_matches(b.m.replica.game))
    b.read()
    game = b.m.replica.game
    with b.m.lock:
        held = [game.view(p)["hand"] for p in range(3)]
        who = game.to_move()
    pages = {}
    for key, seat in (("table", None), ("watch", None), ("seat1", 0), ("seat2", 1), ("seat3", 2)):
        with b.page(key) as ws:
            frames = [ws.receive_text(), ws.receive_text(), ws.receive_text()]  # hello, ground, state
            pages[key] = (seat, frames)
    for key, (seat, frames) in pages.items():
        state = json.loads(frames[2])["game"]
        v = state["view"]
        assert v["viewer"] == seat
        assert v["hand"] == (held[seat] if seat is not None else None)
        assert [c is not None for c in v["colours"]] == [p == seat for p in range(3)]
        assert state["legal"] == (b.m.replica.game.legal_texts() if seat == who else [])
        for raw in frames:
            assert not re.search(r"(draw|colour) [0-9a-z*^]", raw), key
            for p in range(3):
                if p != seat and held[p] != (held[seat] if seat is not None else None):
                    assert '"hand":' + json.dumps(held[p], separators=(",", ":")) not in raw
    # a card from the hand of a player whose turn it is not: refused, nothing sent
    other = (who + 1) % 3
    with b.page("seat%d" % (other + 1)) as ws:
        receive_until(ws, lambda m: m["t"] == "state")
        ws.send_json({"do": "play", "text": held[other][0]})
        assert receive_until(ws, lambda m: m["t"] == "error")["code"] == "turn"


def test_a_take_back_from_a_page_brings_the_same_draw_back_and_is_the_players_own(board):
    # The Race dealt by the board: a card played from a player's phone, the
    # card the board draws for it. Another player's page and a spectator
    # may not take it back; the player's own page and the table's may, and
    # the same card is drawn when the card is played again.
    b = board("race", 3, {"mode": "dealt"})
    hands = b.v.hands(b.m, seed=2)
    hands.computer = {0, 1, 2}  # the hands only make the moves the board lights

    def settled(n):
        def done():
            g = b.m.replica.game
            return len(g.history) == n and g.to_move() >= 0 and hands.board_matches(g)
        hands.play(stop=done)

    settled(15 + 3 + 5)  # the start stack, the colours, five cards each: all the board's
    game = b.m.replica.game
    n = len(game.history)
    who = game.to_move()
    card = game.legal_texts()[0]
    mine, other = "seat%d" % (who + 1), "seat%d" % ((who + 1) % 3 + 1)
    with b.page(mine) as ws:
        receive_until(ws, lambda m: m["t"] == "state")
        ws.send_json({"do": "undo"})  # nothing of this player's yet: the deal is the table's
        assert receive_until(ws, lambda m: m["t"] in ("error", "sent"))["code"] == "undo"
        ws.send_json({"do": "play", "text": card})
        assert receive_until(ws, lambda m: m["t"] in ("error", "sent"))["t"] == "sent"
    settled(n + 2)
    drawn = game.action_text(game.history[n + 1])
    assert drawn.startswith("draw ")
    for key, code in ((other, "undo"), ("watch", "watch")):
        with b.page(key) as ws:
            receive_until(ws, lambda m: m["t"] == "state")
            ws.send_json({"do": "undo"})
            got = receive_until(ws, lambda m: m["t"] in ("error", "sent"))
            assert got["t"] == "error" and got["code"] == code, (key, got)
    hands.sleep(300)
    assert len(game.history) == n + 2
    with b.page(mine) as ws:
        receive_until(ws, lambda m: m["t"] == "state")
        ws.send_json({"do": "undo"})
        assert receive_until(ws, lambda m: m["t"] in ("error", "sent"))["t"] == "sent"
    settled(n)  # the draw and the card that asked for it, both taken back
    assert card in game.legal_texts()
    with b.page(mine) as ws:
        receive_until(ws, lambda m: m["t"] == "state")
        ws.send_json({"do": "play", "text": card})
        receive_until(ws, lambda m: m["t"] in ("error", "sent"))
    settled(n + 2)
    assert game.action_text(game.history[n + 1]) == drawn  # the board's card, again
    with b.page("table") as ws:  # the table's page takes back anybody's
        receive_until(ws, lambda m: m["t"] == "state")
        ws.send_json({"do": "undo"})
        assert receive_until(ws, lambda m: m["t"] in ("error", "sent"))["t"] == "sent"
    settled(n)


def test_a_hint_from_the_page_comes_while_the_board_waits_for_the_turtles(board):
    # Mahé with real dice: `stop` answered, the turtles not yet moved; the
    # page's Hint gets the hint (or, once the game moved past it, why not).
    b = board("mahe", 2)
    b.m.link.command("new", {"game": "mahe", "players": 2, "dice": "physical"}, timeout=5)
    b.m.wait_synced(10)
    for text in ("e3", "first-1a", "d3", "stop", "d2", "stop"):
        b.m.link.command("enter", {"text": text}, timeout=5)
    b.read()
    with b.page("seat2") as ws:
        receive_until(ws, lambda m: m["t"] == "state")
        ws.send_json({"do": "hint"})
        got = receive_within(ws, lambda m: m["t"] in ("hint", "error"))
        assert got["t"] == "hint" and got["player"] == 1 and got["text"] in ("first-2a", "first-2b")
        b.m.send("enter", {"text": got["text"]})  # then chance decides:
        receive_within(ws, lambda m: m["t"] == "state" and m["game"]["n"] == 7)
        ws.send_json({"do": "hint"})
        got = receive_within(ws, lambda m: m["t"] in ("hint", "error"))
        assert got["t"] == "error" and "chance decides now" in got["msg"]


def raw_page(port: int, path: str):
    """A WebSocket page as a bare socket that reads only when told: (socket, send_text)."""
    import base64
    import os
    import socket

    s = socket.create_connection(("127.0.0.1", port), timeout=30)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    key = base64.b64encode(os.urandom(16)).decode()
    s.sendall(("GET %s HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
               "Sec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\n\r\n" % (path, port, key)).encode())
    head = b""
    while b"\r\n\r\n" not in head:
        head += s.recv(1)
    assert head.startswith(b"HTTP/1.1 101"), head

    def send_text(text: str) -> None:
        data, mask = text.encode(), os.urandom(4)
        s.sendall(bytes([0x81, 0x80 | len(data)]) + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(data)))

    return s, send_text


def frames_of(data: bytes) -> list[tuple[int, bytes]]:
    """(opcode, payload) of each whole frame the server sent (unmasked)."""
    import struct

    out, i = [], 0
    while i + 2 <= len(data):
        size, j = data[i + 1] & 0x7F, i + 2
        if size == 126:
            size, j = struct.unpack("!H", data[j:j + 2])[0], j + 2
        elif size == 127:
            size, j = struct.unpack("!Q", data[j:j + 8])[0], j + 8
        if j + size > len(data):
            break
        out.append((data[i] & 0x0F, data[j:j + size]))
        i = j + size
    return out


def test_a_page_that_stops_reading_is_dropped_with_a_close_frame_saying_try_again_later(board):
    from turtleboard.web.server import WebServer

    b = board()
    web = WebServer(b.m, b.board_def, port=0)
    web.start()
    try:
        s, send_text = raw_page(web.port, "/k/table/ws")
        deadline = time.monotonic() + 30
        while not web.hub.clients:
            assert time.monotonic() < deadline, "the page was never served"
            time.sleep(0.02)
        # the page asks for state after state (each language switch sends the
        # whole state again) and reads none of them: its queue fills up
        for i in range(600):
            send_text('{"do": "lang", "lang": "%s"}' % ("fr" if i % 2 == 0 else "en"))
        deadline = time.monotonic() + 60
        while any(not c.dropped for c in list(web.hub.clients)):
            assert time.monotonic() < deadline, "the page was never dropped"
            time.sleep(0.05)
        # the page reads again: what was sent, then a close frame with its code
        data = b""
        while not any(op == 8 for op, _ in frames_of(data)):
            got = s.recv(1 << 16)  # (a reset here: the server closed without a close frame)
            assert got, "the connection ended without a close frame"
            data += got
        close = [p for op, p in frames_of(data) if op == 8][0]
        assert int.from_bytes(close[:2], "big") == 1013, close
        s.close()
    finally:
        web.stop()


def newest_state(ws) -> dict:
    """The page's state as it is now: asked again (its language), read up to
    the error that a bad message sent after it gets."""
    ws.send_json({"do": "lang", "lang": "en"})
    ws.send_text("not json")
    state = None
    for _ in range(400):
        m = ws.receive_json()
        if m["t"] == "error":
            return state
        if m["t"] == "state":
            state = m
    raise AssertionError("no answer")


def test_each_role_state_is_built_once_per_change_and_the_same_text_goes_to_all_its_pages(board, monkeypatch):
    # Ten pages on the Race dealt by the board (2 players, a board of 5 seats):
    # the table's (3) and spectators' (2) pages share one state, each seat's
    # two pages theirs, the seats outside the game (4, 5) one. Each of those is
    # built once for each state of the board, however many pages show it, and
    # never again while nothing changes (a page joining, a wake for nothing);
    # every page of a role gets the same text, and a seat's hand reaches only
    # that seat's pages.
    b = board("race", 2, {"mode": "dealt"})
    hands = b.v.hands(b.m, seed=2)
    hands.computer = {0, 1}
    hands.play(stop=lambda: b.m.replica.game.to_move() >= 0 and hands.board_matches(b.m.replica.game))
    assert b.m.replica.game.legal_texts()
    builds = []

    def counted(mirror, board_def, seat, lang, pictures=None):
        game, rep = mirror.replica.game, mirror.replica
        role = "out" if seat is not None and seat >= game.players else seat
        builds.append((role, lang, len(game.history), rep.hash(), repr(mirror.status), repr(mirror.prompt),
                       tuple(mirror.leds), mirror.connected, rep.in_sync, rep.awaiting))
        return page_state(mirror, board_def, seat, lang, pictures)

    from turtleboard.web.views import page_state

    monkeypatch.setattr(server, "page_state", counted)
    keys = ["table", "table", "table", "watch", "watch", "seat1", "seat1", "seat2", "seat2", "seat4", "seat5"]
    with contextlib.ExitStack() as stack:
        pages = [stack.enter_context(b.page(k)) for k in keys]
        firsts = [receive_until(ws, lambda m: m["t"] == "state") for ws in pages]
        assert len(builds) == 4, builds  # the table's (and spectators'), seat 1's, seat 2's, the others'
        for _ in range(5):  # woken with nothing new: nothing built, nothing sent
            b.hub.watch([])
        # the board goes on: the player to move plays a card from their page,
        # the board lights the turtle it moves (a new status and LEDs)
        b.read()
        with b.m.lock:
            who, said = b.m.replica.game.to_move(), repr(b.m.status)
            card = b.m.replica.game.legal_texts()[0]
        pages[keys.index("seat%d" % (who + 1))].send_json({"do": "play", "text": card})
        end = time.monotonic() + 20
        while time.monotonic() < end and repr(b.m.status) == said:
            time.sleep(0.02)
        assert repr(b.m.status) != said, "the board never took the card"
        time.sleep(1.0)  # (it settles)
        lasts = [newest_state(ws) for ws in pages]
    assert len(builds) == len(set(builds)), [x for x in builds if builds.count(x) > 1][:3]
    roles = {"table": None, "watch": None, "seat1": 0, "seat2": 1, "seat4": "out", "seat5": "out"}
    for got in (firsts, lasts):
        by_role = {}
        for key, state in zip(keys, got):
            by_role.setdefault(roles[key], []).append(json.dumps(state, sort_keys=True))
        assert all(len(set(texts)) == 1 for texts in by_role.values()), by_role.keys()
    with b.m.lock:
        held = [b.m.replica.game.view(p)["hand"] for p in range(2)]
    assert held[0] != held[1]
    for key, state in zip(keys, lasts):
        hand = state["game"]["view"]["hand"]
        assert hand == (held[roles[key]] if roles[key] in (0, 1) else None), key
        assert state["game"]["seat_out"] == (roles[key] == "out")


def test_a_seat_link_beyond_the_games_players_sees_what_an_onlooker_sees(board):
    # Every seat's key works whatever the game (the links of a five-player
    # game are still open, or printed for it); in a three-player Race dealt
    # by the board the fourth and fifth seats hold no hand: their pages get
    # an onlooker's view, and the other pages keep getting the game.
    b = board("race", 3, {"mode": "dealt"})
    b.read()
    with b.page("seat5") as extra, b.page("table") as table:
        state = receive_until(extra, lambda m: m["t"] == "state")["game"]
        assert state["view"]["viewer"] is None and state["view"]["hand"] is None
        receive_until(table, lambda m: m["t"] == "state")
        table.send_json({"do": "new", "game": "race", "chosen": {"players": 2, "option:mode": "dealt"}})
        later = receive_until(extra, lambda m: m["t"] == "state" and m["game"]["players"] == 2)
        assert later["game"]["view"]["viewer"] is None
        assert receive_until(table, lambda m: m["t"] == "state" and m["game"]["players"] == 2)
