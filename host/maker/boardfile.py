"""Board files as the maker's tools write them: laid out as the reference
boards are (tools/make_boards.py writes those with board_text too), so a
corrected file differs from the old one only where the board does."""

from __future__ import annotations

import json


def board_text(value, indent: int = 0) -> str:
    """JSON with short containers kept on one line, so a board file reads as a table."""
    flat = json.dumps(value, ensure_ascii=False)
    if len(flat) + indent <= 96 or not isinstance(value, (dict, list)):
        return flat
    pad = " " * (indent + 2)
    if isinstance(value, list):
        items = [pad + board_text(v, indent + 2) for v in value]
        return "[\n" + ",\n".join(items) + "\n" + " " * indent + "]"
    items = [pad + json.dumps(k, ensure_ascii=False) + ": " + board_text(v, indent + 2)
             for k, v in value.items()]
    return "{\n" + ",\n".join(items) + "\n" + " " * indent + "}"


def differences(old, new, path: str = "$") -> list[str]:
    """`$.cells.3.sensor: 3 -> 4` for every value that differs."""
    out = []
    if isinstance(old, dict) and isinstance(new, dict):
        for key in sorted(set(old) | set(new), key=str):
            out += differences(old.get(key), new.get(key), "%s.%s" % (path, key))
    elif old != new:
        out.append("%s: %s -> %s" % (path, json.dumps(old, ensure_ascii=False),
                                      json.dumps(new, ensure_ascii=False)))
    return out
