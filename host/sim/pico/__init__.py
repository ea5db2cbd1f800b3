"""Runs under the MicroPython unix port, not CPython: the rp2 C code the virtual Pico stands in for."""
