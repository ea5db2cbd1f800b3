# The searches think in slices of a few nodes (turtles/slices.py) and choose
# exactly what the same search made at once chooses, and what the searches
# chose before they were sliced (unsliced.py): the same action, the same
# nodes, the same draws from the bot's Rng, at many positions of every game;
# under CPython and MicroPython (this module runs under both). Between
# slices the game is exactly as it was, and no slice tries more nodes than
# its share.
from unsliced import old_thinker

from turtles import CHANCE, TERMINAL, new_game
from turtles.bots import WHOLE, random_action, thinker
from turtles.montecarlo import WORLD
from turtles.rng import Rng
from turtles.slices import SLICE_NODES


def _positions(name, players, options, seed, every, limit):
    # Positions of a seeded random game where a player decides among several
    # actions (every `every`-th such decision, at most `limit`).
    g = new_game(name, players, options)
    rng = Rng(seed)
    k = 0
    out = 0
    while g.to_move() != TERMINAL and out < limit:
        who = g.to_move()
        if who != CHANCE and len(g.legal_actions()) > 1:
            k += 1
            if k % every == 0:
                out += 1
                yield g
        g.push(random_action(g, rng))


def _sliced(g, level, seed, size):
    # -> (action, nodes, slices, the Rng's next draw), checking every slice:
    # at most `size` nodes, or in the Race one world sampled and the actions
    # before it.
    most = size + WORLD if g.name == "race" else size
    key = g.state_key()
    rng = Rng(seed)
    t = thinker(g, level, rng)
    t.slice_nodes = size
    slices = 1
    before = t.nodes
    while not t.step():
        assert g.state_key() == key, "the game changed between slices"
        assert t.nodes - before <= most, "a slice tried %d nodes" % (t.nodes - before)
        before = t.nodes
        slices += 1
    assert g.state_key() == key
    return t.action, t.nodes, slices, rng.below(30000)


def _old(g, level, seed):
    rng = Rng(seed)
    t = old_thinker(g, level, rng)
    while not t.step():
        pass
    return t.action, t.nodes, rng.below(30000)


def _same_choices(name, players, options, levels, seeds, every, limit):
    checked = 0
    for seed in seeds:
        for g in _positions(name, players, options, seed, every, limit):
            level = levels[checked % len(levels)]
            old = _old(g, level, seed + 50)
            whole = _sliced(g, level, seed + 50, WHOLE)
            assert whole[2] == 1
            for size in (1, SLICE_NODES):
                got = _sliced(g, level, seed + 50, size)
                assert (got[0], got[1], got[3]) == old, "%s %s slice %d: %r, unsliced %r" % (
                    name, level, size, got, old)
                if size == 1 and name != "race":
                    assert got[2] >= got[1]  # a node a slice
            assert (whole[0], whole[1], whole[3]) == old
            checked += 1
    assert checked >= len(seeds) * min(limit, 2)
    print(name, options, levels, checked, "positions")
    return checked


def test_tortuga_slices_choose_as_the_whole_search():
    _same_choices("tortuga", 2, {}, ["good", "easy"], (1, 2, 3), 2, 10)
    _same_choices("tortuga", 2, {"hops": 1}, ["good", "easy"], (3, 4), 3, 12)


def test_tattoo_and_hatching_slices_choose_as_the_whole_search():
    _same_choices("tortuga", 2, {"tattoo": 2, "hops": 1}, ["good"], (1, 2, 3), 2, 10)
    _same_choices("tortuga", 2, {"hatching": 1, "hops": 1}, ["good"], (1, 2), 2, 12)
    _same_choices("tortuga", 2, {"hatching": 1}, ["good", "easy"], (2, 3), 2, 10)


def test_best_slices_choose_as_the_whole_search():
    _same_choices("tortuga", 2, {}, ["best"], (4,), 3, 2)
    _same_choices("mahe", 3, {}, ["best"], (4,), 5, 6)


def test_mahe_slices_choose_as_the_whole_search():
    _same_choices("mahe", 4, {}, ["good", "easy"], (1, 2, 3), 3, 20)
    _same_choices("mahe", 2, {}, ["good"], (3, 4), 2, 15)
    _same_choices("mahe", 3, {"egg_dice": 1}, ["good"], (5, 6), 2, 15)


def test_race_slices_choose_as_the_whole_search():
    _same_choices("race", 5, {}, ["good"], (1, 2), 3, 6)
    _same_choices("race", 3, {"open_colours": 1}, ["good"], (3,), 2, 6)


def test_goal_distances_are_the_shortest_walks():
    # evaluate.forward_distances (one breadth-first walk back from the goal,
    # done in the first slice after a boot) against relaxing every step
    # until nothing changes.
    from turtles.evaluate import forward_distances

    for options in ({}, {"hops": 1}, {"hatching": 1}, {"tattoo": 2}):
        geo = new_game("tortuga", 2, options).geo
        for p in (0, 1):
            n = len(geo.names)
            dist = [99] * n
            dist[geo.goal[p]] = 0
            changed = True
            while changed:
                changed = False
                for i in range(n):
                    for v in geo.jumps[p][i]:
                        if dist[v & 255] + 1 < dist[i]:
                            dist[i] = dist[v & 255] + 1
                            changed = True
            assert list(forward_distances(geo, p)) == dist
            assert 0 < max(d for d in dist if d < 99) < 99


def test_a_search_that_fails_leaves_the_game_as_it_was():
    from turtles.alphabeta import AlphaBeta
    from turtles.evaluate import tortuga

    calls = [0]

    def failing(game, p):
        calls[0] += 1
        if calls[0] == 30:
            raise ValueError("a bug in the evaluation")
        return tortuga(game, p)

    g = new_game("tortuga", 2, {})
    g.apply_text("d2-d3")
    key = g.state_key()
    t = AlphaBeta(g, Rng(1), 150, failing)
    failed = False
    try:
        while not t.step():
            assert g.state_key() == key
    except ValueError:
        failed = True
    assert failed and calls[0] == 30 and t.line  # it failed deep in a line
    assert g.state_key() == key
