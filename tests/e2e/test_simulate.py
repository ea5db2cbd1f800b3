"""The simulated table (docs/simulation.md): a bounded sample of seeds for
`make test`, the seeds that found faults (each a test of its own), and the
simulation's own check that one seed gives one run (the mutations, each
caught within a simulated hour, are bench/simulate.py --mutations).

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


# The sample: seeds of three games, faults and all (about a minute in all on two cores).
SAMPLE = [(4, "race"), (11, "tortuga"), (5, "hatching")]


@pytest.mark.parametrize("seed,game", SAMPLE)
def test_a_simulated_table_keeps_every_promise(tmp_path, seed, game):
    run = table(tmp_path, seed, 1.0, game=game)
    assert run["stats"]["actions"] > 0
    assert run["lag_steps"] == 0 or run["lag_steps"] < run["stats"]["steps"] // 10


def test_one_seed_gives_one_run(tmp_path):
    a = table(tmp_path / "a", 5, 0.5, game="hatching")
    b = table(tmp_path / "b", 5, 0.5, game="hatching")
    for key in ("actions", "steps", "boots", "verbs", "faults"):
        assert a["stats"][key] == b["stats"][key], key


# Seeds that found faults not yet fixed: each a test that flips when the fix lands.

@pytest.mark.xfail(strict=True, reason="found by the simulated table, not yet triaged: in the Race, "
                   "NEXT pressed on a 'which move was it?' question right after an impatient OK "
                   "mid-move moved nothing for 2 s (seed 1, step 398)")
def test_seed_1_race_next_on_which_move_was_it(tmp_path):
    table(tmp_path, 1, 1.1, game="race")


@pytest.mark.xfail(strict=True, reason="found by the simulated table, not yet triaged: in Mahé, an "
                   "answer sent from the table's page had no effect and no reason for 2 s "
                   "(seed 2, step 1116)")
def test_seed_2_mahe_answer_from_the_table_page(tmp_path):
    table(tmp_path, 2, 1.7, game="mahe")


@pytest.mark.xfail(strict=True, reason="known fault, being fixed: page take-back permissions (a seat's "
                   "page took back another player's action; seed 106)")
def test_seed_106_tattoo_a_seat_page_takes_back_only_its_own_action(tmp_path):
    table(tmp_path, 106, 0.5, game="tattoo")


@pytest.mark.xfail(strict=True, reason="found by the simulated table, not yet triaged: in Tortuga the "
                   "board recorded d7-d6 where the hands made b5-b4 (seed 109, step 214)")
def test_seed_109_tortuga_the_board_records_the_move_made(tmp_path):
    table(tmp_path, 109, 0.6, game="tortuga")
