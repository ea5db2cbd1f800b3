"""The web page from the real command line, as a person starts it: `play
--web --no-tui`, `play --web` with its terminal mirror on a real pty, `play
--web --lan` and `demo` printing the page's address, each against the
virtual board; the page fetched over HTTP, its WebSocket opened, a turtle
moved on the board and the move seen arriving; then Ctrl-C, a clean exit
and nothing left running or listening."""

from __future__ import annotations

import fcntl
import json
import os
import queue
import re
import signal
import struct
import subprocess
import sys
import termios
import threading
import time
import urllib.error
import urllib.request

import pytest

from turtleboard.paths import BOARDS

pytest.importorskip("starlette", reason="the web extra: pip install 'turtleboard[web]'")
from websockets.exceptions import InvalidStatus  # noqa: E402
from websockets.sync.client import connect as ws_connect  # noqa: E402

pytestmark = [pytest.mark.e2e, pytest.mark.micropython]

URL = re.compile(r"(http://[0-9.]+:\d+/k/[A-Za-z0-9_-]+/)")
ANSI = re.compile(r"\x1b(\[[0-9;?]*[ -/]*[@-~]|\][^\x07\x1b]*(\x07|\x1b\\)|[()][A-Za-z0-9]|[=>78DEHM])")


class Cli:
    """The real `turtleboard` command in a process of its own, its output read
    line by line in a thread (pipes, or a pty for the terminal mirror)."""

    def __init__(self, args, cwd, tty=False, env=None):
        self.lines: queue.Queue = queue.Queue()
        self.seen: list[str] = []
        env = dict(os.environ, **(env or {}))
        cmd = [sys.executable, "-m", "turtleboard", *map(str, args)]
        if tty:
            self.master, slave = os.openpty()
            fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
            env.update(TERM="xterm-256color", COLUMNS="120", LINES="40")
            self.p = subprocess.Popen(cmd, stdin=slave, stdout=slave, stderr=slave, cwd=cwd, env=env,
                                      start_new_session=True)
            os.close(slave)
            threading.Thread(target=self._read_pty, daemon=True).start()
        else:
            self.master = None
            self.p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                      cwd=cwd, env=env, start_new_session=True)
            threading.Thread(target=self._read_pipe, daemon=True).start()

    def _read_pipe(self) -> None:
        for line in self.p.stdout:
            self.lines.put(line.rstrip("\n"))
        self.lines.put(None)

    def _read_pty(self) -> None:
        buf = b""
        while True:
            try:
                data = os.read(self.master, 4096)
            except OSError:  # the other side closed: the command ended
                data = b""
            if not data:
                break
            buf += data
            *done, buf = re.split(rb"\r\n|\n|\r", buf)
            for raw in done:
                self.lines.put(ANSI.sub("", raw.decode("utf-8", "replace")))
        self.lines.put(ANSI.sub("", buf.decode("utf-8", "replace")))
        self.lines.put(None)

    def wait_for(self, pattern, timeout=60.0):
        """The first line (from now) that matches `pattern`: its match."""
        end = time.monotonic() + timeout
        rx = re.compile(pattern)
        while True:
            left = end - time.monotonic()
            try:
                line = self.lines.get(timeout=max(left, 0.01))
            except queue.Empty:
                line = ""
            if line is None:
                raise AssertionError("the command ended (rc %s) before %r; it said:\n%s"
                                     % (self.p.poll(), pattern, "\n".join(self.seen[-40:])))
            self.seen.append(line)
            m = rx.search(line)
            if m:
                return m
            if time.monotonic() > end:
                raise AssertionError("no %r in time; the command said:\n%s" % (pattern, "\n".join(self.seen[-40:])))

    def rest(self, timeout=60.0) -> str:
        """Everything it says until it ends."""
        end = time.monotonic() + timeout
        while True:
            try:
                line = self.lines.get(timeout=max(end - time.monotonic(), 0.01))
            except queue.Empty:
                raise AssertionError("the command did not end; it said:\n%s" % "\n".join(self.seen[-40:]))
            if line is None:
                return "\n".join(self.seen)
            self.seen.append(line)

    def descendants(self) -> list[int]:
        """The processes this command started (and theirs)."""
        kids: dict[int, list[int]] = {}
        for pid in os.listdir("/proc"):
            if pid.isdigit():
                try:
                    with open("/proc/%s/stat" % pid) as f:
                        ppid = int(f.read().rsplit(")", 1)[1].split()[1])
                except (OSError, IndexError, ValueError):
                    continue
                kids.setdefault(ppid, []).append(int(pid))
        out, todo = [], [self.p.pid]
        while todo:
            for k in kids.get(todo.pop(), []):
                out.append(k)
                todo.append(k)
        return out

    def stop(self) -> None:
        if self.p.poll() is None:
            self.p.kill()
            self.p.wait(10)
        if self.master is not None:
            os.close(self.master)
            self.master = None


