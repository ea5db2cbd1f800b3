"""`turtleboard board bom FILE`: the parts list of a board file, with counts,
as a table on screen or CSV (docs/hardware.md, "Parts")."""

from __future__ import annotations

import csv
import io

from controller import scenes

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
        ("DRV5055A1 analog hall sensor", cells, "one under each cell; %d mA each at 3.3 V"
         % SENSOR_MA),
        ("74HC4067 16-channel analog multiplexer (breakout)", muxes,
         "%d inputs for %d cells" % (16 * muxes, cells)),
        ("100 nF ceramic capacitor", cells + muxes, "one at each sensor and each multiplexer"),
        ("WS2812B LED (NeoPixel)", leds, "%d beside cells, %d in groups (%s); %d mA each at "
         "full white" % (cells, leds - cells, ", ".join(sorted(obj["leds"]["groups"])) or "none",
                         LED_WHITE_MA)),
        ("74AHCT125 level shifter (or 74HCT125)", 1,
         "the LED data line from 3.3 V to 5 V: GP%d to 1A, 1Y through 330 \u03a9 to DIN"
         % obj["leds"]["pin"]),
        ("330 \u03a9 resistor", 1, "in the LED data line"),
        ("1000 \u00b5F capacitor, 10 V or more", 1, "across the LEDs' 5 V supply"),
        ("push button", len(buttons), ", ".join(b.upper() for b in buttons)),
        ("Schottky diode (1N5817)", 1, "5 V supply to the Pico's VSYS"),
    ]
    if own_regulator(obj):
        rows.append(("3.3 V regulator, 500 mA or more (AP2112K-3.3)", 1,
                     "the sensors' and multiplexers' 3.3 V from 5 V (net 3V3S), with 1 \u00b5F "
                     "in and out"))
    rows.append(("5 V %d A power supply" % SUPPLY_A, 1, "LEDs, Pico and sensors (power budget below)"))
    for game in obj["games"]:
        count, why = TURTLES.get(game, (0, "see the rules"))
        if turtles is not None:
            count, why = turtles, "as asked (--turtles)"
        rows.append(("neodymium disc magnet 6 x 2 mm, N35-N42, for %s" % TITLES.get(game, game),
                     count, "one per turtle, north pole up; %s" % why))
    return rows


# The power budget (docs/hardware.md, "Power"), in mA: the most each part
# draws (a datasheet's typical figure where the firmware bounds the rest).
LED_WHITE_MA = 3 * scenes.MA_PER_CHANNEL  # a WS2812B at full white
LED_IDLE_MA = 1       # a WS2812B dark
SENSOR_MA = 6         # a DRV5055 at 3.3 V, typical (10 at most)
SENSOR_MAX_MA = 10
MUX_MA = 1            # a 74HC4067 (microamps; 1 counted)
PICO_MA = 50          # the Pico running the firmware (USB and LEDs off)
PICO_3V3_MA = 300     # what the Pico's 3V3(OUT) should give other parts, at most
SUPPLY_A = 3
MARGIN = 0.25         # the supply's headroom over the budget, at least


def own_regulator(obj: dict) -> bool:
    """Do the sensors need a 3.3 V regulator of their own (more than the
    Pico's 3V3(OUT) should give, at their most)?"""
    return len(obj["cells"]) * SENSOR_MAX_MA + len(obj["mux"]["adc"]) * MUX_MA > PICO_3V3_MA


def power_rows(obj: dict) -> list[tuple[str, int, str, int, str]]:
    """[(part, count, mA each, mA in all, rail)] drawn from the 5 V supply."""
    leds = obj["leds"]["count"]
    cells = len(obj["cells"])
    muxes = len(obj["mux"]["adc"])
    rail = "3V3S (own regulator)" if own_regulator(obj) else "Pico 3V3(OUT)"
    led_all = min(leds * LED_WHITE_MA, scenes.LED_LIMIT_MA)
    return [
        ("WS2812B LED", leds, "%d white, %d dark" % (LED_WHITE_MA, LED_IDLE_MA), led_all,
         "5V; %d mA all white, the firmware caps a frame at %d mA"
         % (leds * LED_WHITE_MA, scenes.LED_LIMIT_MA)),
        ("DRV5055A1 sensor", cells, "%d (%d max)" % (SENSOR_MA, SENSOR_MAX_MA),
         cells * SENSOR_MAX_MA, rail),
        ("74HC4067 multiplexer", muxes, "<%d" % MUX_MA, muxes * MUX_MA, rail),
        ("Raspberry Pi Pico", 1, str(PICO_MA), PICO_MA, "VSYS, from 5V"),
        ("74AHCT125 level shifter", 1, "<1", 1, "5V"),
    ]


def power_text(obj: dict) -> list[str]:
    rows = power_rows(obj)
    total = sum(r[3] for r in rows)
    width = max(len(r[0]) for r in rows)
    lines = ["Power budget (5 V supply, mA)", ""]
    lines.append("%-*s %5s  %-16s %6s  %s" % (width, "part", "count", "each", "in all", "from"))
    for part, count, each, whole, rail in rows:
        lines.append("%-*s %5d  %-16s %6d  %s" % (width, part, count, each, whole, rail))
    lines.append("%-*s %5s  %-16s %6d  a 5 V %d A supply: %d%% to spare" % (
        width, "total, at most", "", "", total, SUPPLY_A, 100 - total * 100 // (SUPPLY_A * 1000)))
    return lines


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
    lines.append("")
    lines.extend(power_text(obj))
    return "\n".join(lines)


def bom_csv(rows: list[tuple[str, int, str]]) -> str:
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    w.writerow(["part", "count", "notes"])
    for row in rows:
        w.writerow(row)
    return out.getvalue()
