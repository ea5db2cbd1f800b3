"""Driving a Textual app in a test (the mirror, the table view, a dialog):
wait for what it shows with a deadline in time, never a count of steps (a
loaded machine runs fewer steps in the same time)."""

from __future__ import annotations

import time


async def app_wait(pilot, cond, timeout: float = 30.0) -> bool:
    """Let the app run until cond() holds: True, or False after `timeout` s."""
    end = time.monotonic() + timeout
    while not cond():
        if time.monotonic() > end:
            return False
        await pilot.pause(0.05)
    return True
