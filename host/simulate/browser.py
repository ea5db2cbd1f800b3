"""A sample of the pages in a real browser: the table's page in headless
Chromium (Debian's /usr/bin/chromium, driven by Playwright), opened at a
simulated table beside its WebSocket pages. The browser runs on the
machine's clock: at checkpoints the table holds its time and waits (up to
BROWSER_WAIT_S of the machine's time) for the page to show the board's last
action, as promise 2 asks of every view (docs/simulation.md)."""

from __future__ import annotations

import os
import time

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]
BROWSER_WAIT_S = 10.0
SHOWN = "() => Math.max(0, ...[...document.querySelectorAll('#moves li')].map(li => li.value || 0))"


def available() -> bool:
    if not os.path.exists(CHROMIUM):
        return False
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return False
    return True


class BrowserPage:
    def __init__(self):
        from playwright.sync_api import sync_playwright

        self.pw = sync_playwright().start()
        self.browser = self.pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        self.page = None
        self.checks = 0

    def open(self, url: str) -> None:
        ctx = self.browser.new_context(viewport={"width": 390, "height": 844}, locale="en-GB")
        self.page = ctx.new_page()
        self.page.goto(url)
        self.page.wait_for_selector("#turn:not(:empty)", timeout=30000)

    def shown(self) -> int | None:
        """The last action the page shows (None: it cannot be read now)."""
        try:
            return int(self.page.evaluate(SHOWN))
        except Exception:
            return None

    def wait_shows(self, n: int) -> int | None:
        """Wait (the machine's time) until the page shows action n; what it shows."""
        self.checks += 1
        end = time.monotonic() + BROWSER_WAIT_S
        while True:
            got = self.shown()
            if got == n or time.monotonic() > end:
                return got
            time.sleep(0.1)

    def close(self) -> None:
        try:
            self.browser.close()
        finally:
            self.pw.stop()
