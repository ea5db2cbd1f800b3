# Whole seeded games through the controller on the scripted board: moves
# made on the board, decisions and dice through prompts answered by the
# host. The game log, the reported actions and the engine must agree, and
# no error frame may appear.
from ctl_rig import Rig, only

from turtles.bots import random_action
from turtles.rng import Rng


def play(game, players, dice="physical", seed=1, options=None, limit=400, rig_seed=7, dice_seed=None):
    rig = Rig(game, seed=rig_seed)
    rig.new(players=players, dice=dice, options=options, seed=dice_seed)
    ctl = rig.ctl
    g = ctl.session.game
    rng = Rng(seed)
    wanted = None
    steps = 0
    while not g.is_over() and steps < limit:
        steps += 1
        p = ctl.prompt
        if p is not None:
            texts = rig.ctl.prompt.payload(g)["choices"]
            if wanted in texts:
                pick = texts.index(wanted)
            else:
                picks = [i for i in range(len(texts)) if texts[i] not in ("cancel", "takeback")]
                pick = picks[rng.below(len(picks))]
            rig.send("answer", {"id": p.id, "choice": pick}, run=20)
            wanted = None
            continue
        if list(ctl.board_image()) != list(g.image()):
            rig.show()
            rig.run(100)
            continue
        if g.to_move() < 0:
            rig.run(50)
            continue
        action = random_action(g, rng)
        wanted = g.action_text(action)
        g.push(action)
        after = g.image()
        g.undo()
        if after == g.image():
            rig.send("enter", {"text": wanted}, run=20)
        else:
            rig.show(after)
            rig.run(700)  # past the Race's settle time
    assert only(rig.got, "error") == []
    texts = [g.action_text(a) for a in g.history]
    assert rig.log.load()[1] == texts
    done = [p["text"] for k, p in rig.got if k == "action"]
    undone = len(only(rig.got, "undone"))
    assert len(done) - undone == len(texts)
    return rig


def test_tortuga_game_through_the_board():
    rig = play("tortuga", 2, seed=3)
    assert rig.ctl.session.game.is_over()


def test_mahe_game_with_electronic_dice():
    rig = play("mahe", 3, dice="electronic", seed=4, limit=300)
    assert [p for k, p in rig.got if k == "action" and p["by"] == "dice"]


def test_fixed_dice_seed_rolls_the_same_game():
    # The host may fix the electronic dice (demos, tests); the device's own
    # stirring (its seed, the moment of each roll) then changes nothing.
    def rolls(rig_seed, dice_seed):
        rig = play("mahe", 2, dice="electronic", seed=4, limit=120, rig_seed=rig_seed, dice_seed=dice_seed)
        return [p["text"] for k, p in rig.got if k == "action" and p["by"] == "dice"]

    a = rolls(7, 42)
    assert len(a) > 10
    assert rolls(99, 42) == a
    assert rolls(7, 43) != a


def test_race_game_with_real_cards():
    rig = play("race", 3, seed=5, limit=300)
    assert [p for k, p in rig.got if k == "action" and p["by"] == "sensors"]


def test_tattoo_turtles_and_hatching_day_through_the_board():
    for options, seed in (({"tattoo": 4}, 6), ({"hatching": 1}, 7)):
        rig = play("tortuga", 2, seed=seed, options=options, limit=600)
        assert rig.ctl.session.game.is_over()


def test_mahe_egg_cards_as_dice_with_two_players():
    play("mahe", 2, seed=8, options={"egg_dice": 1}, limit=300)
