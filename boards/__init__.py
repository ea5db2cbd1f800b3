"""The reference board files and their schema: the package turtleboard.boards
on the PC (pyproject.toml maps this folder), data only."""
