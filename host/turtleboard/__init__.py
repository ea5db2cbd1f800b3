"""Turtleboard host tool: mirror, flash and debug the board from a PC."""

__version__ = "0.1.0"
