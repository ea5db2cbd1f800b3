"""Whole games on a noisy, bouncing reference board (tests/firmware/noisy_table.py),
in simulated time: no wrong commit, no stall, no prompt cancelled and no move
taken back by noise, ever. A bounded sample here; TB_NOISE_GAMES=N plays N
games per rule set and noise level (bench/noise_games.py prints the figures)."""

from __future__ import annotations

import os

import pytest
from noisy_table import Table

GAMES = int(os.environ.get("TB_NOISE_GAMES", "1"))


@pytest.mark.parametrize("noise", [2000, 3000])
@pytest.mark.parametrize("game", ["tortuga", "mahe", "race"])
def test_noisy_bouncing_games_never_go_wrong(game, noise):
    for seed in range(1, GAMES + 1):
        table = Table(game, noise=noise, bounce=True, seed=seed)
        table.play(40)
        r = table.report()
        assert r["actions"] >= 15, r  # the game went on
        assert table.wrong == [], (seed, table.wrong)
        assert (r["stalls"], r["cancelled"], r["takebacks"]) == (0, 0, 0), (seed, r)


def test_noise_without_bounce_on_tortuga():
    table = Table("tortuga", noise=2000, bounce=False, seed=11)
    table.play(40)
    assert table.wrong == [] and table.report()["stalls"] == 0
