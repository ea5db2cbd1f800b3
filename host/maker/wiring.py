"""`turtleboard board wiring FILE`: the wiring diagram of a board, drawn from
its board file, as an SVG sized for landscape A4 (297 x 210 mm).

Left, the Pico with every pin the board uses, the buttons, the LED data line
through its resistor and the power; in the middle one box per multiplexer
with its select lines, its ADC input and the cell on each of its 16 inputs;
below, the LED chain in order with the cell or group of each LED; a corner
shows how one hall sensor is wired. Wires between the boxes are named (S0,
ADC0, DIN...) rather than drawn across each other: a net name on both ends
means one wire.
"""

from __future__ import annotations

from xml.sax.saxutils import escape

from controller.board import Board, engine_cells
from turtleboard.maker.bom import SUPPLY_A, own_regulator

W, H = 1188, 840  # 4 units per millimetre: A4 landscape
FONT = "DejaVu Sans, Arial, Helvetica, sans-serif"
INK = "#222222"
MUX_FILL = "#e8f0fb"
PICO_FILL = "#e3f4e1"
LED_FILL = "#fff4cc"
GROUP_FILL = "#f2e6ff"
NET = "#1f5fa8"      # net names
SELECT = ("S0", "S1", "S2", "S3")

# The Pico's header: GPIO -> physical pin.
PICO_PIN = {0: 1, 1: 2, 2: 4, 3: 5, 4: 6, 5: 7, 6: 9, 7: 10, 8: 11, 9: 12, 10: 14, 11: 15,
            12: 16, 13: 17, 14: 19, 15: 20, 16: 21, 17: 22, 18: 24, 19: 25, 20: 26, 21: 27,
            22: 29, 26: 31, 27: 32, 28: 34}
ADC_OF = {26: 0, 27: 1, 28: 2}


class Svg:
    def __init__(self):
        self.parts: list[str] = []

    def rect(self, x, y, w, h, fill="none", stroke=INK, width=1.5, rx=0) -> None:
        self.parts.append('<rect x="%g" y="%g" width="%g" height="%g" rx="%g" fill="%s" '
                          'stroke="%s" stroke-width="%g"/>' % (x, y, w, h, rx, fill, stroke, width))

    def line(self, x1, y1, x2, y2, stroke=INK, width=1.5, dash=None) -> None:
        extra = ' stroke-dasharray="%s"' % dash if dash else ""
        self.parts.append('<line x1="%g" y1="%g" x2="%g" y2="%g" stroke="%s" stroke-width="%g"%s/>'
                          % (x1, y1, x2, y2, stroke, width, extra))

    def text(self, x, y, s, size=11, anchor="start", weight="normal", fill=INK) -> None:
        self.parts.append('<text x="%g" y="%g" font-size="%g" text-anchor="%s" font-weight="%s" '
                          'fill="%s">%s</text>' % (x, y, size, anchor, weight, fill, escape(str(s))))

    def arrow(self, x1, y, x2) -> None:
        self.line(x1, y, x2 - 4, y)
        self.parts.append('<path d="M%g %g l-6 -4 v8 z" fill="%s"/>' % (x2, y, INK))

    def document(self, title: str) -> str:
        return ('<svg xmlns="http://www.w3.org/2000/svg" width="297mm" height="210mm" '
                'viewBox="0 0 %d %d" font-family="%s">\n<title>%s</title>\n'
                '<rect width="100%%" height="100%%" fill="white"/>\n%s\n</svg>\n'
                % (W, H, FONT, escape(title), "\n".join(self.parts)))


def pin_label(gpio: int) -> str:
    return "GP%d (pin %d)" % (gpio, PICO_PIN.get(gpio, 0))


def wiring_svg(obj: dict) -> str:
    board = Board(obj, engine_cells(obj["games"][0], obj["geometry"]))
    svg = Svg()
    title = "%s v%s: wiring" % (board.name, board.version)
    svg.text(24, 34, title, size=20, weight="bold")
    svg.text(24, 54, "%d cells, %d multiplexer(s), %d LEDs; games: %s. A net name (blue) on two "
             "ends is one wire. Drawn by `turtleboard board wiring` from the board file."
             % (len(board.cells), len(board.mux["adc"]), board.led_count, ", ".join(board.games)),
             size=11)
    rail = "3V3S" if own_regulator(obj) else "3V3"
    draw_pico(svg, board, rail)
    draw_muxes(svg, board, rail)
    draw_chain(svg, board)
    draw_sensor(svg, rail)
    draw_shifter(svg, board)
    draw_map(svg, obj, board)
    return svg.document(title)


