# Simple evaluations the bots search with: small ints, higher is better for
# the player asked about. Each reads only what that player may know.

WIN = 100000  # a won game; search adds or takes the plies to it

# ---- Tortuga and its variants ------------------------------------------

TURTLE = 100    # an active turtle on the board
RESERVE = 80    # a turtle still in reserve (Hatching Day, Tattoo)


def forward_distances(geo, p):
    # Steps forward each cell needs to reach p's goal (99: never), kept on
    # the board object: a breadth-first walk back from the goal.
    kept = getattr(geo, "bot_dist", None)
    if kept is None:
        kept = [None, None]
        geo.bot_dist = kept
    if kept[p] is not None:
        return kept[p]
    n = len(geo.names)
    back = [[] for _ in range(n)]  # cells one forward step before each
    for i in range(n):
        for v in geo.jumps[p][i]:
            back[v & 255].append(i)
    dist = bytearray([99] * n)
    dist[geo.goal[p]] = 0
    todo = [geo.goal[p]]
    k = 0
    while k < len(todo):
        j = todo[k]
        k += 1
        for i in back[j]:
            if dist[i] == 99:
                dist[i] = dist[j] + 1
                todo.append(i)
    kept[p] = dist
    return dist


def tortuga(game, p):
    # Turtles count, and more the nearer they are to the goal. A game won by
    # reaching the goal is seen here; one lost for want of a move only when
    # the search has made the list of actions (it is rare).
    w = game.winner
    if w < 0 and game.phase == 1 and game._legal is not None and not game._legal:
        w = 1 - game.side
    if w >= 0:
        if w > 1:
            return 0  # a draw by the turn limit
        return WIN if w == p else -WIN
    geo = game.geo
    mine = forward_distances(geo, p)
    theirs = forward_distances(geo, 1 - p)
    me = p + 1
    score = RESERVE * (game.reserve[p] - game.reserve[1 - p])
    b = game.board
    for c in range(len(b)):
        m = b[c]
        if m == me:
            d = 12 - mine[c] if mine[c] < 12 else 0
            score += TURTLE + d * d
        elif m and m != 3:
            d = 12 - theirs[c] if theirs[c] < 12 else 0
            score -= TURTLE + d * d
    return score


# ---- Mahé ------------------------------------------------------------------

CARD_MEAN = 362  # an unseen egg card: 87 eggs on 24 cards, in hundredths


def mahe_eggs(game, me):
    # Hundredths of eggs won so far, for every player: `me`'s own cards at
    # their values, the others' (face down) at the mean, and the nest.
    out = []
    for p in range(game.players):
        if p == me:
            out.append(100 * sum(game.won[p]))
        else:
            out.append(CARD_MEAN * len(game.won[p]))
    if game.nest_owner >= 0:
        out[game.nest_owner] += 700
    return out


def mahe(game, me):
    # Hundredths of eggs for every player, as `me` may know them: their own
    # cards, the others' counted at the mean (even at the end of a line of
    # search: the bot never looks at them). A turtle earns the share of
    # the next card it has swum of the lap to the beach. (Scores that credit
    # a stack's progress to the owner of its top turtle played no better
    # against `easy`: docs/bots.md.)
    out = mahe_eggs(game, me)
    if game.phase == 4:
        return out
    f = game.fields
    beach = game.beach
    prize = 100 * game.faceup if game.faceup else CARD_MEAN
    if game.revealed >= 20 and not game.faceup:
        prize = 700  # the nest is next
    per = game.per
    for c in range(f + 1):
        stack = game.stacks[c]
        if not stack:
            continue
        gap = beach if c == 0 else (beach - c - 1) % f + 1
        near = prize * (f - gap + 1) // f
        for t in stack:
            out[t // per] += near
    return out


# ---- the Turtle Race -----------------------------------------------------

def race(game, p):
    # The player's own turtle (they know its colour): how far, how high in
    # its stack, and how many turtles are ahead of it.
    c = game.colour_of[p]
    if c < 0:
        return 0
    order = game.order()
    place = order.index(c)
    return 100 * game.pos[c] - 40 * place
