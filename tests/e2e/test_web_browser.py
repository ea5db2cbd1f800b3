"""The table's web page in a real browser (Debian's chromium driven by
Playwright) against the virtual board: games watched live, a question
answered from the page, the Race dealt by the board played from the players'
own pages with every message to every page checked for the others' cards,
a spectator refused, the network mode refused without its key."""

from __future__ import annotations

import json
import os
import re
import threading
import time

import pytest

from turtleboard.paths import BOARDS

pytestmark = [pytest.mark.e2e, pytest.mark.micropython, pytest.mark.browser]

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 800}
SHOTS = os.environ.get("TURTLEBOARD_SHOTS", "/tmp")


@pytest.fixture(scope="module")
def browser():
    if not os.path.exists(CHROMIUM):
        pytest.skip("no %s: apt-get install -y chromium" % CHROMIUM)
    sync_api = pytest.importorskip("playwright.sync_api", reason="pip install playwright (the dev extra)")
    with sync_api.sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield b
        b.close()


class Table:
    """A virtual board with a game, its mirror, the web page, and whoever
    reads the board: scripted hands (play) or a plain reader (pump)."""

    def __init__(self, vdev, game, players, options=None, lan=False):
        from turtleboard.web.server import WebServer

        self.v = vdev(game, board=str(BOARDS / ("%s.json" % game)))
        self.world = self.v.open_world()
        self.m = self.v.mirror()
        self.m.link.command("new", {"game": game, "players": players, "options": options or {},
                                    "dice": "electronic", "seed": 7}, timeout=5)
        self.m.wait_synced(10)
        with open(self.v.board_path) as f:
            board_def = json.load(f)
        self.web = WebServer(self.m, board_def, lan=lan, port=0)
        self.web.start()
        self.stop = threading.Event()
        self.thread = None
        self.failed = []

    def in_thread(self, fn) -> None:
        def run():
            try:
                fn()
            except Exception as e:  # shown by the test that waits on it
                self.failed.append(e)
        self.thread = threading.Thread(target=run, daemon=True)
        self.thread.start()

    def pump(self) -> None:
        self.in_thread(lambda: [self.m.poll(0.02) for _ in iter(self.stop.is_set, True)])

    def hands(self, **kw):
        return self.v.hands(self.m, seed=3, **kw)

    def n(self) -> int:
        g = self.m.replica.game
        return len(g.history) if g is not None else 0

    def close(self) -> None:
        self.stop.set()
        if self.thread is not None:
            self.thread.join(20)
        self.web.stop()


@pytest.fixture
def table(vdev):
    made = []

    def make(*a, **kw):
        t = Table(vdev, *a, **kw)
        made.append(t)
        return t

    yield make
    for t in made:
        t.close()


class Traffic:
    """Everything the server sent one page: WebSocket frames and HTTP bodies."""

    def __init__(self, page):
        self.frames: list[str] = []
        self.bodies: dict[str, bytes] = {}
        page.on("websocket", lambda ws: ws.on("framereceived", self.frame))
        page.on("response", self.response)

    def frame(self, payload) -> None:
        self.frames.append(payload if isinstance(payload, str) else payload.decode())

    def response(self, r) -> None:
        try:
            self.bodies[r.url] = r.body()
        except Exception:
            self.bodies[r.url] = b""

    def states(self) -> list[dict]:
        return [m for m in map(json.loads, self.frames) if m.get("t") == "state"]

    def ground(self, state: dict) -> dict:
        """The ground pictures (the board under the turtles) a state shows."""
        return [m for m in map(json.loads, self.frames) if m.get("t") == "ground"
                and m["id"] == state["game"]["ground"]][-1]


def open_page(browser, url, size=PHONE, lang="en-GB"):
    ctx = browser.new_context(viewport=size, locale=lang)
    page = ctx.new_page()
    traffic = Traffic(page)
    page.goto(url)
    page.wait_for_selector("#turn:not(:empty)")
    return page, traffic


def wait_until(cond, what, timeout=30.0, table=None):
    end = time.monotonic() + timeout
    while not cond():
        if table is not None and table.failed:
            raise table.failed[0]
        if time.monotonic() > end:
            raise AssertionError("timed out waiting for " + what)
        time.sleep(0.02)


def moves_shown(page) -> list[str]:
    """The moves listed, as the record writes them (each line says it in words)."""
    return page.eval_on_selector_all("#moves li[data-text]", "els => els.map(e => e.dataset.text)")


