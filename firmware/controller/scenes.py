# LED scenes: what the board shows, as a pure function of a Scene. The same
# scene always gives the same frame, and the controller writes a frame only
# when it differs from the last one, so nothing flickers while nothing changes.

OFF = (0, 0, 0)
TAKE = (255, 0, 0)       # take a turtle off this cell
PUT = (0, 255, 0)        # put a turtle on this cell
FLIP = (255, 140, 0)     # turn the turtle on this cell over
DEST = (0, 120, 255)     # a legal destination of the lifted turtle
MOVABLE = (60, 60, 60)   # a turtle that may move
PREVIEW = (200, 0, 255)  # what the prompt's current choice changes
TARGET = (255, 255, 255)  # where the engine sends a turtle (Mahé after stop)
RECALIBRATED = (0, 255, 160)  # a cell whose saved empty level was wrong, measured again
DICE = (255, 255, 255)
CHANCE = (255, 255, 255)  # every seat while dice or cards decide

# The LEDs' power budget (docs/hardware.md, "Power"): a WS2812B draws about
# 20 mA a colour channel at 255 (60 mA white); no frame draws more than
# LED_LIMIT_MA from the 5 V supply (the BOM's 5 V 3 A, with the Pico and
# the sensors, and a margin): the sum of a frame's channel values is capped.
MA_PER_CHANNEL = 20
LED_LIMIT_MA = 1800
MAX_SUM = LED_LIMIT_MA * 255 // MA_PER_CHANNEL  # 22950


def capped(frame):
    # The frame, dimmed as a whole if it would draw more than LED_LIMIT_MA.
    total = 0
    for c in frame:
        total += c[0] + c[1] + c[2]
    if total <= MAX_SUM:
        return frame
    return [(r * MAX_SUM // total, g * MAX_SUM // total, b * MAX_SUM // total) for r, g, b in frame]


# Players' colours: red, yellow, green, blue, purple, orange, white.
PLAYERS = (
    (255, 0, 0), (255, 200, 0), (0, 200, 0), (0, 0, 255),
    (150, 0, 200), (255, 90, 0), (200, 200, 200),
)

STATUS = {
    "idle": (0, 40, 0),       # the board matches the game
    "wait": (255, 140, 0),    # the board must be changed as lit
    "prompt": (200, 0, 255),  # a prompt waits for NEXT/OK or the host
    "over": (0, 0, 255),      # the game is over
    "error": (255, 0, 0),     # board file, sensor or log trouble
    "nogame": (20, 20, 20),   # no game running
}


class Scene:
    # Everything a frame depends on.
    def __init__(self):
        self.leds = []       # [(LED index, colour)] for cells
        self.seats = []      # [(player, colour)] for the turn group
        self.players = 0     # how many seats the game has
        self.dice = 0        # value shown on the dice group
        self.status = "nogame"

    def key(self):
        return (tuple(self.leds), tuple(self.seats), self.players, self.dice, self.status)


def player_colour(player):
    return PLAYERS[player % len(PLAYERS)]


def scale(colour, level):
    return ((colour[0] * level) // 255, (colour[1] * level) // 255, (colour[2] * level) // 255)


def render(board, scene, level):
    # -> a list of (r, g, b), one per LED of the board, brightness applied.
    frame = [OFF] * board.led_count
    for led, colour in scene.leds:
        frame[led] = colour
    groups = board.groups
    if scene.seats and "turn" in groups:
        # One LED per seat when the group has enough; else the whole group
        # shows the first colour.
        turn = groups["turn"]
        if len(turn) >= scene.players:
            for player, colour in scene.seats:
                frame[turn[player]] = colour
        else:
            for led in turn:
                frame[led] = scene.seats[0][1]
    if "dice" in groups:
        i = 0
        for led in groups["dice"]:
            frame[led] = DICE if i < scene.dice else OFF
            i += 1
    if "status" in groups:
        for led in groups["status"]:
            frame[led] = STATUS[scene.status]
    if level != 255:
        # one scaled colour per colour, shared by its LEDs: a tuple apiece
        # would keep ~1.2 KB of the heap for a 40-LED frame
        scaled = {}
        for i in range(len(frame)):
            c = frame[i]
            s = scaled.get(c)
            if s is None:
                s = scaled[c] = scale(c, level)
            frame[i] = s
    return frame


_HEX = {}  # colour -> "rrggbb": frames hold few colours


def hex_frame(frame):
    out = []
    for c in frame:
        h = _HEX.get(c)
        if h is None:
            if len(_HEX) > 256:
                _HEX.clear()
            h = _HEX[c] = "%02x%02x%02x" % c
        out.append(h)
    return out


def ledtest_frame(step, count):
    # LED test: all red, green, blue, white in turn (step counts up).
    colour = ((255, 0, 0), (0, 255, 0), (0, 0, 255), (255, 255, 255))[step % 4]
    return [colour] * count
