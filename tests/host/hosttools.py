"""Helpers for the host tests (a module of its own name: other test folders
have their own conftest.py)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def turtleboard(*args, timeout=120, input=None):
    """Run the real `turtleboard` command line; -> CompletedProcess (text)."""
    return subprocess.run(
        [sys.executable, "-m", "turtleboard", *map(str, args)],
        capture_output=True, text=True, timeout=timeout, input=input, cwd=ROOT,
        env=dict(os.environ, COLUMNS="120", NO_COLOR="1"),
    )
