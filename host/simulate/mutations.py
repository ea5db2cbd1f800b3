"""Mutations: a change that breaks one promise each, to show the simulated
table catches it (bench/simulate.py --mutations: within one simulated hour).

A firmware mutation edits the virtual board's own copy of a file on its
flash (the checkout is untouched); a host mutation replaces a function of
the host for the run (`mutated()`), put back after.
"""

from __future__ import annotations

import contextlib
import os

# name -> (promise, what it does, firmware edit (file on the flash, old, new) or None)
MUTATIONS = {
    "log-forgets": (1, "the game log never writes an action the buttons, the host or the dice made",
                    ("controller/gamelog.py", 'self._write(seal("A " + text))', "pass")),
    "pages-freeze": (2, "the web server sends each page its first state only", None),
    "ok-ignored": (3, "the board's OK button does nothing",
                   ("controller/prompts.py", "    p = ctl.prompt\n    game = ctl.session.game\n",
                    "    p = ctl.prompt\n    game = ctl.session.game\n    if name == \"ok\":\n        return\n")),
    "dice-reroll": (4, "electronic dice ignore the game's seed: each roll the next of the boot's stream",
                    ("controller/session.py",
                     "return self.stream(len(game.history)).weighted(game.chance_outcomes())",
                     "return self.rng.weighted(game.chance_outcomes())")),
    "seat-sees-all": (5, "every seat's page gets player 1's view", None),
    "hash-differs": (6, "the board's engine hashes its states differently",
                     ("turtles/game.py", "return fnv1a32(self.state_key())",
                      "return fnv1a32(self.state_key()) ^ 1")),
    "link-leaks": (7, "the host's link never closes its port", None),
}


def apply_firmware(name: str | None, flash: str) -> None:
    """Edit the flash's copy of the firmware for a firmware mutation."""
    if not name or MUTATIONS[name][2] is None:
        return
    rel, old, new = MUTATIONS[name][2]
    path = os.path.join(flash, rel)
    with open(path) as f:
        text = f.read()
    if old not in text:
        raise RuntimeError("mutation %s: %r is not in %s any more" % (name, old, rel))
    with open(path, "w") as f:
        f.write(text.replace(old, new, 1))


@contextlib.contextmanager
def mutated(name: str | None):
    """A host mutation in force for the block."""
    undo = []
    if name == "pages-freeze":
        from turtleboard.web import server

        old = server.Hub.broadcast

        def broadcast(self):
            with self.mirror.lock:
                version = self.version()
                for c in list(self.clients):
                    if not c.last:
                        c.offer_state(*self.state_text(c, version))

        server.Hub.broadcast = broadcast
        undo.append(lambda: setattr(server.Hub, "broadcast", old))
    elif name == "seat-sees-all":
        from turtleboard.web import views

        old_view = views.page_state

        def page_state(mirror, board_def, seat, lang="en", pictures=None):
            out = old_view(mirror, board_def, seat, lang, pictures)
            game = mirror.replica.game
            if out.get("game") and game is not None and seat is not None:
                out["game"]["view"] = game.view(0)
            return out

        views.page_state = page_state
        from turtleboard.web import server

        old_server = server.page_state
        server.page_state = page_state
        undo.append(lambda: setattr(views, "page_state", old_view))
        undo.append(lambda: setattr(server, "page_state", old_server))
    elif name == "link-leaks":
        from turtleboard.connection import link

        old_close = link.Link.close

        leaked = []

        def close(self):
            if self.ser is not None:
                leaked.append(self.ser)  # the port stays open (held, as a forgotten reference would)
            self.ser = None

        link.Link.close = close
        undo.append(lambda: setattr(link.Link, "close", old_close))
        undo.append(lambda: [ser.close() for ser in leaked])
    try:
        yield
    finally:
        for fn in undo:
            fn()
