"""The faults a simulated table suffers, drawn by the seed at any moment
(docs/simulation.md): power cuts (also inside a game log write), the
cable pulled and put back, the host killed and started again, a page
dropped and rejoined, a page that stops reading, a stalled host reader,
sensor noise and bounce.
"""

from __future__ import annotations

import random

from turtleboard.simulate.clock import Until

MEAN_GAP_MS = 45000  # a fault every 45 s of the table's time, on average
KINDS = (("power cut", 5), ("power cut in a log write", 3), ("unplug", 2), ("host restart", 2),
         ("page drop", 3), ("page stops reading", 1), ("host reader stalls", 2), ("noise", 1),
         ("bounce", 1))


def faults(table):
    rng = random.Random(table.seed * 104729 + 3)
    names = [k for k, w in KINDS for _ in range(w)]
    table.clock.spawn("world", world_ticker(table))
    while True:
        yield int(rng.expovariate(1.0 / MEAN_GAP_MS)) + 200
        kind = rng.choice(names)
        if kind == "power cut in a log write":
            yield from cut_in_log_write(table, rng)
            continue
        table.count("faults", kind)
        table.note("fault: " + kind)
        if kind == "power cut":
            table.promises.power_cut()
            table.board.power_cut()
        elif kind == "unplug":
            table.promises.power_cut()
            table.board.unplug()
            table.tap.power_off()
            yield rng.randint(300, 8000)
            table.board.replug()
        elif kind == "host restart":
            table.host.stop()
            yield rng.randint(500, 10000)
            table.host.start()
        elif kind == "page drop" and table.pages is not None:
            live = [p for p in table.pages.pages if p.connected]
            if live:
                page = rng.choice(live)
                table.pages.drop(page)
                yield rng.randint(200, 15000)
                if table.host.up:
                    table.pages.join(page, table.host.web_port)
        elif kind == "page stops reading" and table.pages is not None:
            live = [p for p in table.pages.pages if p.connected]
            if live:
                page = rng.choice(live)
                page.reading = False
                yield rng.randint(1000, 30000)
                page.reading = True
                if not page.connected and table.host.up:
                    table.pages.join(page, table.host.web_port)
        elif kind == "host reader stalls":
            table.host.stalled = True
            yield rng.randint(200, 5000)
            table.host.stalled = False
        elif kind == "noise":
            table.world.noise = rng.choice((100, 300, 600))
            yield rng.randint(5000, 60000)
            table.world.noise = 0
        elif kind == "bounce":
            table.world.bounce = True
            yield rng.randint(5000, 60000)
            table.world.bounce = False


def cut_in_log_write(table, rng):
    """The power goes while the board writes its game log: armed here, cut
    at the next step that finds the log grew (Table.cut_in_write)."""
    table.torn = (random.Random(rng.random()), table.log_size())
    yield 0


def world_ticker(table):
    """Fresh readings every 10 ms while there is noise or a turtle bouncing."""
    world = table.world
    while True:
        if not (world.noise or world._settling):
            yield Until(lambda: bool(world.noise or world._settling), 10 ** 9)
            continue
        now = world.clock()
        world.write()
        for cell in [c for c, t in world._settling.items() if t <= now]:
            del world._settling[cell]
        yield 10
