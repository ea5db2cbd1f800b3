"""`turtleboard board bom FILE`: the parts list of a board file, with counts,
as a table on screen or CSV (docs/hardware.md, "Parts")."""

from __future__ import annotations

import csv
import io

# Turtles (one magnet each) a game needs at most, from the rules.
TURTLES = {
    "mahe": (7, "one per player, two each with 2 or 3 players: 7 at most"),
    "race": (5, "one per colour"),
    "tortuga": (16, "8 per player; Tattoo Turtles and Hatching Day the same"),
}
TITLES = {"mahe": "Mahé", "race": "the Turtle Race", "tortuga": "Tortuga"}


def bom_rows(obj: dict, turtles: int | None = None) -> list[tuple[str, int, str]]:
    """[(part, count, notes)] for the board file `obj` (checked)."""
    cells = len(obj["cells"])
    muxes = len(obj["mux"]["adc"])
    leds = obj["leds"]["count"]
    buttons = sorted(obj["buttons"])
    rows = [
        ("Raspberry Pi Pico (RP2040) or Pico W", 1, "runs the firmware"),
        ("DRV5055A1 analog hall sensor", cells, "one under each cell"),
        ("74HC4067 16-channel analog multiplexer (breakout)", muxes,
         "%d inputs for %d cells" % (16 * muxes, cells)),
        ("100 nF ceramic capacitor", cells + muxes, "one at each sensor and each multiplexer"),
        ("WS2812B LED (NeoPixel)", leds, "%d beside cells, %d in groups (%s)" % (
            cells, leds - cells, ", ".join(sorted(obj["leds"]["groups"])) or "none")),
        ("330 \u03a9 resistor", 1, "in the LED data line"),
        ("1000 \u00b5F capacitor, 10 V or more", 1, "across the LEDs' 5 V supply"),
        ("push button", len(buttons), ", ".join(b.upper() for b in buttons)),
        ("Schottky diode (1N5817)", 1, "5 V supply to the Pico's VSYS"),
        ("5 V 2 A power supply", 1, "for the LEDs"),
    ]
    for game in obj["games"]:
        count, why = TURTLES.get(game, (0, "see the rules"))
        if turtles is not None:
            count, why = turtles, "as asked (--turtles)"
        rows.append(("neodymium disc magnet 6 x 2 mm, N35-N42, for %s" % TITLES.get(game, game),
                     count, "one per turtle, north pole up; %s" % why))
    return rows


def bom_table(obj: dict, rows: list[tuple[str, int, str]]) -> str:
    width = max(len(r[0]) for r in rows)
    lines = ["Parts for %s v%s" % (obj["name"], obj["version"]), ""]
    lines.append("%-*s %5s  %s" % (width, "part", "count", "notes"))
    lines.append("%s %s  %s" % ("-" * width, "-" * 5, "-" * 40))
    for part, count, notes in rows:
        lines.append("%-*s %5d  %s" % (width, part, count, notes))
    lines.append("")
    lines.append("Plus wire, a board to mount them under, and one magnet to spare for "
                 "`turtleboard board test`.")
    return "\n".join(lines)


def bom_csv(rows: list[tuple[str, int, str]]) -> str:
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    w.writerow(["part", "count", "notes"])
    for row in rows:
        w.writerow(row)
    return out.getvalue()
