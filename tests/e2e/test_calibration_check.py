"""A saved empty level off by 7,000 to 20,000 on an empty cell of the
virtual board: once a silent phantom turtle ("take off d4" for ever); the
board measures the cell again at boot, the host is told which, and a new
Tortuga game asks for exactly its start cells."""

from __future__ import annotations

import os
import time

import pytest

pytestmark = pytest.mark.e2e


def test_a_wrong_empty_level_is_measured_again_and_the_new_game_asks_for_its_start_cells(vdev):
    v = vdev("tortuga")
    m = v.mirror()  # (the first boot wrote calibration.txt)
    m.close()
    path = os.path.join(v.dir, "flash", "calibration.txt")
    lines = open(path).read().split("\n")
    k = [i for i, line in enumerate(lines) if line.startswith("d4 ")][0]
    level = int(lines[k].split()[1])
    lines[k] = "d4 %d" % (level + 12000)
    with open(path, "w") as f:
        f.write("\n".join(lines))
    hello = v.power_cut(lambda h: h.get("calibration"))
    assert "d4: saved empty level %d" % (level + 12000) in hello["calibration"], hello
    assert "look at d4" in hello["calibration"]
    assert "d4 %d\n" % (level + 12000) not in open(path).read()  # the file corrected
    m = v.mirror()
    notes = [text for kind, text in m.wait_synced(10) if kind == "note"]
    assert any("measured a sensor's empty level again: d4:" in t for t in notes), notes
    v.new_game(m, "tortuga", 2)
    game = m.replica.game
    start = sorted(c for c, s in zip(game.cells(), game.image()) if s)
    deadline = time.monotonic() + 10
    while not (m.status and m.status["expect"].get("on")) and time.monotonic() < deadline:
        m.poll(0.1)  # (the mirror keeps the last status)
    status = m.status
    assert status is not None and sorted(status["expect"]["on"]) == start, status
    assert status["expect"]["off"] == [], status
