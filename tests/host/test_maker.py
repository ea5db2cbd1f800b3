"""The maker's tools without a device: the parts list, the wiring diagram,
what the self-test concludes from its readings, the files it writes, the
virtual board's wiring faults and flash's check of a calibration."""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from hosttools import turtleboard

from controller.board import Board, check_board, engine_cells, load_board
from controller.sensing import MID, Sensing
from turtleboard.errors import UserError
from turtleboard.maker.boardfile import board_text, differences
from turtleboard.maker.bom import bom_rows
from turtleboard.maker.selftest import CellResult, Person, SelfTest
from turtleboard.maker.wiring import wiring_svg
from turtleboard.paths import reference_board, reference_boards
from turtleboard.sim.world import FIELD, Wiring, World, WorldError, reading, sensor_offset


def ref(name: str) -> dict:
    return json.loads(reference_board(name).read_text(encoding="utf-8"))


def board_of(obj: dict) -> Board:
    return Board(obj, engine_cells(obj["games"][0], obj["geometry"]))


# ---- the parts list -------------------------------------------------------

def test_bom_counts_follow_the_board_file():
    for name, cells, muxes, leds in (("mahe", 23, 2, 37), ("race", 10, 1, 16), ("tortuga", 37, 3, 40)):
        rows = {part.split(" ")[0]: count for part, count, _ in bom_rows(ref(name))}
        assert rows["DRV5055A1"] == cells
        assert rows["74HC4067"] == muxes
        assert rows["WS2812B"] == leds
        assert rows["100"] == cells + muxes
        assert rows["push"] == 3
        assert rows["neodymium"] == {"mahe": 7, "race": 5, "tortuga": 16}[name]


def test_the_power_budget_fits_the_supply():
    # Every part's current and the total (docs/hardware.md, "Power"): the
    # 5 V supply keeps its margin on every reference board, the LEDs counted
    # at the firmware's cap; the sensors get a regulator of their own where
    # the Pico's 3V3(OUT) would give too much; the level shifter is listed.
    from controller import scenes
    from turtleboard.maker.bom import MARGIN, SUPPLY_A, own_regulator, power_rows

    for name in ("mahe", "race", "tortuga"):
        obj = ref(name)
        power = {r[0]: r for r in power_rows(obj)}
        assert power["WS2812B LED"][3] <= scenes.LED_LIMIT_MA
        assert sum(r[3] for r in power.values()) <= SUPPLY_A * 1000 * (1 - MARGIN)
        parts = [part for part, _, _ in bom_rows(obj)]
        assert any(p.startswith("74AHCT125 level shifter") for p in parts)
        assert "5 V %d A power supply" % SUPPLY_A in parts
        assert any(p.startswith("3.3 V regulator") for p in parts) == own_regulator(obj)
    assert own_regulator(ref("tortuga")) and not own_regulator(ref("race"))
    # all 40 Tortuga LEDs white would draw 2.4 A: more than the cap
    assert 40 * 60 > scenes.LED_LIMIT_MA
    out = turtleboard("board", "bom", "tortuga").stdout
    assert "Power budget" in out and "26% to spare" in out and "2400 mA all white" in out


def test_bom_on_screen_and_as_csv():
    r = turtleboard("board", "bom", "race")
    assert r.returncode == 0 and "DRV5055A1 analog hall sensor" in r.stdout and " 10 " in r.stdout
    r = turtleboard("board", "bom", "tortuga", "--csv", "-")
    lines = r.stdout.splitlines()
    assert lines[0] == "part,count,notes" and any(line.startswith("DRV5055A1 analog hall sensor,37,") for line in lines)
    r = turtleboard("board", "bom", "nosuch.json")
    assert r.returncode == 2 and "no such board file" in r.stderr


# ---- the wiring diagram -----------------------------------------------------

def texts(svg: str) -> list[tuple[str, float]]:
    root = ET.fromstring(svg)
    return [(t.text or "", float(t.get("font-size"))) for t in root.iter("{http://www.w3.org/2000/svg}text")]


