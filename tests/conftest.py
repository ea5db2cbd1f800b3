"""Tests that need the MicroPython unix port are skipped, saying why, on a
machine without one (a CPython the `sim` extra has no wheels for)."""

from __future__ import annotations

import pytest

from turtleboard.sim.mpy import INSTALL_HINT, MicroPythonMissing, micropython_command

NEEDS = ("micropython", "e2e")  # the markers of tests that run MicroPython


def _missing() -> bool:
    try:
        micropython_command()
    except MicroPythonMissing:
        return True
    return False


def pytest_collection_modifyitems(config, items):
    if not _missing():
        return
    skip = pytest.mark.skip(reason="needs MicroPython: " + INSTALL_HINT)
    for item in items:
        if any(item.get_closest_marker(m) for m in NEEDS):
            item.add_marker(skip)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    # an unmarked test that reaches for MicroPython where there is none
    outcome = yield
    report = outcome.get_result()
    if call.excinfo is not None and report.failed and _missing() and (
            call.excinfo.errisinstance(MicroPythonMissing)
            or "MicroPython unix port is not installed" in str(call.excinfo.value)):
        report.outcome = "skipped"
        report.longrepr = (str(item.path), item.location[1] or 0,
                           "Skipped: needs MicroPython: " + INSTALL_HINT)