@pytest.fixture
def cli(tmp_path):
    made: list[Cli] = []

    def start(*args, **kw) -> Cli:
        c = Cli(args, tmp_path, **kw)
        made.append(c)
        return c

    yield start
    for c in made:
        c.stop()


def tortuga_board(vdev):
    """A virtual Tortuga board with a new game and its turtles set out."""
    from turtles import new_game

    v = vdev("tortuga", board=str(BOARDS / "tortuga.json"))
    world = v.open_world()
    for cell, state in zip(new_game("tortuga", 2, None, v.board.geometry).cells(),
                           new_game("tortuga", 2, None, v.board.geometry).image()):
        if state:
            world.take(up=True)
            world.place(cell)
    m = v.mirror()
    v.new_game(m, "tortuga", 2)
    m.close()  # the port is the command's now
    v.mirrors.remove(m)
    return v


def get(url: str, host: str | None = None) -> tuple[int, str]:
    """GET `url`; `host`: the name its Host header gives (as a browser does
    for whatever name it resolved to this computer)."""
    try:
        with urllib.request.urlopen(urllib.request.Request(url, headers={"Host": host} if host else {}),
                                    timeout=10) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()


class Page:
    """A page's live link: the WebSocket a browser opens, as a browser does."""

    def __init__(self, url: str):
        host = re.match(r"http://([^/]+)/", url).group(1)
        self.ws = ws_connect(url.replace("http://", "ws://") + "ws", origin="http://" + host,
                             open_timeout=10).__enter__()

    def until(self, want, what: str, timeout=30.0) -> dict:
        end = time.monotonic() + timeout
        while True:
            left = end - time.monotonic()
            if left <= 0:
                raise AssertionError("the page never got " + what)
            try:
                m = json.loads(self.ws.recv(timeout=left))
            except TimeoutError:
                continue
            if want(m):
                return m

    def state(self, want, what: str, timeout=30.0) -> dict:
        return self.until(lambda m: m.get("t") == "state" and m.get("game") and want(m["game"]),
                          what, timeout)["game"]

    def close(self) -> None:
        self.ws.__exit__(None, None, None)


def ws_as(url: str, host: str) -> int:
    """The status of a WebSocket handshake to `url` (this computer) whose Host
    (and Origin) name `host`: 101 when it opens."""
    import socket

    address = re.match(r"http://([^/]+):(\d+)/", url)
    sock = socket.create_connection((address.group(1), int(address.group(2))), timeout=10)
    wanted = re.sub(r"//[^/]+/", "//%s/" % host, url).replace("http://", "ws://") + "ws"
    try:
        with ws_connect(wanted, sock=sock, origin="http://" + host, open_timeout=10):
            return 101
    except InvalidStatus as e:
        return e.response.status_code