@pytest.mark.parametrize("name", ["mahe", "race", "tortuga"])
def test_wiring_names_every_cell_led_and_pin(name):
    obj = ref(name)
    board = board_of(obj)
    svg = wiring_svg(obj)
    root = ET.fromstring(svg)
    assert root.get("width") == "297mm" and root.get("height") == "210mm"  # A4 landscape
    found = texts(svg)
    words = [t for t, _ in found]
    for i, cell in enumerate(board.cells):
        ch = board.sensor_of[i]
        assert "cell %s" % cell in words
        assert "ch %d" % ch in words and "Y%d" % (ch & 15) in words
    for led in range(board.led_count):
        assert str(led) in words  # every LED of the chain, numbered
    for i, cell in enumerate(board.cells):  # the cell map: each cell, its multiplexer input
        assert words.count(cell) >= 2 and "%d/Y%d" % divmod(board.sensor_of[i], 16) in words
    assert "LED data: 74AHCT125 level shifter" in words  # between GP22 and DIN
    for gpio in board.mux["select"] + board.mux["adc"] + [board.led_pin] + [p for _, p in board.buttons]:
        assert any(t.startswith("GP%d (pin " % gpio) for t in words), gpio
    assert min(size for _, size in found) >= 9  # 9 units = 2.25 mm on A4: readable


def test_wiring_of_a_reordered_board_shows_its_own_order(tmp_path):
    obj = ref("race")
    obj["cells"]["3"], obj["cells"]["4"] = obj["cells"]["4"], obj["cells"]["3"]
    words = [t for t, _ in texts(wiring_svg(obj))]
    y = words.index("Y3")
    assert words[y + 2] == "cell 4"


def test_the_docs_show_the_reference_wiring_as_drawn_now():
    docs = Path(__file__).resolve().parents[2] / "docs" / "tortuga-wiring.svg"
    assert docs.read_text(encoding="utf-8") == wiring_svg(ref("tortuga")), (
        "run: turtleboard board wiring tortuga -o docs/tortuga-wiring.svg")


@pytest.mark.skipif(shutil.which("rsvg-convert") is None, reason="rsvg-convert is not installed")
def test_wiring_command_writes_an_svg_that_renders(tmp_path):
    out = tmp_path / "w.svg"
    r = turtleboard("board", "wiring", "tortuga", "-o", out)
    assert r.returncode == 0, r.stderr
    png = tmp_path / "w.png"
    subprocess.run(["rsvg-convert", "-w", "1754", str(out), "-o", str(png)], check=True)
    assert png.stat().st_size > 50000


# ---- board files ------------------------------------------------------------

def test_board_text_lays_out_a_board_as_the_reference_files_are():
    for path in reference_boards():
        text = path.read_text(encoding="utf-8")
        assert board_text(json.loads(text)) + "\n" == text


def test_differences_name_each_changed_value():
    old = ref("race")
    new = json.loads(json.dumps(old))
    new["cells"]["3"]["sensor"] = 20
    new["version"] = 2
    assert differences(old, new) == ["$.cells.3.sensor: 3 -> 20", "$.version: 1 -> 2"]
    assert differences(old, old) == []


def test_corrected_files_are_named_after_their_version(tmp_path):
    from turtleboard.maker.report import versioned

    assert versioned(str(tmp_path / "my.json"), 2, ".json", None) == tmp_path / "my-v2.json"
    assert versioned(str(tmp_path / "my-v2.json"), 3, ".calibration.txt", None) == \
        tmp_path / "my-v3.calibration.txt"
    assert versioned(str(reference_board("race")), 2, ".json", None).parent == type(tmp_path)(".")


def test_a_threshold_close_to_the_measured_one_is_kept():
    test = judged(results={c: (i, 12500) for i, c in enumerate(ref("race")["cells"])})
    assert test.measured_sensing() == ref("race")["sensing"]  # 6000 is within 10% of 6200
    assert test.corrected() == ref("race")


# ---- what the self-test concludes ----------------------------------------------

