# What the board means now and what to do about it, decided afresh whenever
# something changed (Controller.think):
#   - the board matches the game: show whose turn and what may move; at a
#     chance node roll (electronic dice) or ask (physical); when only a
#     decision the board cannot show is left, ask (a `decide` prompt);
#   - the game moved without the board (entered by the host, Mahé's turtle
#     after `stop`, a bust, a new game): light what must change at once;
#     only a board showing one legal move from there commits; after a power
#     cut (restored from the log) nothing commits until the board matches;
#   - the board shows the result of one legal action: commit it; of several:
#     a `move` prompt; the position before the last move: take it back;
#     a board that only lost a turtle (a turtle in the air looks so too) is
#     confirmed with OK, never read;
#   - a turtle lifted: light its legal destinations;
#   - anything else, stable for GRACE_MS: light the cells that differ.
# Each function takes the controller (control.py), whose state it reads and
# changes; the scene it fills is drawn by the display (display.py).

from turtles.game import CHANCE, TERMINAL

from . import flows, scenes
from .matcher import chains, image_after
from .prompts import TAKEBACK, choice_text, close_prompt, open_prompt

GRACE_MS = 1500        # an unmatched stable board is guided after this
GAME = "game"          # must_match: the game moved (host, dice, engine, new game)
RESTORE = "restore"    # must_match: the game came back from the log
TAKEN = "taken"        # must_match: a move taken back (host, UNDO): never made again by itself


def decide(ctl, now, scene):
    game = ctl.session.game
    display = ctl.display
    if game is None:
        display.set_status("no game: start one from the host", {})
        return
    pos = ctl.position()
    sensed = ctl.board_image()
    # A cell with a change not yet steady: a turtle may be in transit, and
    # the stable image is not the board. Nothing matches until it is still.
    steady = ctl.steady
    if sensed == pos.image and steady:
        ctl.must_match = None
        in_sync(ctl, scene)
        return
    if ctl.must_match is not None:
        close_prompt(ctl, None)
        # GAME: the board may show the move already; RESTORE: a move the log had
        # not yet written, or a jump chain going on from it (the next hop made
        # while the power was out); never a move taken back (TAKEN), nor the
        # board as it was before the action (nothing moved yet: "red+"
        # entered, the pieces untouched read as "red-")
        if ctl.must_match != TAKEN and pos.player and steady and sensed != ctl.prev_image:
            if pos.lifted(sensed) is None:
                actions = pos.match(sensed)
                if len(actions) == 1:
                    # set right and moved on before the board was read in between
                    ctl.commit(actions[0], "sensors", on_board=True, proven=True)
                    return
                if not actions and commit_chain(ctl, game, sensed):
                    return
                if not actions and ctl.must_match == RESTORE:
                    actions = pos.match_lifted(sensed)
                    if len(actions) == 1:
                        # the move the log had not written, and a turtle
                        # already in the air again when the power went: it
                        # is put down as the game goes on
                        ctl.commit(actions[0], "sensors", on_board=True)
                        ctl.must_match = None
                        return
        text = "put the pieces back as lit" if ctl.must_match == TAKEN else "put the pieces where the lights show"
        if ctl.last_bust and ctl.must_match == GAME:
            text = "a bust (the dice went over 7): put the pieces where the lights show"
        if ctl.last_by == "computer" and game.history:
            text = "the computer plays %s: make its move as lit" % game.action_text(game.history[-1])
        display.guide(scene, sensed, pos.image, text)
        return
    p = ctl.prompt
    if p is not None and p.kind == "move" and p.image == sensed:
        show_prompt(ctl, scene)
        return
    if not steady:  # looked at again once steady (step())
        if p is not None and sensed == pos.image:
            show_prompt(ctl, scene)  # the game's question stays open
            return
        close_prompt(ctl, None)
        settling(ctl, scene)
        return
    close_prompt(ctl, None)
    settle = flows.settle_ms(ctl.session.name)
    if settle and ctl.hal.ticks_diff(now, ctl.stable_since) < settle:
        wait(ctl, scene, settle)  # a turtle counted along the track rests on each cell
        return
    lifted = pos.lifted(sensed)
    back = ctl.last_on_board and sensed == ctl.prev_image
    actions = pos.match(sensed) if pos.player else []
    if back and not actions and lifted is None:
        ctl.takeback("sensors")
        return
    if pos.player or back:
        if back:  # also a move (a Race "-" card), or a turtle in the air
            actions = actions + [TAKEBACK]
        if len(actions) == 1 and lifted is None and not back:
            ctl.commit(actions[0], "sensors", on_board=True, proven=True)
            return
        if actions:
            # Several moves fit; or the board only lost a turtle, which is
            # how a turtle held in the air looks too: the player confirms.
            text = "which move was it? NEXT shows the next, OK confirms"
            if lifted is not None and actions == [TAKEBACK]:
                # the turtle just put down, lifted again (to move on with it, say)
                text = "take back the last move? OK takes it back; else put the turtle down"
            elif lifted is not None:
                text = "moved onto a stack? OK confirms (NEXT: the next choice); else put the turtle down"
            open_prompt(ctl, "move", text, actions, sensed)
            show_prompt(ctl, scene)
            return
        if lifted is None:
            if commit_chain(ctl, game, sensed):
                return
        else:
            dest = pos.destinations(lifted)
            if dest:
                pos.ready_lifted(lifted)  # its moves readied in spare cycles
                display.idle_scene(scene)
                scene.leds = display.leds(dest, scenes.DEST)
                display.set_status("put the turtle on a lit cell", {"dest": display.names(dest)})
                return
    if ctl.hal.ticks_diff(now, ctl.stable_since) >= GRACE_MS:
        display.guide(scene, sensed, pos.nearest(sensed), "that is no legal move: change the lit cells")
        return
    wait(ctl, scene, GRACE_MS)


