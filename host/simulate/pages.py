"""The web pages at a simulated table: real WebSocket clients of the host's
web server (the table's link, each seat's, the spectators'), one asyncio
loop on a thread of their own, as phones are other machines.

A page keeps every message it got; the simulator asks it what it shows
(its last state), whether each message it sent has had its answer, and
makes it stop reading (a stalled phone) or drop and rejoin.
"""

from __future__ import annotations

import asyncio
import json
import threading

import websockets
from websockets.asyncio.client import connect

LOG_MAX = 64  # messages a page keeps for the checks


class Page:
    def __init__(self, pages, name: str, role: str, seat, lang: str = "en"):
        self.pages = pages
        self.name = name
        self.role = role
        self.seat = seat
        self.lang = lang
        self.ws = None
        self.task = None
        self.state_text: str | None = None  # the last state, as sent
        self.state: dict | None = None
        self.replies: list[dict] = []   # answers to what it sent (sent, error), newest last (bounded)
        self.hints: list[dict] = []     # (bounded)
        self.replies_n = 0  # answers ever got (the list keeps the last LOG_MAX)
        self.hints_n = 0
        self.received: list[dict] = []  # every message (bounded)
        self.unchecked: list[dict] = []  # messages the secrets' check has not looked at yet
        self.asked = 0      # messages sent that have an answer to come
        self.answered = 0
        self.reading = True
        self.connected = False
        self.joining = False
        self.closed_code = None
        self.joins = 0

    def key(self) -> str:
        return {"table": "table", "watch": "watch"}.get(self.role) or "seat%d" % (self.seat + 1)

    def replies_since(self, n: int) -> list[dict]:
        """The answers got after the first n (those the list still keeps)."""
        new = self.replies_n - n
        return self.replies[len(self.replies) - new:] if new > 0 else []

    def quiet(self) -> bool:
        # a page that stopped reading (a frozen phone) is not waited for: it
        # reads its answers when it wakes, in the table's time
        return not self.joining and (not self.connected or not self.reading or self.answered >= self.asked)


class Pages:
    def __init__(self):
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name="sim-pages", daemon=True)
        self.thread.start()
        self.pages: list[Page] = []
        self.port = None

    def call(self, coro, timeout: float = 10.0):
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)

    def open(self, port: int, name: str, role: str, seat=None, lang: str = "en") -> Page:
        page = Page(self, name, role, seat, lang)
        self.pages.append(page)
        self.join(page, port)
        return page

    def join(self, page: Page, port: int) -> None:
        self.port = port
        page.joins += 1
        page.connected = False
        page.joining = True
        page.asked = page.answered = 0
        page.state_text = None
        page.state = None
        url = "ws://127.0.0.1:%d/k/%s/ws?lang=%s&page=%s" % (port, page.key(), page.lang, page.name)
        fut = asyncio.run_coroutine_threadsafe(self._run(page, url), self.loop)
        page.task = fut

    async def _run(self, page: Page, url: str) -> None:
        try:
            async with connect(url, max_size=None, compression=None, open_timeout=10) as ws:
                page.ws = ws
                page.connected = True
                page.joining = False
                while True:
                    if not page.reading:
                        await asyncio.sleep(0.01)
                        continue
                    text = await ws.recv()
                    self._got(page, text)
        except websockets.ConnectionClosed as e:
            page.closed_code = e.rcvd.code if e.rcvd is not None else None
        except (OSError, asyncio.TimeoutError, websockets.InvalidHandshake) as e:
            page.closed_code = repr(e)
        finally:
            page.connected = False
            page.joining = False
            page.ws = None

    def _got(self, page: Page, text: str) -> None:
        msg = json.loads(text)
        t = msg.get("t")
        page.received.append(msg)
        del page.received[:-LOG_MAX]
        if t in ("state", "hint"):
            page.unchecked.append(msg)
            del page.unchecked[:-LOG_MAX * 4]
        if t == "state":
            page.state_text = text
            page.state = msg
        elif t in ("sent", "error"):
            if msg.get("code") != "board":  # (the board's refusal of what was sent comes later)
                page.answered += 1
            page.replies.append(msg)
            page.replies_n += 1
            del page.replies[:-LOG_MAX]
        elif t == "hint":
            page.hints.append(msg)
            page.hints_n += 1
            del page.hints[:-LOG_MAX]

    def send(self, page: Page, msg: dict) -> bool:
        """A button on the page: the message goes out (False: the page is not connected)."""
        if not page.connected or page.ws is None:
            return False
        if msg.get("do") != "lang":
            page.asked += 1
        else:
            page.lang = msg.get("lang", page.lang)
        ws = page.ws

        async def go():
            try:
                await ws.send(json.dumps(msg))
            except websockets.ConnectionClosed:
                pass

        self.call(go())
        return True

    def drop(self, page: Page) -> None:
        """The page goes (a phone locked, a tab closed)."""
        ws = page.ws
        if ws is not None:
            async def go():
                await ws.close()
            try:
                self.call(go())
            except Exception:
                pass
        if page.task is not None:
            try:
                page.task.result(5)
            except Exception:
                pass
        page.connected = False

    def close(self) -> None:
        for page in self.pages:
            self.drop(page)

        async def end():  # every page's task ends before its loop does
            tasks = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
            for t in tasks:
                t.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)

        try:
            self.call(end(), 5)
        except Exception:
            pass
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(5)
        self.loop.close()
