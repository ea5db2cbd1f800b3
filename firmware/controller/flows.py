# Where the games differ on the device. Each game may have a flow module
# (flow_mahe, flow_race, flow_tortuga) that overrides these defaults; the
# controller itself stays game-agnostic.


_last = [None, None]  # the last game asked for and its flow: an import statement is not free


def flow_for(name):
    if _last[0] == name:
        return _last[1]
    flow = None
    if name == "mahe":
        from . import flow_mahe

        flow = flow_mahe
    elif name == "race":
        from . import flow_race

        flow = flow_race
    elif name == "tortuga":
        from . import flow_tortuga

        flow = flow_tortuga
    _last[0] = name
    _last[1] = flow
    return flow


def device_options(name, cls, options):
    # The options the device plays with: the host's, plus what a physical
    # board needs (Tortuga hop by hop, Race with real cards in hands), but
    # for a value the host may still ask for (ALSO: the Race dealt by the
    # board, for a host that shows each player their own hand).
    flow = flow_for(name)
    forced = flow.FORCED if flow is not None else ()
    also = getattr(flow, "ALSO", ())
    known = [o[0] for o in cls.OPTIONS]
    out = {}
    for k in sorted(options):
        out[k] = options[k]
    for k, v in forced:
        if k in known and (k, out.get(k)) not in also:
            out[k] = v
    return out


def colour_of(name, game, action):
    # A colour that tells this choice apart when the cells cannot (the team
    # a turtle joins, the turtle a card moves), or None.
    flow = flow_for(name)
    if flow is None or action is None:
        return None
    return flow.colour_of(game, action)


def device_rolls(name, game=None):
    # May the device draw this game's chance outcomes itself (electronic
    # dice and cards)? Not where chance is a fact of the table; always the
    # cards it deals itself (the Race dealt by the board).
    flow = flow_for(name)
    if game is not None and getattr(game, "dealt", False):
        return True
    return flow is not None and flow.DEVICE_ROLLS


def decide_all(name):
    # Are all this game's player decisions made with the buttons (or the
    # host), even those the board could show? (Mahé: roll or stop.)
    flow = flow_for(name)
    return flow is not None and flow.DECIDE_ALL


def settle_ms(name):
    # How long a changed board must stay still before it is read as a move
    # (0: as soon as the sensing calls it stable).
    flow = flow_for(name)
    return flow.SETTLE_MS if flow is not None else 0


def chance_text(name):
    flow = flow_for(name)
    return flow.CHANCE_TEXT if flow is not None else "what came up?"


def dice_value(game, action):
    # The number to show on the dice group for a chance outcome (0: none).
    text = game.action_text(action)
    digits = ""
    for ch in text:
        if "0" <= ch <= "9":
            digits += ch
        elif digits:
            break
    return int(digits) if digits else 0
