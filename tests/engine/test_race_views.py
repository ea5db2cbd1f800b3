# Hidden information: a player's view shows their own colour and hand and
# nothing that depends on the other players' colours and hands, nor on the
# draw pile's contents. Checked by changing exactly that hidden part of the
# true state and requiring the serialized view to stay byte for byte the same.
from turtles import TERMINAL, new_game
from turtles.bots import random_action
from turtles.jsontext import dumps
from turtles.race import COLOURS, Race
from turtles.rng import Rng

from check import raises


def _rotated(counts):
    # Same number of cards, another composition (19 kinds, at most 5 cards).
    return counts[1:] + counts[:1]


def check_views(game):
    players = game.players
    over = game.to_move() == TERMINAL
    secret = (game.options["mode"] == "dealt" and not game.options["open_colours"]
              and not over)
    key = game.state_key()
    for viewer in [None] + list(range(players)):
        view = game.view(viewer)
        text = dumps(view)
        assert key not in text
        if game.dealt and viewer is not None:
            # the viewer's own hand is there, exactly
            names = []
            for k in range(19):
                names.extend([Race.action_text(game, 100 + k)[5:].replace("^", "↑")]
                             * game.hands[viewer][k])
            assert view["hand"] == names, (view["hand"], names)
        for p in range(players):
            c = game.colour_of[p]
            if c >= 0 and (p == viewer or not secret):
                assert view["colours"][p] == COLOURS[c]
        # change what the viewer may not know, compare
        saved = (game.hands, game.colour_of, game.draw)
        hidden = False
        hands = []
        for q in range(players):
            if q == viewer or not game.dealt:
                hands.append(game.hands[q])
            else:
                hands.append(_rotated(game.hands[q]))
                hidden = hidden or sum(game.hands[q]) > 0
        colours = []
        for q in range(players):
            c = game.colour_of[q]
            if q != viewer and secret and c >= 0:
                colours.append((c + 1) % 5)
                hidden = True
            else:
                colours.append(c)
        game.hands = hands
        game.colour_of = colours
        if game.dealt:
            game.draw = _rotated(game.draw)
        try:
            changed = game.state_key()
            other = dumps(game.view(viewer))
        finally:
            game.hands, game.colour_of, game.draw = saved
        assert game.state_key() == key
        if hidden:
            assert changed != key  # the test really changed something hidden
        assert other == text, "view of %s depends on hidden information:\n%s\n%s" % (
            viewer, text, other)


def _walk(players, options, games, seed):
    rng = Rng(seed)
    checked = 0
    for _ in range(games):
        g = new_game("race", players, options)
        while True:
            check_views(g)
            checked += 1
            if g.is_over():
                break
            g.push(random_action(g, rng))
    return checked


def test_views_hide_other_hands_and_colours_dealt():
    assert _walk(5, {}, 4, 1) > 200
    assert _walk(2, {}, 4, 2) > 100
    _walk(3, {"start": "side_by_side"}, 3, 3)


def test_views_open_colours_and_physical():
    _walk(4, {"open_colours": 1}, 2, 4)
    _walk(3, {"mode": "physical"}, 3, 5)


def test_the_view_check_catches_a_leak():
    # The check must fail on views that give away hands or colours.
    class PeekHands(Race):
        def view(self, player):
            v = Race.view(self, player)
            v["peek"] = [sum(h[k] * (k + 1) for k in range(19)) for h in self.hands]
            return v

    class PeekColours(Race):
        def view(self, player):
            v = Race.view(self, player)
            v["seat_of_red"] = [p for p in range(self.players) if self.colour_of[p] == 0]
            return v

    class PeekPile(Race):
        def view(self, player):
            v = Race.view(self, player)
            v["pile"] = self.draw[:]
            return v

    for cls in (PeekHands, PeekColours, PeekPile):
        g = cls(3, {})
        rng = Rng(9)
        while g.to_move() < 0 or g.deal_left:
            g.push(random_action(g, rng))
        raises(AssertionError, check_views, g)
    honest = Race(3, {})
    rng = Rng(9)
    while honest.to_move() < 0 or honest.deal_left:
        honest.push(random_action(honest, rng))
    check_views(honest)
    # the only way to the hidden parts is the snapshot, the whole state
    snap = honest.snapshot()
    assert snap["hands"] == [honest._hand_list(p) for p in range(3)]
