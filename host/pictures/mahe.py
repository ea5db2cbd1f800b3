"""Plain-text picture of a Mahé position: the island track as a ring
(counter-clockwise: from the raft down the left side, along the bottom, up the
right side and back along the top to the beach), stacks bottom first, the
nest in the middle, then whose turn it is, the dice, the egg cards."""

from __future__ import annotations

from turtleboard.pictures.describe import mahe_distance


def _ring(n_slots: int) -> tuple[int, int, list[tuple[int, int]]]:
    # (rows, columns, [(row, column) of slot 0, 1, ...]) for a rectangle ring.
    if n_slots % 2:
        n_slots += 1
    rows = max(2, n_slots // 4 + 1)
    cols = (n_slots + 4) // 2 - rows
    places = [(r, 0) for r in range(rows)]
    places += [(rows - 1, c) for c in range(1, cols)]
    places += [(r, cols - 1) for r in range(rows - 2, -1, -1)]
    places += [(0, c) for c in range(cols - 2, 0, -1)]
    return rows, cols, places


def _player(p: int) -> str:
    return f"player {p + 1}"


def text_picture(game) -> str:
    names = game.cells()
    fields = game.fields
    labels = ["[raft]"]  # its turtles are listed above the ring: it can hold them all
    for c in range(1, fields + 1):
        stack = ",".join(game.turtle_name(t) for t in game.stacks[c])
        mark = "*" if c == game.beach else ""
        head = f"[{names[c]}{mark}]"
        labels.append(f"{head} {stack}" if stack else head)
    rows, cols, places = _ring(len(labels))
    width = max(len(s) for s in labels) + 2
    grid = [[" " * width for _ in range(cols)] for _ in range(rows)]
    for label, (r, c) in zip(labels, places, strict=False):
        grid[r][c] = label.ljust(width)
    # the nest sits inside the ring, next to the beach
    nest = game.stacks[fields + 1]
    if nest:
        owner = game.nest_owner
        inside = f"nest: {game.turtle_name(nest[0])} ({_player(owner)}, +7 eggs)"
    else:
        inside = "nest: 7 eggs, won when the pile is gone"
    fits = rows > 2 and len(inside) < width * (cols - 2)
    if fits:
        row = grid[1]
        text = inside.ljust(width * (cols - 2))
        for c in range(1, cols - 1):
            row[c] = text[(c - 1) * width : c * width]
    raft = ", ".join(game.turtle_name(t) for t in sorted(game.stacks[0])) or "nobody"
    lines = [f"On the raft: {raft}"]
    lines += ["".join(row).rstrip() for row in grid]
    if not fits:
        lines.append(inside)
    lines.append("(* the beach; stacks are listed bottom first; the raft never stacks)")
    lines.append("")
    lines.extend(_status(game))
    return "\n".join(lines)


def _status(game) -> list[str]:
    snap = game.snapshot()
    out = []
    phase = snap["phase"]
    res = game.result()
    if res is None:
        mover = snap["mover"]
        turn = f"Turn: {_player(game.player)}"
        if phase == "choose":
            choices = " or ".join(game.legal_texts())
            out.append(f"{turn} chooses which turtle moves first ({choices})")
        elif phase == "reveal":
            out.append(f"{turn}; the next egg card is to be turned up (e1..e6)")
        else:
            dice = list(snap["dice"])
            parts = [str(v) for v in dice]
            if snap["card_die"]:
                parts[snap["card_die"] - 1] += " (egg card)"
            so_far = " + ".join(parts) if dice else "none yet"
            if dice:
                so_far += ", " + mahe_distance(dice)
            out.append(f"{turn}, turtle {mover}; dice: {so_far}")
            if phase == "decide":
                out.append(f"  {_player(snap['decider'])} decides: {', '.join(game.legal_texts())}")
            else:
                out.append(f"  roll die {len(dice) + 1} (d1..d6); {_player(snap['decider'])} decides")
    faceup = snap["faceup"]
    card = f"face-up egg card: {faceup}" if faceup else "no egg card face up"
    out.append(f"Egg cards: {card}; {snap['pile']} face down in the pile")
    if snap["discarded"]:
        out.append(f"  played as dice (out of the game): {', '.join(map(str, snap['discarded']))}")
    for p in range(game.players):
        hand = snap["card_values"][p]
        eggs = sum(hand) + (7 if p == game.nest_owner else 0)
        nest = " + nest 7" if p == game.nest_owner else ""
        cards = "+".join(map(str, hand)) or "no cards"
        turtles = ", ".join(game.turtle_name(t) for t in game.turtles_of(p))
        out.append(f"  {_player(p)} (turtle {turtles}): {cards}{nest} = {eggs} eggs, {len(hand)} card{'' if len(hand) == 1 else 's'}")
    if res is not None:
        winners = " and ".join(_player(p) for p in res["winners"])
        out.append(f"Game over: {winners} {'win' if len(res['winners']) > 1 else 'wins'}")
    return out
