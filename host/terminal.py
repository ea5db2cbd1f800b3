"""The terminal a command runs in: put back as it was, however the command ends.

    with kept_terminal():
        ...   # a live view, a full-screen app

Inside, a closed terminal (SIGHUP) or a `kill` (SIGTERM) ends the command as
Ctrl-C does (KeyboardInterrupt), so its clean-up runs; on the way out the
terminal's modes are put back (a live view or a child that left it raw
leaves no terminal without echo behind).

    out = message_console()   # a command's lines: wrapped in a terminal, whole in a pipe
"""

from __future__ import annotations

import contextlib
import signal
import sys


class Hangup(KeyboardInterrupt):
    """The terminal was closed or the command was told to stop."""


def _hang_up(signum, frame):
    # Once: a second stop signal (make passes its own on to the command)
    # must not cut the clean-up the first one started.
    for sig in _STOPS:
        signal.signal(sig, signal.SIG_IGN)
    raise Hangup()


_STOPS = [s for s in (getattr(signal, "SIGHUP", None), signal.SIGTERM) if s is not None]


def _handle(signals, handler=None) -> dict:
    """Set `handler` for each of `signals` (a list), or put back a dict of
    signal -> handler; returns the handlers replaced."""
    pairs = signals.items() if isinstance(signals, dict) else [(s, handler) for s in signals]
    old = {}
    for sig, new in pairs:
        try:
            old[sig] = signal.signal(sig, new)
        except ValueError:  # not the main thread: signals stay as they are
            pass
    return old


def message_console(stderr: bool = False):
    """A rich Console for a command's lines: in a terminal they wrap at its
    width; into a file or a pipe (`| tail -n1`, a CI log) a line stays one
    line, never cut at an assumed 80 columns."""
    from rich.console import Console

    stream = sys.stderr if stderr else sys.stdout
    tty = stream is not None and stream.isatty()
    return Console(stderr=stderr, highlight=False, soft_wrap=not tty)


@contextlib.contextmanager
def shielded():
    """Clean-up that no Ctrl-C, hangup or kill cuts short (a few seconds at most)."""
    old = _handle([signal.SIGINT] + _STOPS, signal.SIG_IGN)
    try:
        yield
    finally:
        _handle(old)


@contextlib.contextmanager
def kept_terminal():
    saved = None
    fd = None
    try:
        import termios

        if sys.stdin is not None and sys.stdin.isatty():
            fd = sys.stdin.fileno()
            saved = termios.tcgetattr(fd)
    except (ImportError, OSError, ValueError):
        saved = None
    old = _handle(_STOPS, _hang_up)
    try:
        yield
    except Hangup:
        old = {}  # on the way out: a later stop signal stays ignored (the exit code says why)
        raise
    finally:
        _handle(old)
        if saved is not None:
            import termios

            try:
                termios.tcsetattr(fd, termios.TCSADRAIN, saved)
            except (OSError, termios.error):
                pass  # the terminal is gone