def test_a_tortuga_game_watched_live_on_a_phone_and_a_pc(browser, table):
    t = table("tortuga", 2)
    phone, _ = open_page(browser, t.web.url())
    desk, _ = open_page(browser, t.web.url("watch"), DESKTOP)
    hands = t.hands()

    def history() -> list[str]:
        with t.m.lock:
            game = t.m.replica.game
            return [game.action_text(a) for a in game.history]

    # one move at a time: each is on the page before the next is made, so the
    # page follows the game as it goes, not only at the end
    for _ in range(6):
        before = len(history())
        hands.play(max_actions=1)
        texts = history()
        assert len(texts) > before
        last = texts[-6:]
        wait_until(lambda last=last: moves_shown(phone)[-len(last):] == last, "the page to show %r" % texts[-1], 60)
    game = t.m.replica.game
    texts = history()
    assert len(texts) >= 6
    # every move, in order, and whose turn it is
    assert moves_shown(phone)[-6:] == texts[-6:]
    assert "player %d" % (game.to_move() + 1) in phone.text_content("#turn")
    assert desk.is_hidden("#tools")  # a spectator's page has no buttons
    phone.screenshot(path=os.path.join(SHOTS, "web-tortuga-phone.png"), full_page=True)
    desk.screenshot(path=os.path.join(SHOTS, "web-tortuga-desktop.png"))
    # French, from the switch; the board's words too
    phone.click("#lang")
    phone.wait_for_function("document.documentElement.lang === 'fr'")
    assert "Derniers coups" in phone.text_content("#movestitle")
    assert "de jouer" in phone.text_content("#turn") or "À vous" in phone.text_content("#turn")


def test_a_mahe_question_answered_from_the_page(browser, table):
    t = table("mahe", 2)
    page, _ = open_page(browser, t.web.url("seat", 0), lang="fr-FR")
    hands = t.hands()
    # the hands lay out the board and play until the board asks a question
    t.in_thread(lambda: hands.play(stop=lambda: t.m.prompt is not None))
    wait_until(lambda: not t.thread.is_alive(), "the board's first question", 120, t)
    t.pump()
    prompt = t.m.prompt
    n = t.n()
    assert prompt is not None and prompt["kind"] == "decide", prompt
    assert page.text_content("#title") == "Mahé" and page.is_visible("#ask")
    page.wait_for_selector("#choices button:not([disabled])")
    choice = page.get_attribute("#choices button >> nth=0", "data-choice")
    assert choice == prompt["choices"][0]
    page.screenshot(path=os.path.join(SHOTS, "web-mahe-phone-fr.png"), full_page=True)
    page.click("#choices button >> nth=0")
    wait_until(lambda: t.n() > n, "the answer to reach the board", 20, t)
    game = t.m.replica.game
    assert game.action_text(game.history[n]) == choice
    page.wait_for_function("t => [...document.querySelectorAll('#moves li')].some(e => e.dataset.text === t)",
                           arg=choice)
    # a French page: the board's words and the moves in French too
    words = page.inner_text("body")
    assert not ENGLISH.findall(words.replace("NEXT", "")), ENGLISH.findall(words)
    page.screenshot(path=os.path.join(SHOTS, "web-mahe-phone-fr-answered.png"), full_page=True)


def test_a_bad_message_gets_an_error_on_its_page_and_a_spectator_cannot_act(browser, table):
    t = table("tortuga", 2)
    t.pump()
    watch, _ = open_page(browser, t.web.url("watch"))
    n = t.n()
    # a spectator's page, made to send an undo and a new game by hand
    for msg in ({"do": "undo"}, {"do": "new", "game": "tortuga", "chosen": {}}):
        got = watch.evaluate("""msg => new Promise(done => {
            const ws = new WebSocket(location.href.replace('http', 'ws') + 'ws');
            ws.onmessage = ev => { const m = JSON.parse(ev.data); if (m.t === 'error') { done(m); ws.close(); } };
            ws.onopen = () => ws.send(JSON.stringify(msg));
        })""", msg)
        assert got["code"] == "watch", got
    seat, _ = open_page(browser, t.web.url("seat", 1))
    got = seat.evaluate("""() => new Promise(done => {
        const ws = new WebSocket(location.href.replace('http', 'ws') + 'ws');
        ws.onmessage = ev => { const m = JSON.parse(ev.data); if (m.t === 'error') { done(m); ws.close(); } };
        ws.onopen = () => ws.send('{"do": "answer", "id": "x"');
    })""")
    assert got["code"] == "bad" and "JSON" in got["msg"]
    time.sleep(0.3)
    assert t.n() == n and t.m.replica.in_sync  # nothing changed on the board


