# The random-simulation battery (in the manner of OpenSpiel's tests), for any
# game: run it from a game's test module with that game's settings.
from turtles import CHANCE, TERMINAL, BadNotation, IllegalAction, from_record, new_game
from turtles.bots import random_action
from turtles.record import write_record
from turtles.rng import Rng


def run_battery(name, players, options, games, max_actions=5000, seed=1):
    rng = Rng(seed)
    for _ in range(games):
        game = new_game(name, players, options)
        start_key = game.state_key()
        start_hash = game.state_hash()
        keys = [start_key]
        n = 0
        while game.to_move() != TERMINAL:
            who = game.to_move()
            assert who == CHANCE or 0 <= who < players, who
            legal = game.legal_actions()
            assert legal, "no legal action at a non-terminal state"
            texts = [game.action_text(a) for a in legal]
            assert len(set(texts)) == len(texts), "action texts not unique: %s" % texts
            for a, t in zip(legal, texts):
                assert game.parse_action(t) == a, "%s does not parse back" % t
            if who == CHANCE:
                outs = game.chance_outcomes()
                assert sorted(a for a, _ in outs) == sorted(legal)
                assert all(w > 0 for _, w in outs)
            action = random_action(game, rng)
            game.apply(action)
            keys.append(game.state_key())
            n += 1
            assert n <= max_actions, "%s did not end within %d actions" % (name, max_actions)
        res = game.result()
        assert len(res["scores"]) == players
        flat = []
        for group in res["ranking"]:
            flat.extend(group)
        assert sorted(flat) == list(range(players)), res
        assert res["winners"] and all(0 <= w < players for w in res["winners"])
        assert sorted(res["winners"]) == sorted(res["ranking"][0]), res
        # serialize / deserialize: the record replays to the same state
        again = from_record(write_record(game))
        assert again.state_key() == game.state_key()
        assert again.result() == res
        # nothing is legal after the end
        assert game.legal_actions() == []
        # undo back to the start, through every intermediate state
        i = len(keys) - 1
        while game.history:
            game.undo()
            i -= 1
            assert game.state_key() == keys[i], "undo to step %d differs" % i
        assert game.state_key() == start_key and game.state_hash() == start_hash


def check_rejects(game, text, exc=IllegalAction):
    # `text` must be refused with exc, the state unchanged; returns the message.
    before = game.state_key()
    try:
        game.apply_text(text)
    except exc as e:
        assert game.state_key() == before
        return str(e)
    raise AssertionError("%r was accepted" % text)


def check_bad_notation(game, text):
    return check_rejects(game, text, BadNotation)
