"""The serial link to a board and the host's replica of its game; finding the ports."""
