"""Errors the host tool reports as a message (never a traceback)."""


class UserError(Exception):
    """An expected failure: the message says what was wrong and what to do."""
