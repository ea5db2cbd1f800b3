# Errors of the rules engine. Every message says what was wrong and what to do.


class GameError(ValueError):
    pass


class IllegalAction(GameError):
    # A well-formed action that the rules do not allow now.
    pass


class BadNotation(GameError):
    # Text that is no action of this game.
    pass


class BadSetup(GameError):
    # Unknown game or option, a player count out of range, a bad record header.
    pass
