# A second, naive reading of the Mahé rules, written apart from the engine:
# it reads a game's action texts in order, walks every turtle field by field
# (no modular arithmetic) and keeps plain lists. Random games by the engine
# must end in the same position, egg cards and scores.
from turtles import new_game
from turtles.bots import random_action
from turtles.rng import Rng


def walk_game(players, texts, fields=21, beach=21):
    per = 2 if players <= 3 else 1

    def owner(t):
        return t // per
    cells = [[] for _ in range(fields + 2)]  # raft, fields, nest
    cells[0] = list(range(players * per))
    won = [[] for _ in range(players)]
    played = []
    texts = list(texts)
    state = {"faceup": int(texts.pop(0)[1:]), "turned": 1}

    def cell_of(t):
        for c in range(len(cells)):
            if t in cells[c]:
                return c

    def move(t, distance):
        c = cell_of(t)
        if c == 0:
            group = [t]
            cells[0].remove(t)
        else:
            k = cells[c].index(t)
            group = cells[c][k:]
            cells[c] = cells[c][:k]
        here = c
        passed = False
        for _ in range(distance):
            here = 1 if here == 0 or here == fields else here + 1
            if here == beach:
                passed = True
        cells[here] = cells[here] + group
        if not passed:
            return False
        top = group[-1]
        if state["faceup"]:
            won[owner(top)].append(state["faceup"])
            state["faceup"] = 0
            if state["turned"] < 20:
                state["faceup"] = int(texts.pop(0)[1:])
                state["turned"] += 1
            return False
        cells[here].remove(top)
        cells[-1].append(top)
        return True  # the nest: the end

    player = 0
    while True:
        if per == 2:
            first = texts.pop(0)[len("first-"):]
            t = (int(first[0]) - 1) * 2 + "ab".index(first[1])
            order = [t, t ^ 1]
        else:
            order = [player]
        for t in order:
            c = cell_of(t)
            decider = owner(cells[c][-1]) if c else owner(t)
            dice = [int(texts.pop(0)[1:])]
            while True:
                if len(dice) > 1 and sum(dice) > 7:
                    if c:  # bust: the mover and its riders to the raft
                        k = cells[c].index(t)
                        cells[0] = cells[0] + cells[c][k:]
                        cells[c] = cells[c][:k]
                    break
                if len(dice) == 3:
                    if move(t, sum(dice) * 3):
                        return cells, won, played
                    break
                word = texts.pop(0)
                if word == "stop":
                    if move(t, sum(dice) * len(dice)):
                        return cells, won, played
                    break
                if word == "roll":
                    dice.append(int(texts.pop(0)[1:]))
                else:  # cardN: one of the decider's egg cards as this die
                    v = int(word[4:])
                    won[decider].remove(v)
                    played.append(v)
                    dice.append(v)
        player = (player + 1) % players


def check_random_games(players, options, games, seed, geometry=None):
    rng = Rng(seed)
    for _ in range(games):
        g = new_game("mahe", players, options, geometry)
        while not g.is_over():
            g.push(random_action(g, rng))
        texts = [g.action_text(a) for a in g.history]
        size = geometry or {"fields": 21, "beach": 21}
        cells, won, played = walk_game(players, texts, size["fields"], size["beach"])
        assert sorted(cells[0]) == sorted(g.stacks[0])
        assert cells[1:] == g.stacks[1:], (cells, g.stacks)
        assert [sorted(w) for w in won] == g.won
        assert sorted(played) == sorted(g.discarded)
        eggs = [sum(w) for w in won]
        eggs[g.nest_owner] += 7
        assert eggs == g.result()["scores"]


def test_random_games_agree_with_a_field_by_field_walk():
    check_random_games(2, {}, 6, 21)
    check_random_games(4, {}, 6, 22)
    check_random_games(7, {}, 4, 23)


def test_variant_and_other_boards_agree_with_the_walk():
    check_random_games(3, {"egg_dice": 1}, 6, 24)
    check_random_games(5, {"egg_dice": 1}, 4, 25)
    check_random_games(4, {}, 4, 26, {"fields": 9, "beach": 4})
