"""Errors the host tool reports as a message (never a traceback)."""


class UserError(Exception):
    """An expected failure: the message says what was wrong and what to do."""


def install_extra(extra: str) -> str:
    """How to add an extra to the installed tool: the wheel names it
    (Turtleboard is not on PyPI: 'turtleboard[X]' alone finds nothing)."""
    from turtleboard import __version__

    return f"pip install 'turtleboard-{__version__}-py3-none-any.whl[{extra}]'"


def reason(e: Exception) -> str:
    """What went wrong, for a one-line message: the system's words for an
    OSError ("No such file or directory", without the errno and the path
    the message names already), else the error's own text."""
    return getattr(e, "strerror", None) or str(e)