def judged(name="race", flips=None, results=None, leds=None, base=None, noise=None):
    obj = ref(name)
    test = SelfTest(None, obj, Person(out=lambda s: None))
    n = test.board.channels()
    test.base = base or [MID + sensor_offset(ch) for ch in range(n)]
    test.noise = noise or [16] * n
    for i, cell in enumerate(test.board.cells):
        r = CellResult(cell, test.board.sensor_of[i])
        r.found, r.up = results.get(cell, (r.channel, 14000)) if results else (r.channel, 14000)
        if r.found is not None:
            r.empty = test.base[r.found]
        test.cells[cell] = r
    test.leds = leds or [(test.board.led_of[i], c, c) for i, c in enumerate(test.board.cells)]
    test.judge()
    return test


def test_every_kind_of_sensor_fault_is_named():
    base = [MID + sensor_offset(ch) for ch in range(16)]
    base[7] = 0
    test = judged(results={"2": (3, 14000), "3": (2, 14000), "5": (5, -14000), "7": (None, None),
                           "8": (8, 7000), "lettuce": (None, None)}, base=base)
    p = {c: r.problems for c, r in test.cells.items() if r.problems}
    assert sorted(p) == ["2", "3", "5", "7", "8", "lettuce"]
    assert "swapped" in p["2"][0] and "channel 3" in p["2"][0]
    assert p["5"][0].startswith("polarity reversed")
    assert p["7"][0].startswith("dead: its input reads 0, at the ground rail")
    assert p["8"][0].startswith("weak magnet: a turtle reads +7000, 1000 counts above the threshold 6000")
    assert p["lettuce"][0].startswith("no answer")


def test_every_turtle_reading_low_is_the_magnet_not_the_sensors():
    test = judged(results={c: (i, -14000) for i, c in enumerate(ref("race")["cells"])})
    assert all(not r.problems for r in test.cells.values())
    assert "glued upside down (south pole up; a turtle's magnet goes north pole up)" in test.notes[0]
    assert "upside down (north pole up)" not in test.notes[0]  # north up is right, not the fault


def test_a_weak_cell_says_at_once_what_to_do():
    # One cell weak (the same test turtle read strongly elsewhere): its
    # sensor sits deep; the corrected threshold reads it, so flash and play
    # now, no second round. A reading the corrected file cannot take must
    # be repaired first; every cell weak is the test turtle's magnet.
    from turtleboard.maker.report import repairs

    test = judged(results={"8": (8, 7000)})
    weak = test.cells["8"].problems[0]
    assert "reads it: flash it and play now" in weak
    assert repairs(test) == []
    test = judged(results={"8": (8, 900)})
    assert "raise it under the centre, then test again before you flash" in test.cells["8"].problems[0]
    assert repairs(test) == ["cell 8: weak magnet"]
    test = judged(results={c: (i, 5000) for i, c in enumerate(ref("race")["cells"])})
    assert any("its magnet is weak; glue in a stronger one" in n for n in test.notes)


def test_led_order_is_reported_as_the_mapping_found_and_corrected():
    leds = [(i, c, c) for i, c in enumerate(board_of(ref("race")).cells)]
    leds[1], leds[4] = (1, "1", "4"), (4, "4", "1")
    test = judged(leds=leds)
    new = test.corrected()
    assert (new["cells"]["1"]["led"], new["cells"]["4"]["led"]) == (4, 1)
    assert check_board(new) == [] and new["version"] == 2


def test_a_shifted_chain_moves_the_lights_of_the_groups_along():
    # The race board: cells on LEDs 0..9, turn 10..14, status 15. One LED
    # too many before cell 5 (place 5): 5.. one further, LED 5 beside no cell.
    obj = ref("race")
    board = board_of(obj)
    test = SelfTest(None, obj, Person(out=lambda s: None))
    cell_at = {led: c for led, c in zip(board.led_of, board.cells)}
    for led, expected, _ in test.led_roles():
        seen = cell_at.get(led if led < 5 else led - 1, "") if led != 5 else ""
        test.leds.append((led, expected, seen if led <= 16 else None))
    test.judge()
    new = test.corrected()
    assert new["leds"]["groups"] == {"turn": [11, 12, 13, 14, 15], "status": [16]}
    assert new["leds"]["count"] == 17 and new["cells"]["lettuce"]["led"] == 10
    assert check_board(new) == []
    assert test.extra_leds() == [5] and "LED 5 lights beside no cell" in test.notes[0]


