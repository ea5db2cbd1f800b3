"""The simulated table (docs/simulation.md): a bounded sample of seeds for
`make test`, the seeds that found faults (each a test of its own), and the
simulation's own checks: one seed gives one run, and a mutation that
breaks a promise is caught.

    pytest -m simulate                 # this file alone
    python bench/simulate.py --hours H --seed S     # the soak

The sample plays a few simulated minutes a seed, with every fault; a
broken promise fails the test with its seed, step and replay command.
"""

from __future__ import annotations

import os
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "bench"))

pytest.importorskip("websockets", reason="the web extra: pip install 'turtleboard[web]'")

from simulate import one  # noqa: E402

pytestmark = [pytest.mark.e2e, pytest.mark.simulate]


def table(tmp_path, seed, minutes, **kw):
    run = one(seed, minutes, folder=str(tmp_path / "sim"), **kw)
    assert not run["broken"], "\n".join(
        "promise %(promise)d broken (seed %(seed)d, step %(step)d): %(what)s\n  replay: %(replay)s" % b
        for b in run["broken"])
    return run


# The sample: a seed of each game, faults and all (about 1.5 minutes of CPU in all).
SAMPLE = [(1, "race"), (2, "mahe"), (4, "race"), (11, "tortuga"), (5, "hatching")]


@pytest.mark.parametrize("seed,game", SAMPLE)
def test_a_simulated_table_keeps_every_promise(tmp_path, seed, game):
    run = table(tmp_path, seed, 2.0, game=game)
    assert run["stats"]["actions"] > 0
    assert run["lag_steps"] == 0 or run["lag_steps"] < run["stats"]["steps"] // 10


def test_one_seed_gives_one_run(tmp_path):
    a = table(tmp_path / "a", 2, 1.0, game="mahe")
    b = table(tmp_path / "b", 2, 1.0, game="mahe")
    for key in ("actions", "steps", "boots", "verbs", "faults"):
        assert a["stats"][key] == b["stats"][key], key


def test_a_mutation_that_loses_logged_actions_is_caught(tmp_path):
    # promise 1: the game log writes no action made by the buttons, the
    # host or the dice; the first power cut after one loses it
    run = one(2, 5.0, game="mahe", mutation="log-forgets", folder=str(tmp_path / "sim"))
    assert [b["promise"] for b in run["broken"]] == [1], run["broken"]


def test_a_mutation_that_freezes_the_pages_is_caught(tmp_path):
    run = one(2, 2.0, game="mahe", mutation="pages-freeze", folder=str(tmp_path / "sim"))
    assert [b["promise"] for b in run["broken"]] == [2], run["broken"]
