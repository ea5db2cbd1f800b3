"""On the PC this folder is the package turtleboard.firmware (pyproject.toml
maps it). The device gets main.py and the packages beside this file, never this
file (turtleboard.paths.FIRMWARE_PARTS)."""
