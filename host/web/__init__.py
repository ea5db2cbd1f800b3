"""The table's web page: the live board, each player's own view and questions, served from the host's replica."""