def draw_pico(svg: Svg, board: Board, rail: str) -> None:
    x, y, w = 24, 78, 250
    rows = []
    for i, gpio in enumerate(board.mux["select"]):
        rows.append((gpio, SELECT[i], "select line %s of every multiplexer" % SELECT[i]))
    for i, gpio in enumerate(board.mux["adc"]):
        rows.append((gpio, "ADC%d" % ADC_OF.get(gpio, i), "SIG of multiplexer %d" % i))
    rows.append((board.led_pin, "LED", "1A of the 74AHCT125 (level shifter)"))
    for name, gpio in board.buttons:
        rows.append((gpio, name.upper(), "%s button, other side to GND" % name.upper()))
    rows.sort()
    h = 44 + 34 * len(rows) + 112
    svg.rect(x, y, w, h, fill=PICO_FILL, rx=8, width=2)
    svg.text(x + w / 2, y + 24, "Raspberry Pi Pico", size=15, anchor="middle", weight="bold")
    ry = y + 50
    for gpio, net, what in rows:
        svg.text(x + 10, ry, pin_label(gpio), size=12, weight="bold")
        svg.text(x + w - 10, ry, net, size=12, anchor="end", weight="bold", fill=NET)
        svg.text(x + 10, ry + 14, what, size=10)
        svg.line(x + w, ry - 4, x + w + 14, ry - 4)
        ry += 34
    svg.line(x + 8, ry - 12, x + w - 8, ry - 12, width=0.8, dash="4 3")
    power = [("GND (pins 3, 8, 13, 38...)", "GND", "every GND; E of every multiplexer"),
             ("VSYS (pin 39)", "5V", "5 V supply through a Schottky diode")]
    if rail == "3V3":
        power.insert(0, ("3V3(OUT) (pin 36)", "3V3", "VCC of every sensor and multiplexer"))
    for pin, net, what in power:
        svg.text(x + 10, ry + 4, pin, size=12, weight="bold")
        svg.text(x + w - 10, ry + 4, net, size=12, anchor="end", weight="bold", fill=NET)
        svg.text(x + 10, ry + 18, what, size=10)
        ry += 34
    # Power and passives under the Pico.
    py = y + h + 24
    svg.text(x, py, "Power and passives", size=13, weight="bold")
    notes = ["5 V %d A supply: VDD of the LEDs, VSYS (net 5V);" % SUPPLY_A,
             "   the firmware caps the LEDs at 1.8 A",
             "1000 \u00b5F across the LEDs' 5V and GND",
             "74AHCT125 in the LED data line (right)",
             "100 nF at each sensor and multiplexer (%d)"
             % (len(board.cells) + len(board.mux["adc"])),
             "buttons to GND: internal pull-ups"]
    if rail == "3V3S":
        notes[3:3] = ["3.3 V regulator AP2112K-3.3: IN \u2190 5V,",
                      "   OUT \u2192 3V3S (sensors); 1 \u00b5F at IN, OUT"]
    for i, note in enumerate(notes):
        more = note.startswith(" ")  # a note's second line
        svg.text(x + (10 if more else 0), py + 18 + 16 * i, note.strip() if more else "\u2022 " + note,
                 size=10.5)


def draw_muxes(svg: Svg, board: Board, rail: str) -> None:
    cell_of = {board.sensor_of[i]: c for i, c in enumerate(board.cells)}
    n = len(board.mux["adc"])
    left, right = 312, W - 24
    gap = 16
    w = min(300, (right - left - gap * (n - 1)) / max(n, 1))
    y = 78
    for m, gpio in enumerate(board.mux["adc"]):
        x = left + m * (w + gap)
        h = 92 + 16 * 19
        svg.rect(x, y, w, h, fill=MUX_FILL, rx=6, width=2)
        svg.text(x + w / 2, y + 22, "multiplexer %d (74HC4067)" % m, size=13.5, anchor="middle",
                 weight="bold")
        svg.text(x + 10, y + 42, "SIG \u2192 ADC%d, %s" % (ADC_OF.get(gpio, m), pin_label(gpio)),
                 size=11, fill=NET, weight="bold")
        svg.text(x + 10, y + 58, "S0..S3 \u2192 GP%s" % ",".join(str(p) for p in board.mux["select"]),
                 size=11, fill=NET, weight="bold")
        svg.text(x + 10, y + 74, "VCC \u2192 %s, GND and E \u2192 GND" % rail, size=11, fill=NET)
        svg.line(x + 6, y + 82, x + w - 6, y + 82, width=0.8)
        for k in range(16):
            ch = m * 16 + k
            ry = y + 100 + 19 * k
            cell = cell_of.get(ch)
            svg.text(x + 10, ry, "Y%d" % k, size=12, weight="bold")
            svg.text(x + 46, ry, "ch %d" % ch, size=10.5)
            if cell is None:
                svg.text(x + w - 10, ry, "free (to GND)", size=10.5, anchor="end", fill="#888888")
            else:
                svg.text(x + w - 10, ry, "cell %s" % cell, size=12.5, anchor="end", weight="bold")
            if k:
                svg.line(x + 8, ry - 14, x + w - 8, ry - 14, stroke="#c9d6ea", width=0.6)


def led_label(board: Board, led: int) -> tuple[str, bool]:
    for i, cell in enumerate(board.cells):
        if board.led_of[i] == led:
            return cell, False
    for name in sorted(board.groups):
        group = board.groups[name]
        if led in group:
            return (name if len(group) == 1 else "%s %d" % (name, group.index(led) + 1)), True
    return "-", True


