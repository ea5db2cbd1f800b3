# A prompt: a choice the sensors cannot make. NEXT cycles through the
# choices (the LEDs preview the current one), OK confirms; the host may
# answer instead. Kinds:
#   move    several legal moves give the board that is sensed
#   decide  a decision the board cannot show (roll or stop, a team, a card)
#   chance  a physical die or card: which value came up
#   hidden  OK pressed on a quiet board: a move the sensors cannot see
#           (the last choice, None, cancels)


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
    return "cancel" if action is None else game.action_text(action)
