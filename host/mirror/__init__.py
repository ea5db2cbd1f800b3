"""The live mirror (`turtleboard play`): app.py (the textual app), board_text.py
(the board as terminal text), newgame.py (the new-game dialog), hostseats.py
(the seats the PC plays)."""
