"""The board always boots to a Turtleboard hello, however long its name or
the damage report its game log keeps: a frame too long for a line once fell
to the REPL at every boot ("answers, but not as a Turtleboard")."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import pytest

from turtleboard.connection.link import LinkError
from turtleboard.connection.replica import Mirror

from small_boards import board_obj

pytestmark = pytest.mark.e2e


def _flash(v, name: str) -> str:
    return os.path.join(v.dir, "flash", name)


# The damage is written into the log as a file: a stock Pico's (the
# Turtleboard build keeps its log in a raw area; its report and its damaged
# copy are the same files, and the hello the same code).
STOCK = ["--romfs-bytes", "0"]


def test_a_sealed_log_line_of_300_accented_letters_boots_every_time(vdev):
    from controller.gamelog import seal

    v = vdev("mahe", extra=STOCK)
    m = v.mirror()
    v.new_game(m, "mahe", 2)
    m.close()
    with open(_flash(v, "game.log"), "a", encoding="utf-8") as f:
        f.write(seal("A " + "é" * 300))  # proven by its checksum, refused by the rules
    for _ in range(2):  # the report persists: every boot says it, and boots
        hello = v.power_cut(lambda h: h.get("log"))
        assert hello["board"] == "e2e mahe 10" and hello["game"] == "mahe", hello
        assert "stops making sense at action 1" in hello["log"] and "game.log.bad" in hello["log"]
        assert len(json.dumps(hello["log"])) <= 402  # 400 bytes as written, and its quotes
    m = v.mirror()  # `play`'s mirror: the note, the game, and its `ack`
    notes = [text for kind, text in m.wait_synced(10) if kind == "note"]
    assert any("the board's game log was damaged: " in t and "é" in t for t in notes), notes
    assert m.replica.game is not None and len(m.replica.game.history) == 0
    deadline = time.monotonic() + 10
    while os.path.exists(_flash(v, "game.log.report")) and time.monotonic() < deadline:
        m.poll(0.1)  # (the board takes the `ack` in)
    m.close()
    assert v.power_cut(lambda h: h.get("log") is None)["log"] is None


def test_a_long_board_name_with_two_damage_reports_boots(vdev, tmp_path):
    from controller.gamelog import seal

    board = board_obj("mahe")
    board["name"] = "\U0001f422" * 16  # 16 turtles: the longest name, 192 bytes as written
    path = tmp_path / "turtles.json"
    path.write_text(json.dumps(board), encoding="utf-8")
    v = vdev("mahe", board=str(path), extra=STOCK)
    m = v.mirror()
    v.new_game(m, "mahe", 2)
    m.close()
    for k in range(2):  # two damage reports, never acknowledged
        with open(_flash(v, "game.log"), "a", encoding="utf-8") as f:
            f.write(seal("A z9-z%d" % k))
        hello = v.power_cut(lambda h, want=k + 1: h.get("log") and h["log"].count("stops making sense") == want)
        assert hello["board"] == board["name"] and "cut" not in hello, hello
    # A name of 100 Cyrillic letters (600 bytes as written) on its flash,
    # from an older tool: said, in a Turtleboard hello naming no board.
    with open(_flash(v, "board.json"), "w", encoding="utf-8") as f:
        json.dump(dict(board, name="Ж" * 100), f, ensure_ascii=False)
    hello = v.power_cut(lambda h: h.get("board") is None)
    assert hello["board"] is None and hello["fw"], hello
    m = Mirror(v.path)
    with pytest.raises(LinkError) as e:
        m.start(10)  # what `play` says
    assert "$.name: the name is 100 characters" in str(e.value), str(e.value)
    # The name put right: the game and both reports are back.
    with open(_flash(v, "board.json"), "w", encoding="utf-8") as f:
        json.dump(board, f, ensure_ascii=False)
    hello = v.power_cut(lambda h: h.get("board") is not None)
    assert hello["board"] == board["name"] and hello["game"] == "mahe", hello
    assert hello["log"].count("stops making sense at action 1") == 2, hello


def test_a_board_name_too_long_is_refused_by_board_check_and_said_by_the_board(vdev, tmp_path):
    board = board_obj("mahe")
    board["name"] = "x" * 1000
    path = tmp_path / "long.json"
    path.write_text(json.dumps(board), encoding="utf-8")
    r = subprocess.run([sys.executable, "-m", "turtleboard", "board", "check", str(path)],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode != 0 and "Traceback" not in r.stderr + r.stdout
    assert "$.name" in r.stdout + r.stderr and "at most 32" in r.stdout + r.stderr, (r.stdout, r.stderr)
    # A board that has it on its flash (written by an older tool): a
    # Turtleboard hello naming no board, and the reason, at every boot.
    v = vdev("mahe")
    with open(_flash(v, "board.json"), "w") as f:
        json.dump(board, f)
    for _ in range(2):
        hello = v.power_cut(lambda h: h.get("board") is None)
        assert hello["board"] is None and hello["fw"], hello
    m = Mirror(v.path)
    with pytest.raises(LinkError) as e:
        m.start(10)  # what `play` says
    assert "its board file is bad" in str(e.value) and "$.name" in str(e.value), str(e.value)
    assert "at most 32" in str(e.value) and "turtleboard flash" in str(e.value)