def commit_chain(ctl, game, sensed):
    # A whole jump chain made in one go that the board shows: committed hop
    # by hop. Searched once per board. True if one was.
    if ctl.chain_checked == sensed:
        return False
    ctl.chain_checked = sensed
    found = chains(game, sensed)
    if len(found) != 1:
        return False
    for action in found[0]:
        if not ctl.commit(action, "sensors", on_board=True):
            break
    return True


def wait(ctl, scene, ms):
    # Nothing to do before the board has been still for `ms`.
    ctl.wake_ms = ms
    settling(ctl, scene)


def settling(ctl, scene):
    ctl.display.idle_scene(scene)
    ctl.display.set_status("waiting for the board to settle", {})


def in_sync(ctl, scene):
    session = ctl.session
    game = session.game
    display = ctl.display
    pos = ctl.position()
    who = game.to_move()
    p = ctl.prompt
    if p is not None and p.kind == "move":
        close_prompt(ctl, None)
        p = None
    if who == TERMINAL:
        winners = (game.result() or {}).get("winners") or []
        scene.status = "over"
        scene.players = game.players
        scene.seats = [(w, scenes.player_colour(w)) for w in winners]
        display.set_status("the game is over", {})
        return
    if p is not None:
        show_prompt(ctl, scene)
        return
    if who == CHANCE:
        if session.dice == "electronic" and flows.device_rolls(session.name, game):
            roll(ctl)
            return
        open_prompt(ctl, "chance", flows.chance_text(session.name) + " NEXT shows the next, OK confirms",
                        game.legal_actions())
        show_prompt(ctl, scene)
        return
    computer = ctl.computer
    if computer.playing(game):
        display.idle_scene(scene)
        computer.light(scene)  # the thinking light
        display.set_status(computer.status(game), {})
        return
    if not pos.done() and not flows.decide_all(session.name):
        # until the candidates are known (build()): whose turn only
        display.idle_scene(scene)
        display.set_status("player %d to move" % (who + 1), {})
        return
    hint = computer.hint_action(game)
    if flows.decide_all(session.name) or (pos.unseen and not pos.seen()):
        choices = game.legal_actions() if flows.decide_all(session.name) else pos.unseen
        # a hint thought of before the question opened is its first choice shown
        open_prompt(ctl, "decide", "player %d decides: NEXT shows the next choice, OK confirms"
                        % (who + 1), choices, None, choices.index(hint) if hint in choices else 0)
        show_prompt(ctl, scene)
        return
    if hint is not None:
        show_hint(ctl, scene, hint)
        return
    display.idle_scene(scene)
    scene.leds = display.leds(pos.movable(), scenes.MOVABLE)
    text = "player %d to move" % (who + 1)
    if ctl.last_by == "computer" and game.history:
        # a choice the board cannot show (a tattoo, a team) is said
        text += " (the computer played %s)" % game.action_text(game.history[-1])
    display.set_status(text, {})


def show_hint(ctl, scene, action):
    # The `good` level's choice for the person to move, as a preview.
    game = ctl.session.game
    display = ctl.display
    display.idle_scene(scene)
    scene.leds = display.preview(ctl.position().image, image_after(game, action))
    display.set_status("hint for player %d: %s" % (game.to_move() + 1, game.action_text(action)),
                       {"choice": game.action_text(action)})


def show_prompt(ctl, scene):
    # The preview: what the current choice changes on the board.
    p = ctl.prompt
    display = ctl.display
    display.idle_scene(scene)
    scene.status = "prompt"
    action = p.chosen()
    game = ctl.session.game
    if action is not None:
        after = ctl.prev_image if action == TAKEBACK else image_after(game, action)
        scene.leds = display.preview(ctl.position().image, after)
        colour = None if action == TAKEBACK else flows.colour_of(ctl.session.name, game, action)
        if colour is not None and scene.seats:  # on the deciding seat
            scene.seats = [(scene.seats[0][0], colour)]
        if p.kind == "chance":
            scene.dice = flows.dice_value(game, action)
    display.set_status(p.text, {"choice": choice_text(game, action)})


def roll(ctl):
    # Electronic dice and cards: the session throws, the cycle commits.
    game = ctl.session.game
    action = ctl.session.throw()
    value = flows.dice_value(game, action)
    if ctl.commit(action, "dice"):
        ctl.display.shown_dice = value