def test_swapped_and_silent_buttons_are_named_and_swaps_corrected():
    obj = ref("race")
    test = SelfTest(None, obj, Person(out=lambda s: None))
    test.buttons = {"next": "ok", "ok": "next", "undo": None}
    test.judge()
    assert "button NEXT is wired to GP7, the pin of OK in the board file" in test.notes
    assert "button UNDO (GP8) does not answer: check it between GP8 and GND" in test.notes
    assert test.corrected()["buttons"] == {"next": 7, "ok": 6, "undo": 8}


def test_one_slip_spoils_only_its_own_cells(tmp_path, capsys):
    # LED 4 said to be beside cell 1, whose LED 1 was seen there too, and a
    # turtle put on cell 4 when cell 3 was asked: those cells stay as the
    # board file says, named to test again; the real swap of 6 and 7 and
    # the threshold are written all the same.
    from turtleboard.maker.report import write_results

    leds = [(i, c, c) for i, c in enumerate(board_of(ref("race")).cells)]
    leds[4] = (4, "4", "1")
    test = judged(leds=leds, results={"3": (4, 14000), "6": (7, 14000), "7": (6, 14000)})
    board = tmp_path / "my.json"
    board.write_text(json.dumps(ref("race")))
    assert write_results(test, str(board), None, "/dev/ttyACM0") == 1
    out = capsys.readouterr().out
    assert "nothing was written" not in out
    assert "  cell 1: seen beside LED 1 and LED 4; left as the board file says (LED 1)" in out
    assert "  cell 3: channel 4, as cell 4 too; left as the board file says (channel 3)" in out
    new = json.loads((tmp_path / "my-v2.json").read_text())
    assert check_board(new) == []
    assert [new["cells"][c]["sensor"] for c in ("3", "4", "6", "7")] == [3, 4, 7, 6]
    assert (new["cells"]["1"]["led"], new["cells"]["4"]["led"]) == (1, 4)
    cal = (tmp_path / "my-v2.calibration.txt").read_text().splitlines()[1:]
    assert [line.split()[0] for line in cal] == [c for c in board_of(ref("race")).cells if c != "3"]
    # (cell 3's empty level was read on another cell's input)


def test_an_upside_down_sensor_is_a_repair_even_when_nothing_is_written(tmp_path, capsys):
    from turtleboard.maker.report import write_results

    test = judged(results={"5": (5, -14000)})
    test.buttons = {"next": "ok", "ok": "ok", "undo": "undo"}  # two buttons on one pin
    test.judge()
    board = tmp_path / "my.json"
    board.write_text(json.dumps(ref("race")))
    assert write_results(test, str(board), None, "/dev/ttyACM0") == 1
    out = capsys.readouterr().out
    assert "nothing was written" in out
    assert "Repair first (no board file can):\n  cell 5: polarity reversed" in out


def test_the_measured_threshold_keeps_empty_cells_empty():
    test = judged(results={"8": (8, 5000)})
    s = test.measured_sensing()
    # half the weakest turtle would be 2500: too close to an empty cell's allowed offset
    assert s["threshold"] - s["hysteresis"] > s["zero_band"]
    new = test.corrected()
    assert check_board(new) == []
    strong = judged().measured_sensing()
    assert strong["threshold"] == 7000  # half of 14000


def test_the_calibration_is_what_the_device_reads(tmp_path):
    test = judged(results={"7": (None, None)})
    new = test.corrected()
    path = tmp_path / "calibration.txt"
    path.write_text(test.calibration(new))
    board = load_board(json.dumps(new))

    class NoHal:
        read_channel = read_cells = ticks_diff = None

        def wake_files(self):
            pass

    got = Sensing(NoHal(), board, str(path)).load()
    for i, cell in enumerate(board.cells):
        assert got[i] == (None if cell == "7" else test.base[board.sensor_of[i]])


