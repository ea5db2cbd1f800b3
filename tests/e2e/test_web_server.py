"""The web page's server (Starlette's TestClient) against the virtual board:
keys, headers, the packaged files only, bad input, the rate limit, slow pages
dropped, a page that comes back in step, and each seat's own view only."""

from __future__ import annotations

import asyncio
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
        # (the test client's own host, as a browser's page of this server sends it)
        return self.client.websocket_connect("/k/%s/ws" % key, headers={"origin": "http://testserver"})

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
        with b.client.websocket_connect("/k/%s/ws" % table, headers={"origin": "http://evil.example"}) as ws:
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
        again = ws.receive_json()
        game = b.m.replica.game
        assert again["t"] == "state" and again["game"]["n"] == len(game.history) >= 2
        assert [m["text"] for m in again["game"]["moves"]] == [game.action_text(a) for a in game.history]


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
            frames = [ws.receive_text(), ws.receive_text()]
            pages[key] = (seat, frames)
    for key, (seat, frames) in pages.items():
        state = json.loads(frames[1])["game"]
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
