"""Pictures of a position: plain text one module per game, SVG (svg.py), and
what a person at the table knows of it in words (describe.py). CPython only."""

from __future__ import annotations

import importlib


def text_picture(game) -> str:
    """A readable picture of the position of `game`, as plain text lines."""
    try:
        module = importlib.import_module(f"turtleboard.pictures.{game.name}")
    except ModuleNotFoundError:
        return "\n".join(f"{k}: {v}" for k, v in sorted(game.snapshot().items()))
    return module.text_picture(game)
