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


def pytest_configure(config):
    # Tests send Ctrl-C (SIGINT) to the commands they start, as a terminal
    # does. A shell without job control starts a background job (`make test
    # &` in a script) with SIGINT ignored, and every child inherits that: the
    # commands would never see the Ctrl-C. The tests' process takes SIGINT as
    # an interactive shell gives it.
    import signal

    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGINT])
    # One folder for the scratch folders of a test run (game logs,
    # calibrations: tests/firmware/hwtools.py), removed when the run ends;
    # xdist's workers and the MicroPython processes inherit it.
    import os
    import tempfile

    if not os.environ.get("TB_SCRATCH"):
        os.environ["TB_SCRATCH"] = tempfile.mkdtemp(prefix="tb-tests-")
        config._tb_scratch = os.environ["TB_SCRATCH"]


def pytest_unconfigure(config):
    import shutil

    scratch = getattr(config, "_tb_scratch", None)
    if scratch:
        shutil.rmtree(scratch, ignore_errors=True)


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


def _sigint_state() -> tuple:
    """What a child started now inherits for SIGINT: ignored, blocked."""
    import signal

    with open("/proc/self/status") as f:
        fields = dict(line.split(":", 1) for line in f if line.startswith(("SigIgn", "SigBlk")))
    bit = 1 << (signal.SIGINT - 1)
    return (int(fields["SigIgn"], 16) & bit != 0, int(fields["SigBlk"], 16) & bit != 0)


@pytest.fixture(autouse=True)
def _sigint_as_a_shell_gives_it(request):
    # Tests send SIGINT to the commands they start; a child inherits an
    # ignored or blocked SIGINT from this process. A test that leaves it so
    # is named here (and the state put back), instead of a later Ctrl-C test
    # failing for it.
    import os
    import signal

    yield
    if not os.path.exists("/proc/self/status"):
        return
    ignored, blocked = _sigint_state()
    if ignored or blocked:
        signal.signal(signal.SIGINT, signal.default_int_handler)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGINT])
        pytest.fail("this test left SIGINT %s in the test process (its children would "
                    "not stop on Ctrl-C)" % ("ignored" if ignored else "blocked"), pytrace=False)
