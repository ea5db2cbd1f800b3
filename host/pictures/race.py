"""Plain-text picture of a Turtle Race: the track with its stacks, the last
card, whose turn, and hands and colours only as far as the viewer may know."""

from __future__ import annotations

from turtleboard.pictures.describe import race_card
from turtles import CHANCE, TERMINAL

WIDTH = 8  # characters per field column ("purple" plus a space or two)


def _cell(text: str) -> str:
    return (" " + text).ljust(WIDTH)


def track_lines(view: dict) -> list[str]:
    """The track left to right, each stack drawn bottom (low) to top (high)."""
    track = view["track"]
    names = ["start"] + [str(i) for i in range(1, len(track) - 1)] + ["lettuce"]
    height = max([len(s) for s in track] + [1])
    lines = []
    for row in range(height - 1, -1, -1):
        line = "".join(_cell(s[row] if row < len(s) else "") for s in track)
        lines.append(line.rstrip())
    lines.append("".join("-" * (WIDTH - 1) + " " for _ in track).rstrip())
    lines.append("".join(_cell(n) for n in names).rstrip())
    return lines


def _who(game, view: dict) -> str:
    who = view["to_move"]
    if who == TERMINAL:
        return "the race is over"
    if who == CHANCE:
        legal = game.legal_texts()
        what = legal[0].split()[0] if legal else ""
        return {
            "stack": "the turtles are stacked on the start (stack <colour>)",
            "colour": "a player's colour is told",
            "draw": "a card is drawn (draw <card>)",
            "show": "a dead hand is shown (show <card>)",
        }.get(what, "chance")
    if game.colours_first and game.colour_next < game.players:
        return f"player {who + 1} chooses a colour"
    return f"player {who + 1} plays a card"


def text_picture(game, player: int | None = None) -> str:
    """The position as `player` may see it (None: an onlooker)."""
    view = game.view(player)
    opts = view["options"]
    lines = [
        f"The Turtle Race: {view['players']} players, {opts['mode']} cards, "
        f"{opts['start'].replace('_', ' ')} start"
        + (", open colours" if opts["open_colours"] else "")
        + ("" if player is None else f"; seen by player {player + 1}"),
        "",
    ]
    lines += track_lines(view)
    lines.append("")
    lines.append(f"last card played: {race_card(view['last_card']) if view['last_card'] else 'none yet'}")
    lines.append(f"to move: {_who(game, view)}")
    colours = []
    for p, c in enumerate(view["colours"]):
        colours.append(f"player {p + 1} {c or '?'}")
    lines.append("colours: " + ", ".join(colours))
    piles = f"draw pile {view['draw_pile']}, played pile {view['played_pile']}"
    if "hand_sizes" in view:
        piles += ", hands " + " ".join(str(n) for n in view["hand_sizes"])
    lines.append(piles)
    if view.get("hand") is not None:
        lines.append(f"hand of player {player + 1}: " + (", ".join(race_card(c) for c in view["hand"]) or "empty"))
    res = view["result"]
    if res:
        lines.append("winners: " + ", ".join(f"player {p + 1}" for p in res["winners"]))
    return "\n".join(lines)