def refused_by_name(url: str, names: dict) -> None:
    """Each name (Host: name) gets the page and its live link (True) or a 421
    with words saying why (False): another site's name pointed at this
    computer (DNS rebinding) reaches nothing."""
    port = re.search(r":(\d+)/", url).group(1)
    for name, served in names.items():
        host = name if re.search(r":\d+$", name.split("]")[-1]) else "%s:%s" % (name, port)
        status, body = get(url, host)
        assert status == (200 if served else 421), (host, status, body)
        assert get(url + "app.js", host)[0] == (200 if served else 421), host
        if not served:
            assert "served under" in body and "open the link the table printed" in body, body
        assert ws_as(url, host) == (101 if served else 421), host


def move_seen_live(page: Page, world) -> None:
    """South's first move made by hand on the board arrives on the page."""
    g = page.state(lambda g: g["name"] == "tortuga", "the game")
    assert g["n"] == 0 and g["to_move"] == 0 and g["svg"].startswith("<svg")
    world.lift("a1")
    world.place("a2")
    g = page.state(lambda g: g["n"] == 1, "the move made on the board")
    assert g["moves"][-1]["text"] == "a1-a2" and g["to_move"] == 1


def firmware_of(c: Cli) -> list[int]:
    """The virtual board's firmware processes among what `c` started."""
    found = []
    for pid in c.descendants():
        try:
            with open("/proc/%d/cmdline" % pid, "rb") as f:
                if b"pico_boot" in f.read():
                    found.append(pid)
        except OSError:
            pass
    return found


def interrupt(c: Cli, port: int, rcs=(0, 130), keys=None, pause=()) -> str:
    """Ctrl-C (typed on its terminal, or the signal): it ends cleanly, nothing
    left. The processes in `pause` (a demo's virtual board) are stopped while
    the Ctrl-C goes out, so the work cannot end before it arrives."""
    kids = c.descendants()
    for pid in pause:
        os.kill(pid, signal.SIGSTOP)
    try:
        if keys is None:
            c.p.send_signal(signal.SIGINT)
        else:
            os.write(c.master, keys)
    finally:
        for pid in pause:
            os.kill(pid, signal.SIGCONT)
    out = c.rest()
    assert c.p.wait(30) in rcs, out[-2000:]
    assert "Traceback" not in out and "Error" not in out, out[-3000:]
    for pid in kids:  # whatever it started is gone (or a zombie waiting for init)
        try:
            with open("/proc/%d/stat" % pid) as f:
                assert f.read().rsplit(")", 1)[1].split()[0] == "Z", pid
        except FileNotFoundError:
            pass
    with pytest.raises(OSError):  # nothing listens on the page's port any more
        urllib.request.urlopen("http://127.0.0.1:%d/" % port, timeout=5)
    return out


def test_play_web_no_tui_serves_the_live_game_until_ctrl_c(vdev, cli):
    v = tortuga_board(vdev)
    c = cli("play", "--web", "--no-tui", "--port", v.path, "--web-port", "0")
    url = c.wait_for(r"the table's web page: " + URL.pattern).group(1)
    assert url.startswith("http://127.0.0.1:") and url.endswith("/k/table/")
    seats = [c.wait_for(r"^  player %d: %s$" % (n, URL.pattern)).group(1) for n in (1, 2)]
    assert [s.rsplit("/", 2)[-2] for s in seats] == ["seat1", "seat2"]
    c.wait_for(r"serving the web page; Ctrl-C ends it")
    port = int(re.search(r":(\d+)/", url).group(1))
    status, html = get(url)
    assert status == 200 and '<script src="app.js" defer>' in html
    assert get(url + "app.js")[0] == 200
    page = Page(url)
    hello = page.until(lambda m: m["t"] == "hello", "its hello")
    assert hello["role"] == "table"
    # only this computer's own names: another site's name (DNS rebinding) gets a 421
    refused_by_name(seats[0], {"127.0.0.1": True, "localhost": True, "[::1]": True, "LocalHost": True,
                               "attacker.example": False, "localhost.attacker.example": False,
                               "127.0.0.1.nip.io": False, "localhost:1": False, "192.168.1.20": False})
    seat = Page(seats[1])
    move_seen_live(page, v.world)
    assert seat.state(lambda g: g["n"] == 1, "the move on a player's page")["to_move"] == 1
    page.close()
    seat.close()
    interrupt(c, port)
    # the board's port is free again for the next command
    from turtleboard.connection.replica import Mirror

    m = Mirror(v.path)
    try:
        assert m.start(10)
    finally:
        m.close()


