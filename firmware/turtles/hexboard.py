# The Tortuga hexagon, built from a plain description (a board file's
# "geometry" object). Nothing about the board's shape lives in the rules code.
#
# Cells carry cube coordinates [q, r, s] (q + r + s = 0). On the reference
# board the cells are flat-topped, so each column a..g runs south to north
# and cells are numbered from the south: d1 is the south corner, d7 the north.

import json

from .errors import BadSetup

# The reference board, as JSON text: parsed only for a game without a board
# file's geometry (on the host, in tests). On the device a text constant
# stays in flash, where a dict literal would be built in the heap at import.
# Cells are [name, q, r, s], directions [name, dq, dr, ds]; player 0 sits at
# the south corner, player 1 at the north corner.
DEFAULT_GEOMETRY_TEXT = (
    '{"board":"tortuga-37","cells":['
    '["a1",-3,3,0],["a2",-3,2,1],["a3",-3,1,2],["a4",-3,0,3],["b1",-2,3,-1],["b2",-2,2,0],'
    '["b3",-2,1,1],["b4",-2,0,2],["b5",-2,-1,3],["c1",-1,3,-2],["c2",-1,2,-1],["c3",-1,1,0],'
    '["c4",-1,0,1],["c5",-1,-1,2],["c6",-1,-2,3],["d1",0,3,-3],["d2",0,2,-2],["d3",0,1,-1],'
    '["d4",0,0,0],["d5",0,-1,1],["d6",0,-2,2],["d7",0,-3,3],["e1",1,2,-3],["e2",1,1,-2],'
    '["e3",1,0,-1],["e4",1,-1,0],["e5",1,-2,1],["e6",1,-3,2],["f1",2,1,-3],["f2",2,0,-2],'
    '["f3",2,-1,-1],["f4",2,-2,0],["f5",2,-3,1],["g1",3,0,-3],["g2",3,-1,-2],["g3",3,-2,-1],'
    '["g4",3,-3,0]'
    '],"directions":['
    '["N",0,-1,1],["NE",1,-1,0],["SE",1,0,-1],["S",0,1,-1],["SW",-1,1,0],["NW",-1,0,1]'
    '],"players":['
    '{"name":"south","letter":"S","forward":["NW","N","NE"],'
    '"start":["a1","b1","c1","d1","e1","f1","g1","d2"],"camp":"d1"},'
    '{"name":"north","letter":"N","forward":["SW","S","SE"],'
    '"start":["a4","b5","c6","d7","e6","f5","g4","d6"],"camp":"d7"}'
    ']}'
)


def default_geometry():
    # A fresh dict of the reference board.
    return json.loads(DEFAULT_GEOMETRY_TEXT)


NONE = 255  # no cell (a board has at most 254)

try:
    from sys import intern
except ImportError:  # MicroPython below its "everything" level
    def intern(text):
        # The interned string equal to `text`: naming an attribute interns
        # the name, and a string made from bytes is the interned one if any.
        hasattr(NONE, text)
        return str(text.encode(), "utf-8")


def _bad(why):
    raise BadSetup("bad Tortuga geometry: %s; compare with Tortuga.default_geometry()" % why)


