"""check_board never crashes: any damage to a good board file gives a list of
(json path, message) problems, and load_board raises BoardError, nothing else."""

from __future__ import annotations

import copy
import json
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from controller.board import BoardError, check_board, load_board

BOARDS = Path(__file__).resolve().parents[2] / "boards"
GOOD = {n: json.loads((BOARDS / f"{n}.json").read_text(encoding="utf-8"))
        for n in ("mahe", "race", "tortuga")}

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-70000, 70000) | st.floats(allow_nan=False)
    | st.text(max_size=6),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner,
                                                                 max_size=4),
    max_leaves=8,
)


def _containers(obj, path=()):
    yield path, obj
    if isinstance(obj, dict):
        for k in sorted(obj):
            yield from _containers(obj[k], path + (k,))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            yield from _containers(v, path + (i,))


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(sorted(GOOD)), st.lists(st.tuples(st.integers(0, 10**6), st.integers(0, 2),
                                                          json_values), min_size=1, max_size=4))
def test_damage_never_crashes_the_checker(name, edits):
    obj = copy.deepcopy(GOOD[name])
    for pick, how, value in edits:
        spots = [(p, o) for p, o in _containers(obj) if p]
        path, _ = spots[pick % len(spots)]
        parent = obj
        for key in path[:-1]:
            parent = parent[key]
        key = path[-1]
        if how == 0:
            parent[key] = value  # replace
        elif how == 1 and isinstance(parent, dict):
            del parent[key]  # remove
        elif isinstance(parent, dict):
            parent[str(value)[:6] or "x"] = value  # add a key
    problems = check_board(obj)
    assert isinstance(problems, list)
    for where, message in problems:
        assert isinstance(where, str) and where.startswith("$")
        assert isinstance(message, str) and message
    try:
        load_board(json.dumps(obj))
    except BoardError as e:
        assert e.problems == problems
    else:
        assert problems == []
