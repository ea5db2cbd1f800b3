"""Every engine test module also runs under the real MicroPython unix port,
and seeded random games give byte-identical transcripts on both interpreters."""

from __future__ import annotations

import io
import re
import sys
from contextlib import redirect_stdout
from pathlib import Path

import pytest

from turtleboard.sim.mpy import FIRMWARE, run_micropython

ENGINE_TESTS = Path(__file__).parent / "engine"
MODULES = sorted(p.stem for p in ENGINE_TESTS.glob("test_*.py"))



def _transcript_rows(attr: str = "TRANSCRIPTS") -> list[tuple]:
    # Each engine test module may define TRANSCRIPTS = [(game, players,
    # "options", number of seeded games), ...] and BOT_TRANSCRIPTS (the same
    # with the bots' levels before the count); every row is compared.
    import importlib

    rows = []
    sys.path.insert(0, str(ENGINE_TESTS))
    try:
        for name in MODULES:
            rows.extend(getattr(importlib.import_module(name), attr, []))
    finally:
        sys.path.remove(str(ENGINE_TESTS))
    return rows


TRANSCRIPTS = _transcript_rows()


@pytest.mark.micropython
@pytest.mark.parametrize("module", MODULES)
def test_engine_module_under_micropython(module):
    proc = run_micropython(
        [str(ENGINE_TESTS / "mprun.py"), module], [FIRMWARE, ENGINE_TESTS], timeout=900
    )
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-4000:]
    assert " 0 failed" in proc.stdout


def cpython_script(name: str, args: list[str]) -> str:
    # What tests/engine/<name>.py prints for `args`, run under CPython.
    import importlib

    sys.path.insert(0, str(ENGINE_TESTS))
    try:
        script = importlib.import_module(name)
    finally:
        sys.path.remove(str(ENGINE_TESTS))
    buf = io.StringIO()
    with redirect_stdout(buf):
        script.main([name] + args)
    return buf.getvalue()


def cpython_transcript(game: str, players: int, options: str, count: int) -> str:
    return cpython_script("transcript", [game, str(players), options, "0", str(count)])


@pytest.mark.micropython
@pytest.mark.parametrize("game,players,options,count", TRANSCRIPTS)
def test_transcripts_identical(game, players, options, count):
    mp = run_micropython(
        [str(ENGINE_TESTS / "transcript.py"), game, str(players), options, "0", str(count)],
        [FIRMWARE, ENGINE_TESTS],
        timeout=1200,
    )
    assert mp.returncode == 0, mp.stderr[-4000:]
    cp = cpython_transcript(game, players, options, count)
    assert cp.count("\nresult ") + cp.startswith("result ") == count
    if mp.stdout != cp:
        mp_lines = mp.stdout.splitlines()
        cp_lines = cp.splitlines()
        for i, (a, b) in enumerate(zip(mp_lines, cp_lines)):
            if a != b:
                pytest.fail(f"line {i + 1} differs:\n micropython: {a}\n cpython:     {b}")
        pytest.fail(f"lengths differ: {len(mp_lines)} vs {len(cp_lines)} lines")


def test_micropython_is_really_micropython():
    proc = run_micropython(["-c", "import sys; print(sys.implementation.name)"], [FIRMWARE])
    assert proc.stdout.strip() == "micropython"




# Bots decide by node budgets, never by the clock: seeded games between bot
# levels (every action, the nodes each search took, every state hash) are
# byte-identical under CPython and the MicroPython unix port.
BOT_TRANSCRIPTS = _transcript_rows("BOT_TRANSCRIPTS")


@pytest.mark.micropython
@pytest.mark.parametrize("game,players,options,bots,count", BOT_TRANSCRIPTS)
def test_bot_games_identical(game, players, options, bots, count):
    args = [game, str(players), options, bots, "0", str(count)]
    mp = run_micropython([str(ENGINE_TESTS / "botgames.py")] + args, [FIRMWARE, ENGINE_TESTS],
                         timeout=1200)
    assert mp.returncode == 0, mp.stderr[-4000:]
    cp = cpython_script("botgames", args)
    assert cp.count("winners ") == count
    assert re.search(r" n[1-9][0-9][0-9]+ ", cp)  # the bots did search
    if mp.stdout != cp:
        for i, (a, b) in enumerate(zip(mp.stdout.splitlines(), cp.splitlines())):
            if a != b:
                pytest.fail(f"line {i + 1} differs:\n micropython: {a}\n cpython:     {b}")
        pytest.fail("lengths differ")
