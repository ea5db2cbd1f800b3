# Snapshots (Game.state_text / Game.resume, the game log's S lines): a game
# resumed from a snapshot is the replayed game, for every game and variant.
from turtles import BadSetup, IllegalAction, new_game
from turtles.bots import random_action
from turtles.rng import Rng

from check import raises

# (game, players, options): every game, the variants that change the state
GAMES = [
    ("mahe", 2, {}), ("mahe", 3, {"egg_dice": 1}), ("mahe", 4, {}), ("mahe", 5, {"egg_dice": 1}),
    ("race", 2, {}), ("race", 4, {"mode": "physical"}),
    ("race", 3, {"open_colours": 1, "start": "side_by_side"}),
    ("tortuga", 2, {}), ("tortuga", 2, {"hops": 1}), ("tortuga", 2, {"tattoo": 2}),
    ("tortuga", 2, {"hatching": 1}), ("tortuga", 2, {"hops": 1, "hatching": 1}),
]


def _fields(game):
    # What the state is made of: every attribute but the history, what only
    # undoes it (Mahé's move records) and caches.
    out = {}
    for k in game.__dict__:
        if k not in ("history", "moved") and not k.startswith("_"):
            out[k] = getattr(game, k)
    return out


def _same(a, b):
    assert a.state_hash() == b.state_hash()
    assert a.state_key() == b.state_key()
    assert a.to_move() == b.to_move()
    assert a.legal_actions() == b.legal_actions()
    assert a.legal_texts() == b.legal_texts()
    assert a.image() == b.image()
    assert a.is_over() == b.is_over()
    assert a.result() == b.result()
    assert len(a.history) == len(b.history)


def _resumed(game):
    other = new_game(game.name, game.players, game.options)
    other.resume(len(game.history), game.state_text(), game.state_hash())
    return other


def _check_game(name, players, options, seed):
    rng = Rng(seed)
    game = new_game(name, players, options)
    cuts = 0
    while True:
        if rng.below(5) == 0 or game.is_over():
            cuts += 1
            other = _resumed(game)
            fa = _fields(game)
            fb = _fields(other)
            for k in fa:
                if k != "geo":
                    assert fa[k] == fb[k], (name, k, fa[k], fb[k])
                    assert type(fa[k]) is type(fb[k]), (name, k)
            _same(game, other)
            # play on (and take back) from both: the same game
            r1 = Rng(seed + cuts)
            r2 = Rng(seed + cuts)
            for _ in range(6):
                if game.is_over():
                    break
                a = random_action(game, r1)
                assert random_action(other, r2) == a
                game.push(a)
                other.push(a)
                _same(game, other)
            while other.history.n:
                game.undo()
                other.undo()
                _same(game, other)
            raises(IllegalAction, other.undo)  # the actions before the snapshot are not held
            if game.is_over():
                return cuts
        game.push(random_action(game, rng))


def test_resume_is_the_replayed_game():
    for i in range(len(GAMES)):
        name, players, options = GAMES[i]
        for seed in (1, 2, 3):
            assert _check_game(name, players, options, seed * 100 + i) > 0


def test_resume_refuses_a_snapshot_that_does_not_fit():
    game = new_game("mahe", 4)
    rng = Rng(5)
    for _ in range(40):
        game.push(random_action(game, rng))
    text = game.state_text()
    h = game.state_hash()
    raises(BadSetup, new_game("mahe", 4).resume, 40, text, h ^ 1)  # another state's hash
    raises(BadSetup, new_game("mahe", 4).resume, 40, text[:-3], h)  # cut short
    raises(BadSetup, new_game("mahe", 4).resume, 40, "[1,2]", h)  # too few values
    raises(BadSetup, new_game("mahe", 3).resume, 40, text, h)  # another game's
    raises(BadSetup, new_game("race", 4).resume, 40, text, h)
    raises(BadSetup, game.resume, 40, text, h)  # not a fresh game
    ok = new_game("mahe", 4)
    ok.resume(40, text, h)
    assert len(ok.history) == 40 and ok.state_hash() == h


def test_resumed_history_counts_what_it_does_not_hold():
    game = new_game("race", 3)
    rng = Rng(9)
    for _ in range(30):
        game.push(random_action(game, rng))
    other = _resumed(game)
    assert len(other.history) == 30 and other.history
    raises(IndexError, list, other.history)
    raises(IndexError, other.history.__getitem__, 0)
    a = random_action(other, rng)
    other.push(a)
    assert other.history[-1] == a and other.history[30] == a and len(other.history) == 31
    assert list(other.history.actions_held()) == [a]
    assert "not held" in repr(other.history)
