"""The terminal a command runs in: put back as it was, however the command ends.

    with kept_terminal():
        ...   # a live view, a full-screen app

Inside, a closed terminal (SIGHUP) or a `kill` (SIGTERM) ends the command as
Ctrl-C does (KeyboardInterrupt), so its clean-up runs; on the way out the
terminal's modes are put back (a live view or a child that left it raw
leaves no terminal without echo behind).
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


@contextlib.contextmanager
def shielded():
    """Clean-up that no Ctrl-C, hangup or kill cuts short (a few seconds at most)."""
    old = {}
    for sig in [signal.SIGINT] + _STOPS:
        try:
            old[sig] = signal.signal(sig, signal.SIG_IGN)
        except ValueError:  # not the main thread
            pass
    try:
        yield
    finally:
        for sig, handler in old.items():
            signal.signal(sig, handler)


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
    old = {}
    for sig in _STOPS:
        try:
            old[sig] = signal.signal(sig, _hang_up)
        except ValueError:  # not the main thread
            pass
    try:
        yield
    finally:
        for sig, handler in old.items():
            signal.signal(sig, handler)
        if saved is not None:
            import termios

            try:
                termios.tcsetattr(fd, termios.TCSADRAIN, saved)
            except (OSError, termios.error):
                pass  # the terminal is gone