def draw_chain(svg: Svg, board: Board) -> None:
    x0, y0 = 312, 78 + 92 + 16 * 19 + 36
    svg.text(x0, y0, "LED chain (WS2812B): DIN of LED 0 \u2190 330 \u03a9 \u2190 74AHCT125 \u2190 GP%d; "
             "DOUT to DIN of the next; VDD 5V" % board.led_pin, size=13, weight="bold")
    per_row = 20
    bw, bh, step = 38, 34, 43
    for led in range(board.led_count):
        row, col = divmod(led, per_row)
        x = x0 + col * step
        y = y0 + 14 + row * (bh + 22)
        label, group = led_label(board, led)
        svg.rect(x, y, bw, bh, fill=GROUP_FILL if group else LED_FILL, rx=4)
        svg.text(x + bw / 2, y + 13, str(led), size=10, anchor="middle", fill="#555555")
        svg.text(x + bw / 2, y + 28, label, size=11 if len(label) <= 4 else 9, anchor="middle",
                 weight="bold")
        if col < per_row - 1 and led + 1 < board.led_count:
            svg.arrow(x + bw, y + bh / 2, x + step)
        elif led + 1 < board.led_count:  # on to the next row
            svg.line(x + bw / 2, y + bh, x + bw / 2, y + bh + 8)
            svg.line(x + bw / 2, y + bh + 8, x0 + bw / 2, y + bh + 8)
            svg.line(x0 + bw / 2, y + bh + 8, x0 + bw / 2, y + bh + 22)
    rows = (board.led_count + per_row - 1) // per_row
    ly = y0 + 14 + rows * (bh + 22) + 4
    svg.rect(x0, ly - 10, 12, 12, fill=LED_FILL, rx=2)
    svg.text(x0 + 18, ly, "beside a cell", size=10.5)
    svg.rect(x0 + 120, ly - 10, 12, 12, fill=GROUP_FILL, rx=2)
    svg.text(x0 + 138, ly, "a group: turn (one per seat), dice, status", size=10.5)


def draw_sensor(svg: Svg, rail: str) -> None:
    x, y, w, h = W - 330, H - 118, 306, 100
    svg.rect(x, y, w, h, rx=6)
    svg.text(x + 10, y + 20, "Each cell: one DRV5055 hall sensor", size=12.5, weight="bold")
    svg.text(x + 10, y + 38, "VCC \u2192 %s, GND \u2192 GND, 100 nF VCC to GND" % rail, size=11)
    svg.text(x + 10, y + 54, "OUT \u2192 the multiplexer input of its cell", size=11)
    svg.text(x + 10, y + 70, "marked face up, towards the turtle", size=11)
    svg.text(x + 10, y + 86, "turtle magnets: north pole up", size=11)


def draw_shifter(svg: Svg, board: Board) -> None:
    x, y, w, h = W - 330, H - 118 - 74, 306, 64
    svg.rect(x, y, w, h, rx=6)
    svg.text(x + 10, y + 19, "LED data: 74AHCT125 level shifter", size=12.5, weight="bold")
    svg.text(x + 10, y + 36, "1A \u2190 GP%d, 1Y \u2192 330 \u03a9 \u2192 DIN of LED 0"
             % board.led_pin, size=11, fill=NET)
    svg.text(x + 10, y + 52, "VCC \u2192 5V; GND, 1OE, unused inputs, OEs \u2192 GND", size=11)


def draw_map(svg: Svg, obj: dict, board: Board) -> None:
    # Where each cell is, with the multiplexer input of its sensor (m/Yk):
    # to find on the board itself a cell the self-test names.
    x0, y0 = 380, H - 170
    svg.text(x0, y0, "Cell map (0/Y5: multiplexer 0, input Y5)",
             size=13, weight="bold")
    bw, bh = 60, 19
    places = {}
    geo = obj.get("geometry")
    cells = geo.get("cells") if isinstance(geo, dict) else None
    if isinstance(cells, list) and cells and len(cells[0]) >= 3:  # hexes: q, r (cube)
        for name, q, r, *_ in cells:
            places[name] = (q * (bw + 8), (r + q / 2) * (bh + 3))
        left = min(p[0] for p in places.values())
        top = min(p[1] for p in places.values())
        places = {c: (x0 + px - left, y0 + 10 + py - top) for c, (px, py) in places.items()}
    else:  # a track: in order, in rows
        per_row = 6
        bw = 68
        for i, name in enumerate(board.cells):
            row, col = divmod(i, per_row)
            places[name] = (x0 + col * (bw + 4), y0 + 10 + row * (bh + 6))
    for i, name in enumerate(board.cells):
        if name not in places:
            continue
        px, py = places[name]
        m, k = divmod(board.sensor_of[i], 16)
        svg.rect(px, py, bw, bh, fill=LED_FILL, rx=3, width=1)
        svg.text(px + 4, py + 13.5, name, size=10 if len(name) <= 4 else 9, weight="bold")
        svg.text(px + bw - 3, py + 13.5, "%d/Y%d" % (m, k), size=9, anchor="end", fill=NET)