class HexBoard:
    # names[i] (names.index(name): a dict would take ~0.5 KB of a Pico's heap);
    # start[p], camp[p] (base camp), goal[p] = camp[1-p].
    # hatching_cells[p]: p's start cells but the camp, in order.
    # neighbours: bytes, wide_neighbours a cell, its adjacent cells, NONE
    # filling a row's end (only a power reads it).
    # jumps[p][i]: a tuple of ints over | land << 8 for p's forward
    # directions, where over is the next cell (the step target) and land the
    # one behind it; when that is off the board, land is over itself: a jump
    # needs a turtle on over, so "land is taken" refuses it. Small ints take
    # no heap of their own: the tables take 2 KB of the device's heap where
    # tuples of (over, land) pairs took 5 KB.

    def __init__(self, desc):
        if not isinstance(desc, dict):
            _bad("expected a dict, got %r" % (type(desc).__name__,))
        for key in ("cells", "directions", "players"):
            if key not in desc:
                _bad("the key %r is missing" % key)
        self.names = []
        at = {}
        for cell in desc["cells"]:
            if len(cell) != 4 or cell[1] + cell[2] + cell[3] != 0:
                _bad("cell %r is not [name, q, r, s] with q + r + s = 0" % (cell,))
            # interned: on a Pico a cell name is then ~9 bytes of the
            # interned names' pool, not a 32-byte string (~1 KB a board)
            name = intern(cell[0]) if isinstance(cell[0], str) else cell[0]
            if name in self.names:
                _bad("cell %r is listed twice" % name)
            at[(cell[1], cell[2])] = len(self.names)
            self.names.append(name)
        if not 7 <= len(self.names) <= 254:
            _bad("a board has 7 to 254 cells, not %d" % len(self.names))
        coords = [(c[1], c[2]) for c in desc["cells"]]
        dirs = {}
        for d in desc["directions"]:
            dirs[d[0]] = (d[1], d[2])

        def step(i, d):
            q, r = coords[i]
            return at.get((q + d[0], r + d[1]), -1)

        n = len(self.names)
        self.wide_neighbours = len(desc["directions"])
        rows = bytearray()
        for i in range(n):
            row = [j for j in [step(i, dirs[d[0]]) for d in desc["directions"]] if j >= 0]
            rows.extend(bytes(row + [NONE] * (self.wide_neighbours - len(row))))
        self.neighbours = bytes(rows)
        players = desc["players"]
        if len(players) != 2:
            _bad("Tortuga needs exactly 2 players")
        self.player_names = []
        self.letters = []
        self.start = []
        self.camp = []
        self.jumps = []
        for p in range(2):
            info = players[p]
            self.player_names.append(info["name"])
            self.letters.append(info["letter"])
            fwd = []
            for dname in info["forward"]:
                if dname not in dirs:
                    _bad("player %d's forward direction %r is not a direction" % (p, dname))
                fwd.append(dirs[dname])
            # Every forward direction must gain ground along their sum, so a
            # turtle never comes back to a cell (chains cannot loop).
            aq = sum(d[0] for d in fwd)
            ar = sum(d[1] for d in fwd)
            for d in fwd:
                dq, dr = d
                if dq * aq + dr * ar + (dq + dr) * (aq + ar) <= 0:
                    _bad("player %d's forward directions do not all point forward" % p)
            self.start.append([self._cell(c) for c in info["start"]])
            self.start[p].sort()
            self.camp.append(self._cell(info["camp"]))
            table = []
            for i in range(n):
                row = []
                for d in fwd:
                    over = step(i, d)
                    if over >= 0:
                        land = step(over, d)
                        row.append(over | (land if land >= 0 else over) << 8)
                table.append(tuple(row))
            self.jumps.append(table)
        self.goal = [self.camp[1], self.camp[0]]
        # Hatching Day: the start cells a turtle is placed on (all but the camp)
        self.hatching_cells = [[c for c in self.start[p] if c != self.camp[p]] for p in range(2)]

    def neighbours_of(self, i):
        w = self.wide_neighbours
        row = self.neighbours[i * w:i * w + w]
        return [c for c in row if c != NONE]

    def _cell(self, name):
        if name not in self.names:
            _bad("%r is not one of the cells" % (name,))
        return self.names.index(name)


_default = None
_last = None  # (desc, its board): the device's board file, built once


def hexboard(desc=None):
    # The board for `desc` (None: the reference board, built once; a
    # HexBoard: itself). The last desc's board is kept too: every new game
    # on the host passes a board file's geometry, the same dict, and
    # building its tables is most of a `new` command on a Pico. (A board is
    # never changed once built.)
    global _default, _last
    if isinstance(desc, HexBoard):
        return desc
    if desc is None:
        if _default is None:
            _default = HexBoard(default_geometry())
        return _default
    if _last is None or _last[0] is not desc:
        _last = (desc, HexBoard(desc))
    return _last[1]


def kept(desc):
    # The board for `desc`, which is not kept: the device keeps the board
    # (its tables) for its games and lets the board file's parsed geometry
    # go (~3 KB of a Pico's heap: lists, dicts, texts).
    global _last
    board = hexboard(desc)
    if _last is not None and _last[0] is desc:
        _last = None
    return board
