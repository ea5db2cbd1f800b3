"""Plain-text picture of a Tortuga position (Tattoo Turtles, Hatching Day too).

Each cell shows its name and what is on it: S or N an active turtle of that
side, x a neutral (flipped) turtle, a second letter its tattoo (L Life,
E Exchange, I Immortality, C Contamination), . an empty cell. North is up.
"""

from __future__ import annotations

from turtles import TERMINAL
from turtles.tortuga import POWER_NAMES, Tortuga


def _layout(game) -> list[str]:
    geo = game.geometry or Tortuga.default_geometry()
    turtles = game.snapshot()["turtles"]
    spots = []
    for name, q, r, _s in geo["cells"]:
        up = -(2 * r + q)  # height in half cells, north positive
        mark = turtles.get(name, ".")
        if mark.startswith("X"):
            mark = "x" + mark[1:]
        spots.append((up, q, f"{name}:{mark}"))
    top = max(s[0] for s in spots)
    bottom = min(s[0] for s in spots)
    left = min(s[1] for s in spots)
    width = 6 * (max(s[1] for s in spots) - left + 1)
    lines = [[" "] * width for _ in range(top - bottom + 1)]
    for up, q, text in spots:
        row = lines[top - up]
        x = 6 * (q - left)
        row[x : x + len(text)] = list(text)
    return ["  " + "".join(row).rstrip() for row in lines]


def text_picture(game) -> str:
    snap = game.snapshot()
    geo = game.geo
    out = [f"Tortuga{_variant(game)}  (north is up)"]
    out.extend(_layout(game))
    counts = [0, 0]
    neutral = 0
    for mark in snap["turtles"].values():
        if mark[0] == "X":
            neutral += 1
        else:
            counts[geo.letters.index(mark[0])] += 1
    for p in range(2):
        line = (
            f"{geo.player_names[p]} ({geo.letters[p]}, camp {geo.names[geo.camp[p]]}): "
            f"{counts[p]} active on the board, {snap['reserve'][p]} in reserve"
        )
        out.append(line)
    out.append(f"neutral turtles: {neutral}")
    who = game.to_move()
    if who == TERMINAL:
        res = game.result()
        if len(res["winners"]) == 2:
            out.append("game over: a draw by the turn limit")
        else:
            out.append(f"game over: {geo.player_names[res['winners'][0]]} wins")
    else:
        what = {
            "setup": "places a tattoo turtle",
            "play": "to move",
            "powers": "resolves tattoo powers",
            "giving": "gives a turtle away (Exchange)",
            "team": "chooses the team of the turtle just jumped",
            "chain": f"continues the chain from {snap['jumper']}",
            "placing": "places turtles (done to stop)",
        }[snap["phase"]]
        out.append(f"{geo.player_names[who]} {what}, turn {snap['turns'] + 1}")
    if snap["pending"]:
        powers = ", ".join(
            f"{POWER_NAMES['LEIC'.index(snap['turtles'][c][1])]} on {c}" for c in snap["pending"]
        )
        out.append(f"powers waiting: {powers}")
    if game.ntattoo:
        out.append("tattoos: L Life, E Exchange, I Immortality, C Contamination")
    return "\n".join(out)


def _variant(game) -> str:
    parts = []
    if game.ntattoo:
        parts.append(f"Tattoo Turtles ({game.ntattoo} tattoo{'s' if game.ntattoo > 1 else ''})")
    if game.options["hatching"]:
        parts.append("Hatching Day")
    if game.hops:
        parts.append("hop by hop")
    return " - " + ", ".join(parts) if parts else ""