def test_the_network_mode_refuses_every_request_without_its_key(browser, table):
    t = table("tortuga", 2, lan=True)
    t.pump()
    ctx = browser.new_context()
    page = ctx.new_page()
    base = "http://127.0.0.1:%d" % t.web.port
    for path in ("/", "/k/table/", "/k/watch/", "/k/seat1/app.js", "/static/app.js", "/k/x/ws"):
        r = page.goto(base + path)
        assert r.status == 403, path
        assert "Turtle" not in r.text() or "403" in r.text()
    # the right key opens the page (the link as printed, with this computer's address)
    key = t.web.access.key_of("watch")
    r = page.goto(base + "/k/%s/" % key)
    assert r.status == 200
    page.wait_for_selector("#turn:not(:empty)")
    # a WebSocket with a wrong key gets no game
    got = page.evaluate("""() => new Promise(done => {
        const ws = new WebSocket(location.origin.replace('http', 'ws') + '/k/wrong/ws');
        ws.onmessage = () => done('message');
        ws.onerror = () => done('refused');
        ws.onclose = () => done('refused');
    })""")
    assert got == "refused"


# words a French page must not show (the notation's English words among them)
ENGLISH = re.compile(r"\b(the|player|to move|roll|stop|first|card|cards|turtle|which|what|is|lit|put|"
                     r"waiting|shows|confirms|computer|hint|take back|new game|your)\b", re.I)


def firmware_sentences() -> list[str]:
    """Every status and question sentence the board's firmware can send,
    read from its source (firmware/controller/), with a number and a move
    in place of its %d and %s."""
    import ast

    from turtleboard.paths import FIRMWARE

    root = FIRMWARE / "controller"

    def sample(text):
        return text.replace("%d", "2").replace("%s", "a1-a2")

    chance = ["what came up?"] + [
        ast.literal_eval(n.value) for f in sorted(root.glob("flow_*.py")) for n in ast.parse(f.read_text()).body
        if isinstance(n, ast.Assign) and getattr(n.targets[0], "id", "") == "CHANCE_TEXT"]

    def texts(node) -> list[str]:
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return [node.value]
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod):
            return [sample(t) for t in texts(node.left)]
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            return [a + b for a in texts(node.left) for b in texts(node.right)]
        if isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "chance_text":
            return chance
        return []  # a name: its sentences are found where it is set

    where = {"set_status": 0, "open_prompt": 1, "guide": 3}
    out = []
    for path in sorted(root.glob("*.py")):
        for fn in ast.walk(ast.parse(path.read_text())):
            if not isinstance(fn, ast.FunctionDef):
                continue
            said, says_text = [], False
            for node in ast.walk(fn):
                # a method (display.set_status(text, ...)) or a function given
                # the controller first (open_prompt(ctl, kind, text, ...))
                called = getattr(node.func, "attr", None) or getattr(node.func, "id", "") \
                    if isinstance(node, ast.Call) else ""
                if called in where:
                    i = where[called] + (1 if isinstance(node.func, ast.Name) else 0)
                    if len(node.args) > i:
                        out += texts(node.args[i])
                        says_text |= getattr(node.args[i], "id", "") == "text"
                elif isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") == "text":
                    said += texts(node.value)
                elif isinstance(node, ast.AugAssign) and getattr(node.target, "id", "") == "text":
                    said += [a + b for a in said for b in texts(node.value)]
                elif isinstance(node, ast.Return) and fn.name == "status" and node.value is not None:
                    out += texts(node.value)
            if says_text:  # (a `text` that goes elsewhere, an error, is no status)
                out += said
    return sorted(set(out))


def test_the_boards_own_sentences_read_french_on_a_french_page(browser, table):
    sentences = firmware_sentences()
    assert len(sentences) >= 15, sentences  # (the source read as expected)
    assert "player 2 to move" in sentences and "what happened? NEXT shows the next, OK confirms" in sentences
    t = table("tortuga", 2)
    t.pump()
    page, _ = open_page(browser, t.web.url(), lang="fr-FR")
    french = page.evaluate("s => s.map(statusWords)", sentences)
    left = {en: fr for en, fr in zip(sentences, french)
            if fr == en or ENGLISH.search(fr.replace("a1-a2", "").replace("NEXT", ""))}
    assert not left, left
    # and the page shows the board's status (here: set the turtles out) in French
    page.wait_for_function("() => document.getElementById('status').textContent.startsWith('Le plateau : ')")
    status = page.text_content("#status")
    assert status != "Le plateau : " + t.m.status["text"] and not ENGLISH.search(status), status


HIDDEN_NOTATION = re.compile(r"(draw|colour) [0-9a-z*^]")


