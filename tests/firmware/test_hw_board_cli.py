"""`turtleboard board check FILE`."""

from __future__ import annotations

import json
from pathlib import Path

from turtleboard.cli import main

BOARDS = Path(__file__).resolve().parents[2] / "boards"


def test_reference_boards_are_ok(capsys):
    files = [str(BOARDS / n) for n in ("mahe.json", "race.json", "tortuga.json")]
    assert main(["board", "check", *files]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("ok: Mahé reference board (23 cells on 2 multiplexer(s), 37 LEDs")
    assert out[1].startswith("ok: Turtle Race reference board (10 cells")
    assert out[2].startswith("ok: Tortuga reference board (37 cells on 3 multiplexer(s)")


def test_each_problem_on_its_own_line(tmp_path, capsys):
    obj = json.loads((BOARDS / "mahe.json").read_text(encoding="utf-8"))
    obj["cells"]["14"]["sensr"] = obj["cells"]["14"].pop("sensor")
    obj["buttons"]["ok"] = 22
    path = tmp_path / "mine.json"
    path.write_text(json.dumps(obj), encoding="utf-8")
    assert main(["board", "check", str(path)]) == 1
    cap = capsys.readouterr()
    assert cap.out == ""
    assert cap.err.splitlines() == [
        f"{path}: $.buttons.ok: GPIO 22 is already used by $.leds.pin",
        f"{path}: $.cells.14.sensr: unknown key (did you mean 'sensor'?); the keys here are: "
        "led, sensor",
        f"{path}: $.cells.14: missing key 'sensor'",
    ]


def test_json_syntax_error_gives_line_and_column(tmp_path, capsys):
    path = tmp_path / "broken.json"
    path.write_text('{\n  "name": "x",\n  "version": 1,,\n}\n', encoding="utf-8")
    assert main(["board", "check", str(path)]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"{path}: line 3 column 16: not valid JSON: ")


def test_missing_unreadable_and_binary_files(tmp_path, capsys):
    binary = tmp_path / "board.bin"
    binary.write_bytes(b"\x89PNG\xff\xfe")
    good = BOARDS / "race.json"
    code = main(["board", "check", str(tmp_path / "nope.json"), str(tmp_path), str(binary),
                 str(good)])
    assert code == 1
    cap = capsys.readouterr()
    err = cap.err.splitlines()
    assert err[0] == f"{tmp_path / 'nope.json'}: no such file"
    assert err[1].startswith(f"{tmp_path}: this is a folder")
    assert err[2].startswith(f"{binary}: not a text file (UTF-8)")
    assert cap.out.startswith("ok: Turtle Race")  # the other files are still checked
    assert "Traceback" not in cap.err


def test_a_deeply_nested_file_is_refused_in_one_line(tmp_path, capsys):
    from turtleboard.commands.board import check_file

    path = tmp_path / "deep.json"
    path.write_text('{"name":' + "[" * 100000 + "]" * 100000 + "}")
    assert check_file(str(path)) == 1
    err = capsys.readouterr().err
    assert "nested too deep" in err and "Traceback" not in err