@pytest.mark.parametrize("stop", ["typed", "signal"])
def test_play_web_with_the_terminal_mirror_on_a_real_terminal(vdev, cli, stop):
    v = tortuga_board(vdev)
    c = cli("play", "--web", "--port", v.path, "--web-port", "0", tty=True)
    url = c.wait_for(r"the table's web page: " + URL.pattern).group(1)
    port = int(re.search(r":(\d+)/", url).group(1))
    c.wait_for(r"in step")  # the terminal mirror is up, in step with the board
    assert get(url)[0] == 200
    page = Page(url)
    move_seen_live(page, v.world)
    c.wait_for(r"1\. a1-a2")  # the terminal mirror saw it too
    page.close()
    # Ctrl-C typed in the terminal mirror (a key in its raw mode), or the signal
    interrupt(c, port, keys=b"\x03" if stop == "typed" else None)


def test_play_web_lan_needs_the_printed_keys_and_prints_qr_codes(vdev, cli):
    v = tortuga_board(vdev)
    c = cli("play", "--web", "--lan", "--no-tui", "--port", v.path, "--web-port", "0")
    links = {}
    for who in ("the table", "spectators", "player 1", "player 2"):
        links[who] = c.wait_for(r"^%s: %s" % (who, URL.pattern)).group(1)
        # its QR code, drawn in half blocks under the link
        qr = [c.wait_for(r"[█▀▄]").string for _ in range(8)]
        assert all(len(line.strip()) >= 21 for line in qr), qr
    c.wait_for(r"serving the web page; Ctrl-C ends it")
    keys = {who: u.rsplit("/", 2)[-2] for who, u in links.items()}
    assert len(set(keys.values())) == 4 and all(len(k) >= 20 for k in keys.values())
    port = int(re.search(r":(\d+)/", links["the table"]).group(1))
    local = {who: re.sub(r"//[0-9.]+:", "//127.0.0.1:", u) for who, u in links.items()}
    base = "http://127.0.0.1:%d" % port
    for path in ("/", "/k/table/", "/k/watch/", "/k/seat1/", "/k/seat1/app.js", "/k/nope/ws"):
        status, body = get(base + path)
        assert status == 403 and "Turtle" not in body, path
    with pytest.raises(InvalidStatus) as refused:  # the live link too
        ws_connect(base.replace("http", "ws") + "/k/table/ws", open_timeout=10)
    assert refused.value.response.status_code == 403
    for who, u in local.items():
        assert get(u)[0] == 200, who
    # on the network: any address, this computer's name; never another site's name
    import socket

    name = socket.gethostname().split(".")[0]
    refused_by_name(local["player 1"], {"127.0.0.1": True, "10.1.2.3": True, "[fe80::1]": True, name: True,
                                        name + ".local": True, "attacker.example": False,
                                        name + ".attacker.example": False})
    watch = Page(local["spectators"])
    assert watch.until(lambda m: m["t"] == "hello", "its hello")["role"] == "watch"
    watch.ws.send(json.dumps({"do": "undo"}))
    assert watch.until(lambda m: m["t"] == "error", "a refusal")["code"] == "watch"
    me = Page(local["player 1"])
    hello = me.until(lambda m: m["t"] == "hello", "its hello")
    assert (hello["role"], hello["seat"]) == ("seat", 0)
    move_seen_live(me, v.world)
    watch.state(lambda g: g["n"] == 1, "the move")
    watch.close()
    me.close()
    interrupt(c, port)


