"""Bots decide by node budgets, never by the clock: seeded games between
bot levels give byte-identical transcripts (every action, the nodes each
search took, every state hash) under CPython and the MicroPython unix port."""

from __future__ import annotations

import io
import re
import sys
from contextlib import redirect_stdout
from pathlib import Path

import pytest

from turtleboard.mpy import FIRMWARE, run_micropython

ENGINE_TESTS = Path(__file__).parent / "engine"
sys.path.insert(0, str(ENGINE_TESTS))
try:
    from test_bots import BOT_TRANSCRIPTS
finally:
    sys.path.remove(str(ENGINE_TESTS))


def cpython_botgames(args: list[str]) -> str:
    sys.path.insert(0, str(ENGINE_TESTS))
    try:
        import botgames
    finally:
        sys.path.remove(str(ENGINE_TESTS))
    buf = io.StringIO()
    with redirect_stdout(buf):
        botgames.main(["botgames"] + args)
    return buf.getvalue()


@pytest.mark.micropython
@pytest.mark.parametrize("game,players,options,bots,count", BOT_TRANSCRIPTS)
def test_bot_games_identical(game, players, options, bots, count):
    args = [game, str(players), options, bots, "0", str(count)]
    mp = run_micropython([str(ENGINE_TESTS / "botgames.py")] + args, [FIRMWARE, ENGINE_TESTS],
                         timeout=1200)
    assert mp.returncode == 0, mp.stderr[-4000:]
    cp = cpython_botgames(args)
    assert cp.count("winners ") == count
    assert re.search(r" n[1-9][0-9][0-9]+ ", cp)  # the bots did search
    if mp.stdout != cp:
        for i, (a, b) in enumerate(zip(mp.stdout.splitlines(), cp.splitlines())):
            if a != b:
                pytest.fail(f"line {i + 1} differs:\n micropython: {a}\n cpython:     {b}")
        pytest.fail("lengths differ")
