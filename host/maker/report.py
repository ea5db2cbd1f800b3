"""The end of `turtleboard board test`: the report on screen, the corrected
board file and the calibration written beside the board file."""

from __future__ import annotations

import re
from pathlib import Path

from controller.board import check_board
from turtleboard.errors import UserError
from turtleboard.maker import out_path
from turtleboard.maker.boardfile import board_text, differences
from turtleboard.maker.selftest import SelfTest, seen_text


def report_lines(test: SelfTest) -> list[str]:
    out = ["", "Report"]
    wrong = [(led, cell, seen) for led, cell, seen in test.leds if seen != cell]
    if not wrong:
        out.append("  LEDs: all %d in the board file's order" % len(test.leds))
    else:
        out.append("  LEDs: %d of %d not where the board file says; the mapping found:"
                   % (len(wrong), len(test.leds)))
        names = {led: name for led, _, name in test.led_roles()}
        for led, cell, seen in wrong:
            out.append("    LED %d is %s (the board file: %s)"
                       % (led, seen_text(seen), "no LED there" if cell is None else names[led]))
    bad = [r for r in test.cells.values() if r.problems]
    skipped = [r.cell for r in test.cells.values() if r.skipped]
    good = len(test.cells) - len(bad) - len(skipped)
    out.append("  Sensors: %d of %d cells right%s%s" % (
        good, len(test.cells), "; skipped (not tested): " + " ".join(skipped) if skipped else "",
        ":" if bad else ""))
    for r in bad:
        for problem in r.problems:
            out.append("    cell %s: %s" % (r.cell, problem))
    if test.buttons or test.skipped_buttons:
        good = [n for n, got in test.buttons.items() if got == n]
        out.append("  Buttons: %d of %d answer as the board file says%s" % (
            len(good), len(test.buttons) + len(test.skipped_buttons),
            "; skipped (not tested): " + " ".join(n.upper() for n in test.skipped_buttons)
            if test.skipped_buttons else ""))
    for note in test.notes:
        out.append("  Note: " + note)
    answered = [r for r in test.cells.values() if r.found is not None]
    if answered:
        weakest = min(answered, key=lambda r: r.strength)
        strongest = max(answered, key=lambda r: r.strength)
        out.append("  Turtles read from %d (cell %s) to %d (cell %s) counts off empty"
                   % (weakest.strength, weakest.cell, strongest.strength, strongest.cell))
    return out


def repairs(test: SelfTest) -> list[str]:
    """Faults a board file cannot fix: the soldering iron's."""
    out = []
    for r in test.cells.values():
        for p in r.problems:
            if not p.startswith(("wired to", "empty level")) and "play now" not in p:
                out.append("cell %s: %s" % (r.cell, p.split(":")[0]))
    return out


def print_repairs(test: SelfTest) -> list[str]:
    fix = repairs(test)
    if fix:
        print("Repair first (no board file can):")
        for line in fix:
            print("  " + line)
    return fix


def versioned(board_file: str, version: int, suffix: str, out_dir: str | None) -> Path:
    """myboard.json (or myboard-v2.json) -> myboard-v<version><suffix>."""
    stem = re.sub(r"-v[0-9]+$", "", Path(board_file).stem)
    return out_path(str(Path(board_file).with_name(stem + ".json")), "-v%d%s" % (version, suffix),
                    out_dir)


def write_results(test: SelfTest, board_file: str, out_dir: str | None, port: str) -> int:
    for line in report_lines(test):
        print(line)
    new = test.corrected()
    changes = differences(test.obj, new)
    problems = check_board(new)
    if problems:
        # Two cells found on one input or beside one LED: a turtle put on
        # another cell than asked, or a cell named twice. Nothing is written.
        print("\nThe corrected board file would not be right, so nothing was written:")
        for where, what in problems:
            print(f"  {where}: {what}")
        print("Test again, with the turtle on the very cell asked for and each LED's own cell.")
        print_repairs(test)
        return 1
    if test.doubts:
        print("\nNot written, as two findings disagree (a turtle on another cell than asked, "
              "or an LED answered for the wrong cell); test these again:")
        for line in test.doubts:
            print("  " + line)
    board_path = versioned(board_file, new["version"], ".json", out_dir)
    cal_path = versioned(board_file, new["version"], ".calibration.txt", out_dir)
    if not changes:
        board_path = Path(board_file)
    elif board_path.resolve() == Path(board_file).resolve():
        board_path = board_path.with_name(board_path.stem + "-new.json")  # never over the original
    try:
        board_path.parent.mkdir(parents=True, exist_ok=True)
        if changes:
            board_path.write_text(board_text(new) + "\n", encoding="utf-8")
        cal_path.write_text(test.calibration(new), encoding="utf-8")
    except OSError as e:
        raise UserError(f"cannot write the corrected files: {e}") from None
    print()
    if changes:
        print(f"Wrote {board_path}, the board file as the board is wired and measured "
              f"(version {new['version']}); what differs from {Path(board_file).name}:")
        for line in changes:
            print("  " + line)
    else:
        print(f"The board file {board_file} is right as it is: nothing to correct")
    n = sum(1 for r in test.cells.values() if r.found is not None)
    print(f"Wrote {cal_path}: the empty level of {n} cells, as the device keeps it "
          f"(calibration.txt)")
    fix = print_repairs(test)
    print(f"{'Then put' if fix else 'Put'} them on the board:\n  turtleboard flash --port {port} "
          f"--board {board_path} --calibration {cal_path}")
    if test.doubts:
        print(f"Then test again for what disagreed:\n  turtleboard board test --port {port} "
              f"--board {board_path}")
    return 1 if changes or fix or test.doubts else 0