# ---- the virtual board's wiring ------------------------------------------------

def test_wiring_faults_change_what_the_sensors_read(tmp_path):
    board = board_of(ref("race"))
    world = World(board, str(tmp_path))
    wiring = Wiring(board)
    wiring.swap_sensors("2", "3")
    wiring.reverse("5")
    wiring.kill("7")
    wiring.weaken("8", 6500)
    wiring.swap_leds("1", "4")
    world.set_wiring(wiring)
    for cell in ("2", "5", "7", "8"):
        world.take()
        world.place(cell)
    values = world.readings()
    assert values[3] == reading(3, [["t", True]]) and values[2] == reading(2, [])
    assert values[5] == MID + sensor_offset(5) - FIELD
    assert values[7] == 0
    assert values[8] == MID + sensor_offset(8) + 6500
    with open(tmp_path / "leds", "w") as f:
        f.write(" ".join("ffffff" if i == 1 else "000000" for i in range(16)) + "\n")
    assert world.lit_cells() == ["4"]
    again = World(board, str(tmp_path))  # another program on the same world
    assert again.wiring.to_json() == wiring.to_json()
    assert len(wiring.faults()) == 7
    world.close()
    again.close()


def test_impossible_wiring_is_refused():
    board = board_of(ref("race"))
    with pytest.raises(WorldError, match="both wired to channel 3"):
        Wiring(board, {"cells": {"2": {"sensor": 3}}})
    with pytest.raises(WorldError, match="not on the multiplexers"):
        Wiring(board, {"cells": {"2": {"sensor": 16}}})
    with pytest.raises(WorldError, match="no cell 'x'"):
        Wiring(board).reverse("x")


def test_sim_options_build_the_wiring(tmp_path):
    from turtleboard.commands.sim import wiring_of

    board = board_of(ref("race"))
    ns = dict(wiring=None, swap_sensors=["2,3"], swap_leds=[], swap_buttons=[], extra_led=[],
              reverse_sensor=["5"],
              kill_sensor=[], weak_magnet=["8=5000"])
    w = wiring_of(board, argparse.Namespace(**ns))
    assert (w.sensor["2"], w.polarity["5"], w.field["8"]) == (3, -1, 5000)
    assert wiring_of(board, argparse.Namespace(**dict(ns, swap_sensors=[], reverse_sensor=[],
                                                          weak_magnet=[]))) is None
    with pytest.raises(UserError, match="two cells with a comma"):
        wiring_of(board, argparse.Namespace(**dict(ns, swap_sensors=["2"])))
    with pytest.raises(UserError, match="CELL=COUNTS"):
        wiring_of(board, argparse.Namespace(**dict(ns, weak_magnet=["8=lots"])))
    soldered = ref("race")
    soldered["cells"]["lettuce"]["sensor"] = 12
    path = tmp_path / "soldered.json"
    path.write_text(json.dumps(soldered))
    w = wiring_of(board, argparse.Namespace(**dict(ns, wiring=str(path), swap_sensors=[])))
    assert w.sensor["lettuce"] == 12


# ---- flash --calibration -------------------------------------------------------

def test_flash_takes_only_the_calibration_of_its_board_file(tmp_path, monkeypatch):
    import tempfile

    from turtleboard.flashing.flasher import Flasher

    temp = tmp_path / "tmp"  # checking files stages nothing: no folder left in it
    temp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(temp))
    obj = ref("race")
    flasher = Flasher("/dev/null", str(reference_board("race")))
    flasher.check_board()
    good = tmp_path / "good.txt"
    good.write_text("turtleboard calibration 1 1 %s\n1 33000\n" % obj["name"])
    flasher.check_calibration(str(good))
    assert flasher.calibration.startswith(b"turtleboard calibration 1 1 ")
    old = tmp_path / "old.txt"
    old.write_text("turtleboard calibration 1 2 %s\n1 33000\n" % obj["name"])
    with pytest.raises(UserError, match="is for another board file"):
        flasher.check_calibration(str(old))
    assert list(temp.iterdir()) == []