def test_demo_prints_the_page_address_and_the_page_follows_the_game(cli):
    c = cli("demo", "--fast", "--game", "tortuga", "--seed", "3", "--web-port", "0", "--record", "r.txt")
    url = c.wait_for(r"the game on a web page: " + URL.pattern).group(1)
    port = int(re.search(r":(\d+)/", url).group(1))
    assert get(url)[0] == 200
    page = Page(url)
    g = page.state(lambda g: g["n"] >= 3, "three moves of the demo")
    assert g["name"] == "tortuga" and len(g["moves"]) >= 3
    c.wait_for(r"^\s+\d+\. ")
    firmware = firmware_of(c)
    assert firmware  # the virtual board
    page.close()
    # the demo's board pauses as the Ctrl-C goes out: a fast game on a loaded
    # machine could otherwise be over first
    out = interrupt(c, port, rcs=(130,), pause=firmware)
    assert "interrupted" in out


def test_demo_on_a_terminal_keeps_the_page_with_the_result_until_enter(cli):
    c = cli("demo", "--fast", "--game", "tortuga", "--seed", "3", "--web-port", "0", "--record", "r.txt",
            tty=True)
    url = c.wait_for(r"the game on a web page: " + URL.pattern).group(1)
    c.wait_for(r"the page stays open with the result: .*Enter ends the demo", timeout=240)
    page = Page(url)  # opened after the game: the result is there
    g = page.state(lambda g: True, "the finished game")
    assert g["over"] and g["result"]["winners"] == [1]
    page.close()
    os.write(c.master, b"\r")  # Enter
    out = c.rest()
    assert c.p.wait(30) == 0 and "Traceback" not in out, out[-2000:]
    with pytest.raises(OSError):
        urllib.request.urlopen(url, timeout=5)


def test_every_seat_of_the_board_has_its_link_and_a_later_bigger_game_brings_it_in(vdev, cli):
    # A 2-player Race on the Race board (up to 5 players): `play --web` prints a
    # link for each of the 5 seats, saying which are not in this game; player
    # 4's page says it only watches, then plays once a 4-player game starts.
    v = vdev("race", board=str(BOARDS / "race.json"))
    m = v.mirror()
    m.link.command("new", {"game": "race", "players": 2, "options": {"mode": "dealt"},
                           "dice": "electronic", "seed": 3}, timeout=5)
    m.wait_synced(10)
    m.close()
    v.mirrors.remove(m)
    c = cli("play", "--web", "--no-tui", "--port", v.path, "--web-port", "0")
    url = c.wait_for(r"the table's web page: " + URL.pattern).group(1)
    seats = {}
    for n in range(1, 6):
        line = c.wait_for(r"^  player %d: " % n).string
        seats[n] = URL.search(line).group(1)
        assert ("(not in this game: its page follows from the next game with player %d)" % n in line) == (n > 2), line
    assert [u.rsplit("/", 2)[-2] for u in seats.values()] == ["seat%d" % n for n in range(1, 6)]
    c.wait_for(r"serving the web page; Ctrl-C ends it")
    port = int(re.search(r":(\d+)/", url).group(1))
    fourth, first, table = Page(seats[4]), Page(seats[1]), Page(url)
    g = fourth.state(lambda g: g["name"] == "race", "the game")
    assert g["seat_out"] and g["players"] == 2 and g["view"]["hand"] is None and g["legal"] == []
    assert not first.state(lambda g: g["name"] == "race", "the game")["seat_out"]
    fourth.ws.send(json.dumps({"do": "play", "text": "red+"}))
    assert fourth.until(lambda m: m["t"] == "error", "a refusal")["code"] in ("turn", "bad")
    # a new 4-player game from the table's page: player 4's page is in it now
    table.ws.send(json.dumps({"do": "new", "game": "race", "chosen": {"players": 4, "option:mode": "dealt"}}))
    g = fourth.state(lambda g: g["players"] == 4, "the 4-player game")
    # its own view now: its hand (a list, dealt as the game goes), never the onlooker's None
    assert not g["seat_out"] and g["view"]["viewer"] == 3 and isinstance(g["view"]["hand"], list)
    for page in (fourth, first, table):
        page.close()
    interrupt(c, port)
