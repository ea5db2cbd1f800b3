# Take-backs and chance: the board's own draws (electronic dice, the cards
# it deals) belong to the board. A take-back of one takes it back with the
# actions before it, back to the last one a person made, and the same draw
# comes again when that action is made again: after a take-back from the
# host or the UNDO button, and after a power cut.
from ctl_rig import Rig, only

from turtles.game import CHANCE


def _until(rig, done, ms=2000):
    # Run the board until done() or `ms` of its time have passed.
    end = rig.hal.clock + ms
    while not done() and rig.hal.clock < end:
        rig.run(20)
    return done()


def _mahe_decision(rig):
    # The electronic dice turn up the egg card and die 1: the roll-or-stop question.
    rig.show()
    assert _until(rig, lambda: rig.ctl.prompt is not None and rig.ctl.prompt.kind == "decide")
    return rig.ctl.prompt


def _answer(rig, text):
    p = rig.ctl.prompt
    game = rig.ctl.session.game
    return rig.send("answer", {"id": p.id, "choice": [game.action_text(a) for a in p.actions].index(text)})


def test_a_mahe_die_taken_back_goes_back_to_the_roll_and_comes_again_the_same():
    rig = Rig("mahe")
    rig.new(players=4)  # no seed: the board picks the game's dice
    _mahe_decision(rig)
    game = rig.ctl.session.game
    assert len(game.history) == 2
    _answer(rig, "roll")
    assert _until(rig, lambda: len(game.history) == 4)
    die2 = game.action_text(game.history[3])
    rig.got.clear()
    got = rig.send("undo", {})
    undone = only(got, "undone")
    assert [u["n"] for u in undone] == [3, 2]  # the die, then the roll that asked for it
    assert only(got, "ok") and only(got, "error") == []
    prompt = _mahe_decision(rig)
    assert [game.action_text(a) for a in prompt.actions] == ["stop", "roll"]
    for way in ("host", "buttons"):
        _answer(rig, "roll")
        assert _until(rig, lambda: len(game.history) == 4)
        assert game.action_text(game.history[3]) == die2, way
        rig.got.clear()
        if way == "host":
            rig.send("undo", {})
        else:
            rig.press("undo")  # the board's UNDO button
        assert [u["n"] for u in only(rig.got, "undone")] == [3, 2], way
        _mahe_decision(rig)
    # after a power cut the game's dice are the same
    again = Rig("mahe", folder=rig.folder)
    assert again.ctl.restore()
    again.show()
    assert _until(again, lambda: again.ctl.prompt is not None)
    _answer(again, "roll")
    g = again.ctl.session.game
    assert _until(again, lambda: len(g.history) == 4)
    assert g.action_text(g.history[3]) == die2


def test_the_next_die_is_the_boards_whatever_the_decision_before_it():
    # The draw at action n comes from the game's dice at n: stop or roll,
    # the die rolled next is the same.
    rig = Rig("mahe")
    rig.new(players=4)
    _mahe_decision(rig)
    game = rig.ctl.session.game
    _answer(rig, "roll")
    assert _until(rig, lambda: len(game.history) == 4)
    rolled = game.action_text(game.history[3])
    rig.send("undo", {})
    _mahe_decision(rig)
    _answer(rig, "stop")
    rig.show()  # the turtle where the engine moved it
    assert _until(rig, lambda: len(game.history) >= 4)
    assert game.action_text(game.history[3]) == rolled  # the next player's die 1


def test_a_die_entered_by_hand_is_taken_back_alone():
    rig = Rig("mahe")
    rig.new(players=4, dice="physical")
    rig.show()
    for text in ("e3", "d2", "roll", "d4"):
        rig.send("enter", {"text": text})
    got = rig.send("undo", {})
    assert [u["n"] for u in only(got, "undone")] == [3]
    rig.show()
    assert _until(rig, lambda: rig.ctl.prompt is not None and rig.ctl.prompt.kind == "chance")
    got = rig.press("undo")
    assert [u["n"] for u in only(got, "undone")] == [2]  # then the roll


def test_the_race_dealt_by_the_board_draws_the_same_card_after_a_takeback():
    rig = Rig("race")
    rig.send("new", {"game": "race", "players": 3, "options": {"mode": "dealt"}})
    rig.show()
    game = rig.ctl.session.game
    assert _until(rig, lambda: game.to_move() >= 0)
    dealt = len(game.history)
    # nothing a player did yet: the deal is the board's and would come again
    got = rig.send("undo", {})
    assert only(got, "error")[0]["code"] == "illegal" and only(got, "undone") == []
    assert "the board drew every action" in only(got, "error")[0]["msg"]
    assert len(game.history) == dealt
    plays = game.legal_texts()
    rig.send("enter", {"text": plays[0]})
    rig.show()  # the turtle moved as lit: then the board draws
    assert _until(rig, lambda: len(game.history) == dealt + 2 and game.to_move() != CHANCE, 5000)
    drawn = game.action_text(game.history[dealt + 1])
    got = rig.send("undo", {})
    assert [u["n"] for u in only(got, "undone")] == [dealt + 1, dealt]  # the draw with its play
    assert game.legal_texts() == plays
    rig.show()
    rig.run(200)
    # the same card drawn after another card played: the pile is the board's
    rig.send("enter", {"text": plays[-1]})
    rig.show()
    assert _until(rig, lambda: len(game.history) == dealt + 2, 5000)
    assert game.action_text(game.history[dealt + 1]) == drawn


def test_a_takeback_of_draws_reaching_behind_the_boots_snapshot():
    # The board's draws after a power cut, resumed from a snapshot: the
    # takeback replays the game before it and goes back to the person's action.
    from ctl_rig import play_seeded

    from controller.session import SNAPSHOT_EVERY

    for seed in range(1, 40):
        rig = Rig("mahe")
        rig.new(players=4)  # the board's own dice: the host's entries stand for them here

        def quiet(k, rig=rig):
            rig.ctl.session.keep_snapshot()
            rig.hal.tx = bytearray()

        play_seeded(rig, SNAPSHOT_EVERY, seed, quiet)
        if rig.ctl.session.game.to_move() == CHANCE:
            break
    game = rig.ctl.session.game
    play_seeded(rig, 1, seed)  # one draw after the snapshot
    n = len(game.history)
    copy = game.copy()
    back = 0
    while True:  # the draws, then the person's action before them
        copy.undo()
        back += 1
        if copy.to_move() != CHANCE:
            break
    assert back >= 2
    again = Rig("mahe", folder=rig.folder)
    assert again.ctl.restore()
    assert again.ctl.session.game.history.base == SNAPSHOT_EVERY
    got = again.send("undo", {})
    assert only(got, "error") == []
    assert [u["n"] for u in only(got, "undone")] == list(range(n - 1, n - 1 - back, -1))
    assert again.ctl.session.game.state_hash() == copy.state_hash()
