"""The virtual board: the real firmware under the MicroPython unix port on a pty, its sim world, the table view and scripted hands."""