def test_the_race_dealt_by_the_board_played_from_the_players_phones_leaks_no_hand(browser, table):
    t = table("race", 3, {"mode": "dealt"})
    pages = {}
    for s in range(3):
        pages[s] = open_page(browser, t.web.url("seat", s))
    shared, shared_traffic = open_page(browser, t.web.url(), DESKTOP)
    hands = t.hands()
    hands.computer = {0, 1, 2}  # the hands make the moves the board lights, choose none
    plays = 5
    played = [0]
    t.in_thread(lambda: hands.play(max_actions=60, stop=lambda: played[0] >= plays and t.m.prompt is None))
    hands_of = []  # every hand each player held, as the replica knew it
    while played[0] < plays:
        wait_until(lambda: t.m.replica.game.to_move() >= 0 and not (t.m.status or {}).get("expect"),
                   "a player's turn", 60, t)
        with t.m.lock:
            game = t.m.replica.game
            who = game.to_move()
            hands_of.append([game.view(p).get("hand") for p in range(3)])
        page = pages[who][0]
        page.wait_for_selector("#plays button", timeout=30000)
        card = page.get_attribute("#plays button >> nth=0", "data-play")
        n = t.n()
        for other in set(pages) - {who}:
            assert pages[other][0].locator("#plays button").count() == 0
        if played[0] == 1:
            # on a phone the track comes in two rows (twice as large), a PC the whole row
            assert page.evaluate("document.getElementById('board').naturalWidth") < 400
            assert shared.evaluate("document.getElementById('board').naturalWidth") > 600
            page.screenshot(path=os.path.join(SHOTS, "web-race-seat-phone.png"), full_page=True)
            shared.screenshot(path=os.path.join(SHOTS, "web-race-table-desktop.png"))
        page.click("#plays button >> nth=0")
        wait_until(lambda n=n: t.n() > n, "the card to be played", 30, t)
        assert t.m.replica.game.action_text(t.m.replica.game.history[n]) == card
        played[0] += 1
    t.stop.set()
    t.thread.join(60)
    time.sleep(0.3)
    # Every message every page got: its own view only
    for s, (_page, traffic) in list(pages.items()) + [(None, (shared, shared_traffic))]:
        assert traffic.frames, s
        for raw in traffic.frames:
            assert not HIDDEN_NOTATION.search(raw), (s, raw[:300])
            assert '"hands"' not in raw and '"draw":' not in raw
        for m in traffic.states():
            g = m["game"]
            if g is None:
                continue
            v = g["view"]
            assert v["viewer"] == s
            if s is None:
                assert v["hand"] is None
            others = [p for p in range(3) if p != s]
            if not g["over"]:
                assert all(v["colours"][p] is None for p in others), (s, v["colours"])
            if g["legal"]:
                assert g["to_move"] == s
            if g["prompt"] and g["prompt"]["who"] != s:
                assert g["prompt"]["choices"] == [] or s is None and g["prompt"]["kind"] == "chance"
        # no other player's hand, as it was at any turn, in this page's traffic
        blob = "\n".join(traffic.frames)
        own = {json.dumps(h[s], separators=(",", ":")) for h in hands_of if s is not None}
        for held in hands_of:
            for p, hand in enumerate(held):
                text = '"hand":' + json.dumps(hand, separators=(",", ":"))
                if p != s and json.dumps(hand, separators=(",", ":")) not in own:
                    assert text not in blob, (s, p, hand)
        # and over HTTP only the page's own packaged files
        from turtleboard.web.server import load_static

        files = {body for body, _kind in load_static().values()}
        for url, body in traffic.bodies.items():
            if url.startswith("blob:"):
                continue  # the board picture, made in the page from a frame checked above
            assert body in files, url
    assert "Your hand" in pages[0][0].text_content("#handtitle")
    assert pages[0][0].text_content("#secret").startswith("Your secret turtle")
    assert shared.is_hidden("#hand")


def test_a_seat_outside_the_game_says_so_and_joins_the_next_game_with_it(browser, table):
    # The Race board has 5 seats; a 2-player game leaves player 4's page
    # watching, saying so, until a 4-player game brings player 4 in.
    t = table("race", 2, {"mode": "dealt"})
    t.pump()
    page, _ = open_page(browser, t.web.url("seat", 3))
    page.wait_for_selector("#seatout:not([hidden])")
    said = page.inner_text("#seatout")
    assert "Player 4 is not in this game (2 players)" in said and "next game with player 4" in said, said
    assert page.is_hidden("#hand")
    page.screenshot(path=os.path.join(SHOTS, "web-seat-out-phone.png"), full_page=True)
    desk, _ = open_page(browser, t.web.url("table"), DESKTOP)
    desk.click("#newbtn")
    desk.select_option("#newfields select[data-key=players]", label="4")
    desk.click("#startbtn")
    page.wait_for_selector("#seatout", state="hidden")
    page.wait_for_selector("#hand:not([hidden])")
    page.screenshot(path=os.path.join(SHOTS, "web-seat-in-phone.png"), full_page=True)
