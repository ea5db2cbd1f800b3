# A prompt: a choice the sensors cannot make. NEXT cycles through the
# choices (the LEDs preview the current one), OK confirms; the host may
# answer instead. Kinds:
#   move    several legal moves give the board that is sensed
#   decide  a decision the board cannot show (roll or stop, a team, a card)
#   chance  a physical die or card: which value came up
#   hidden  OK pressed on a quiet board: a move the sensors cannot see
#           (the last choice, None, cancels)
# A `move` prompt may also offer TAKEBACK: the board only lost a turtle and
# that is also the position before the last move.

TAKEBACK = "takeback"  # never an engine action (those are ints or tuples)


class Prompt:
    def __init__(self, pid, kind, text, actions, image=None):
        self.id = pid
        self.kind = kind
        self.text = text
        self.actions = actions  # None stands for "cancel"
        self.current = 0
        self.image = image      # the sensed board a `move` prompt is about

    def next(self):
        self.current = (self.current + 1) % len(self.actions)

    def chosen(self):
        return self.actions[self.current]

    def payload(self, game):
        return {
            "id": self.id,
            "kind": self.kind,
            "text": self.text,
            "choices": [choice_text(game, a) for a in self.actions],
            "current": self.current,
        }


def choice_text(game, action):
    if action is None:
        return "cancel"
    if action == TAKEBACK:
        return TAKEBACK
    return game.action_text(action)
