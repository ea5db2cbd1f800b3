"""Moves, cards and counts in words, as the players read them: the live
mirror (`play`) at 80x24 and the console, against the virtual board. The
notation counts players from 0 in one place (a Race `colour 2 green` is
player 3's); nothing a player reads does."""

from __future__ import annotations

import asyncio
import re
import time

import pytest

from turtleboard.paths import BOARDS
from turtleboard.pictures.describe import race_card

pytestmark = [pytest.mark.e2e, pytest.mark.micropython]

# What a line may not say: a choice counted from 0, a colour told in the
# notation, a Race card or a player as the protocol writes them.
NOTATION = re.compile(r'"choice"|colour \d|\((host|sensors|buttons|dice|computer)\)')


async def wait_for(pilot, cond, what: str, timeout: float = 30.0) -> None:
    end = time.monotonic() + timeout
    while not cond():
        if time.monotonic() > end:
            raise AssertionError("timed out waiting for " + what)
        await pilot.pause(0.05)


def race_on_the_table(vdev):
    """A Race with open colours on the virtual board, its five turtles on the start."""
    v = vdev("race", board=str(BOARDS / "race.json"))
    world = v.open_world()
    mirror = v.mirror()
    mirror.link.command("new", {"game": "race", "players": 3, "options": {"open_colours": 1},
                                "dice": "electronic"}, timeout=5)
    mirror.wait_synced(10)
    for _ in range(5):
        world.take()
        world.place("start")
    return world, mirror


def test_the_mirror_says_race_cards_colours_and_answers_in_words_counting_from_1(vdev):
    from textual.widgets import RichLog, Static

    from turtleboard.mirror.app import MirrorApp

    world, mirror = race_on_the_table(vdev)

    def log() -> str:
        return "\n".join(line.text for line in app.query_one("#log", RichLog).lines)

    def side() -> str:
        return str(app.query_one("#side", Static).content)

    def asked(start: str):
        p = mirror.prompt
        return p is not None and (p.get("choices") or [""])[0].startswith(start)

    async def scenario():
        async with app.run_test(size=(80, 24)) as pilot:
            # the start stack, bottom first, as it lies on the table: the first colour each time
            for n in range(5):
                await wait_for(pilot, lambda n=n: asked("stack ") and len(mirror.replica.game.history) == n,
                               "the start stack's question")
                await pilot.press("1")
            # the colours, chosen openly: "player 1 is red", never "colour 0 red"
            for p in range(3):
                await wait_for(pilot, lambda p=p: asked("colour %d " % p) and "player %d is" % (p + 1) in side(),
                               "player %d's colour question" % (p + 1))
                choice = mirror.prompt["choices"][1]
                colour = choice.split()[2]
                await pilot.press("2")  # the second choice, counted from 1
                await wait_for(pilot, lambda p=p, c=colour: "%d. player %d is %s" % (6 + p, p + 1, c) in log(),
                               "player %d's colour in the log" % (p + 1))
                assert "> answer 2: player %d is %s" % (p + 1, colour) in log()
            # player 1 moves the top turtle of the start stack one field: the
            # board cannot tell which card did it and asks
            world.lift("start", 1)
            world.place("1")
            await wait_for(pilot, lambda: mirror.prompt is not None and mirror.prompt.get("kind") == "move",
                           "which card moved the turtle")
            choices = mirror.prompt["choices"]
            await wait_for(pilot, lambda: race_card(choices[0]) in side(), "the cards in words")
            assert "arrow card" in side() or "rainbow card" in side(), side()
            await pilot.press("1")
            card = choices[0]
            await wait_for(pilot, lambda: "9. %s — %s" % (card, race_card(card)) in log(), "the card in the log")
            await wait_for(pilot, lambda: "last card: " + race_card(card) in side(), "the last card in words")
            assert "> answer 1: " + race_card(card) in log()
            said = log() + "\n" + side()
            assert not NOTATION.search(said), NOTATION.search(said)
            await pilot.press("q")

    app = MirrorApp(mirror)
    asyncio.run(scenario())


def test_the_console_says_moves_in_words_and_counts_answers_from_1(vdev):
    import io

    from rich.console import Console as RichConsole

    from turtleboard.connection.link import Link
    from turtleboard.console.app import Console

    world, mirror = race_on_the_table(vdev)
    path = mirror.link.port
    mirror.close()
    out = io.StringIO()
    link = Link(path)
    link.open(10)
    con = Console(link, out=RichConsole(file=out, width=200, color_system=None, highlight=False))
    try:
        def pump_until(cond, what, timeout=30.0):
            end = time.monotonic() + timeout
            while not cond():
                assert time.monotonic() < end, "timed out waiting for " + what + "\n" + out.getvalue()
                con.pump(0.05)

        answered = set()

        def asked(start):
            return (con.prompt_id is not None and con.prompt_id not in answered
                    and con.prompt_choices[0].startswith(start))

        con.execute("sync")
        for _ in range(5):  # the start stack, bottom first
            pump_until(lambda: asked("stack "), "the start stack's question")
            answered.add(con.prompt_id)
            con.execute("answer 1")
        pump_until(lambda: asked("colour 0"), "player 1's colour question")
        # each action the board reports, in words after its frame
        assert re.search(r'action +\{.*"text":"stack \w+"\}  \w+ next on the start stack', out.getvalue())
        colour = con.prompt_choices[0].split()[2]
        assert "1 player 1 is %s\n" % colour in out.getvalue()  # the choices in words, from 1
        con.execute("answer 1")
        pump_until(lambda: "player 1 is %s" % colour in out.getvalue().split("> answer")[-1], "the answer")
        text = out.getvalue()
        assert "> answer 1: player 1 is %s" % colour in text
        assert '"choice"' not in text.split("> answer")[-1].splitlines()[0]
    finally:
        link.close()
