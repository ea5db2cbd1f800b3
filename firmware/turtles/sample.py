# What a player of the Turtle Race cannot see, sampled from what they can:
# the other players' colours (among those nobody has shown) and hands, and
# the draw pile (every card not played and not in the player's own hand).
# The result is a separate game a bot may play to the end.

from .race import DECK, KINDS, Race


def race_world(game, me, rng):
    w = Race(game.players, game.options, game.geometry)
    w.stacks = [s[:] for s in game.stacks]
    w.pos = game.pos[:]
    w.stack_left = game.stack_left
    w.colour_next = game.colour_next
    w.played = game.played[:]
    w.played_n = game.played_n
    w.draw_n = game.draw_n
    w.deal_left = game.deal_left
    w.turn = game.turn
    w.draw_left = game.draw_left
    w.passing = game.passing
    w.show_left = game.show_left
    w.last = game.last
    # colours: the ones the player knows stay, the others are dealt anew
    n = game.players
    colours = [-1] * n
    free = [0, 1, 2, 3, 4]
    for p in range(game.colour_next):
        if game.colour_known(p, me):
            colours[p] = game.colour_of[p]
            free.remove(colours[p])
    rng.shuffle(free)
    for p in range(game.colour_next):
        if colours[p] < 0:
            colours[p] = free.pop()
    w.colour_of = colours
    # cards: the unseen ones, shuffled, into the other hands and the pile
    mine = game.hands[me]
    unseen = []
    for k in range(KINDS):
        unseen.extend([k] * (DECK[k] - game.played[k] - mine[k]))
    rng.shuffle(unseen)
    hands = []
    at = 0
    for p in range(n):
        if p == me:
            hands.append(mine[:])
            continue
        h = [0] * KINDS
        for _ in range(sum(game.hands[p])):
            h[unseen[at]] += 1
            at += 1
        hands.append(h)
    draw = [0] * KINDS
    while at < len(unseen):
        draw[unseen[at]] += 1
        at += 1
    w.hands = hands
    w.draw = draw
    return w
