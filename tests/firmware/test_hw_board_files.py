"""The board files in boards/: up to date with the engines, valid against
boards/schema.json, and the schema agrees with the checker on the device."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import jsonschema
import pytest

from controller import boardcheck as checker

ROOT = Path(__file__).resolve().parents[2]
BOARDS = ROOT / "boards"
SCHEMA = json.loads((BOARDS / "schema.json").read_text(encoding="utf-8"))
NAMES = ["mahe", "race", "tortuga"]


def _load(name):
    return json.loads((BOARDS / f"{name}.json").read_text(encoding="utf-8"))


def test_reference_boards_match_the_engines(capsys):
    spec = importlib.util.spec_from_file_location("make_boards", ROOT / "tools" / "make_boards.py")
    make_boards = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(make_boards)
    assert make_boards.main(["--check"]) == 0, capsys.readouterr().out


def test_schema_is_a_valid_json_schema():
    jsonschema.Draft202012Validator.check_schema(SCHEMA)


@pytest.mark.parametrize("name", NAMES)
def test_reference_boards_follow_the_schema(name):
    jsonschema.Draft202012Validator(SCHEMA).validate(_load(name))


def test_schema_and_checker_know_the_same_keys():
    props = SCHEMA["properties"]
    assert sorted(props) == sorted(checker.ROOT_KEYS)
    assert sorted(SCHEMA["required"]) == sorted(checker.ROOT_REQUIRED)
    assert sorted(props["mux"]["properties"]) == sorted(checker.MUX_KEYS)
    assert sorted(props["leds"]["properties"]) == sorted(checker.LED_KEYS)
    assert sorted(props["leds"]["required"]) == sorted(checker.LED_REQUIRED)
    assert sorted(props["leds"]["properties"]["groups"]["required"]) == sorted(
        checker.REQUIRED_GROUPS)
    assert sorted(props["buttons"]["required"]) == sorted(checker.REQUIRED_BUTTONS)
    cell = props["cells"]["additionalProperties"]
    assert sorted(cell["properties"]) == sorted(checker.CELL_KEYS)
    sensing = props["sensing"]["properties"]
    assert sorted(sensing) == sorted(key for key, _, _, _ in checker.SENSING)
    for key, low, high, _ in checker.SENSING:
        assert (sensing[key]["minimum"], sensing[key]["maximum"]) == (low, high), key
    assert SCHEMA["$defs"]["gpio"]["enum"] == list(checker.PICO_PINS)
    assert props["mux"]["properties"]["adc"]["items"]["enum"] == list(checker.ADC_PINS)


MISTAKES = [
    ("unknown key", lambda o: o["cells"]["3"].update(sensr=1)),
    ("wrong type", lambda o: o.update(version="1")),
    ("threshold out of range", lambda o: o["sensing"].update(threshold=70000)),
    ("no ok button", lambda o: o["buttons"].pop("ok")),
    ("pin not on the header", lambda o: o["leds"].update(pin=25)),
    ("adc on a pin without ADC", lambda o: o["mux"].update(adc=[26, 21])),
    ("no status group", lambda o: o["leds"]["groups"].pop("status")),
    ("cell without sensor", lambda o: o["cells"]["nest"].pop("sensor")),
]


@pytest.mark.parametrize("what,change", MISTAKES, ids=[m[0] for m in MISTAKES])
def test_schema_and_checker_both_reject(what, change):
    obj = _load("mahe")
    change(obj)
    assert not jsonschema.Draft202012Validator(SCHEMA).is_valid(obj)
    assert checker.check_board(obj)
