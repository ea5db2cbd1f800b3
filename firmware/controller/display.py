# What the board shows: this cycle's scene (whose turn, the lit cells, the
# dice, the status light) drawn on the LEDs at the brightness set, the
# status line, and both sent to the host, one state frame a cycle at most.
# The control cycle (control.py) makes the scene; the game's cells are
# mapped to the board's LEDs through the session's cell map.

from turtles.game import CHANCE

from . import scenes
from .matcher import diff

LEDTEST_STEP_MS = 400  # each colour of the LED test
LEDS_PER_FRAME = 16    # `leds` frames carry at most this many colours: one frame, one short cycle


class Display:
    def __init__(self, hal, board, link, session):
        self.hal = hal
        self.board = board
        self.link = link
        self.session = session   # the game shown, its cell map
        self.level = 255         # the brightness
        self.ledtest_at = None   # when the LED test started
        self.shown_dice = 0      # the die or card on the dice group
        self.scene = scenes.Scene()
        self.frame = None        # on the LEDs
        self.frame_sent = None   # as the host knows it (None: send it whole)
        self.scene_key = None
        self.drawn = None        # the scene last rendered, and at what level
        self.drawn_level = None
        self.status_sent = None
        self.status_out = None   # a status payload the host has not had yet
        self.sent_status = False  # the last state frame was a status
        self.faults_sent = []    # the sensor faults reported

    # ---- the scene ----------------------------------------------------------

    def idle_scene(self, scene):
        game = self.session.game
        who = game.to_move()
        scene.status = "idle"
        scene.dice = self.shown_dice
        scene.players = game.players
        if who >= 0:
            scene.seats = [(who, scenes.player_colour(who))]
        elif who == CHANCE:
            scene.seats = [(i, scenes.CHANCE) for i in range(game.players)]

    def preview(self, image, img):
        # LEDs of what changes from the game's board `image` to `img`.
        off, on, flip = diff(image, img)
        return self.leds(off, scenes.TAKE) + self.leds(on, scenes.PREVIEW) + self.leds(flip, scenes.FLIP)

    def guide(self, scene, sensed, target, text):
        self.idle_scene(scene)
        scene.status = "wait"
        off, on, flip = diff(sensed, target)
        scene.leds = self.leds(off, scenes.TAKE) + self.leds(on, scenes.PUT) + self.leds(flip, scenes.FLIP)
        self.set_status(text, {"off": self.names(off), "on": self.names(on), "flip": self.names(flip)})

    def leds(self, cells, colour):
        led_of = self.board.led_of
        cell_map = self.session.cell_map
        return [(led_of[cell_map[c]], colour) for c in cells]

    def names(self, cells):
        return [self.board.cells[self.session.cell_map[c]] for c in cells]

    def set_status(self, text, expect):
        key = (text, sorted(expect.items()))
        if key != self.status_sent:
            self.status_sent = key
            self.status_out = {"text": text, "expect": expect}  # sent by flush()

    def report_faults(self, faults):
        # An error frame for each sensor fault not yet reported.
        faults = list(faults)
        for cell, reason in faults:
            if (cell, reason) not in self.faults_sent:
                self.link.error("sensor", "the sensor of cell %s: %s; check its wiring" % (cell, reason))
        self.faults_sent = faults

    # ---- LEDs and frames ----------------------------------------------------

    def render(self, now):
        if self.ledtest_at is not None:
            step = self.hal.ticks_diff(now, self.ledtest_at) // LEDTEST_STEP_MS
            if step < 4:
                # a loop, not a comprehension: one using `self` boxes it in
                # a heap cell at every call of render(), quiet cycles too
                frame = []
                for c in scenes.ledtest_frame(step, self.board.led_count):
                    frame.append(scenes.scale(c, self.level))
                self.show(frame)
                return
            self.ledtest_at = None
            self.scene_key = None
            self.drawn = None
        if self.scene is self.drawn and self.level == self.drawn_level:
            return  # nothing new to draw: no work, no garbage
        self.drawn = self.scene
        self.drawn_level = self.level
        key = (self.scene.key(), self.level)
        if key == self.scene_key:
            return
        self.scene_key = key
        self.show(scenes.render(self.board, self.scene, self.level))

    def forget(self):
        # The host knows nothing of the status and the LEDs (after a sync):
        # all of them again.
        self.status_sent = None
        self.frame = None
        self.frame_sent = None
        self.scene_key = None
        self.drawn = None

    def show(self, frame):
        # To the LEDs now (within the power budget); to the host by flush().
        frame = scenes.capped(frame)
        if frame == self.frame:
            return
        self.frame = frame
        self.hal.write_leds(frame)

    def flush(self):
        # One state frame to the host at most, of the newest state: the
        # status, or the span of LEDs that differs from what the host was
        # sent (at most LEDS_PER_FRAME of them); the two in turn when both
        # wait. Event frames (action, prompt, answers) never wait.
        frame = self.frame
        sent = self.frame_sent
        first = last = 0
        if frame is not sent and frame is not None:
            last = len(frame)
            if sent is not None and len(sent) == last:
                while first < last and frame[first] == sent[first]:
                    first += 1
                while last > first and frame[last - 1] == sent[last - 1]:
                    last -= 1
            else:
                sent = [None] * last  # the host has nothing of this frame yet
            if first == last:
                self.frame_sent = frame  # back to what the host has
        if self.status_out is not None and (first == last or not self.sent_status):
            self.link.send_status(self.status_out["text"], self.status_out["expect"])
            self.status_out = None
            self.sent_status = True
            return
        self.sent_status = False
        if first < last:
            end = min(last, first + LEDS_PER_FRAME)
            self.link.send_leds(first, scenes.hex_frame(frame[first:end]))
            self.frame_sent = frame if end == last else frame[:end] + sent[end:]  # the rest next cycle
