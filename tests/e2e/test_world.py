"""The sim world (no device): the sensor model, what a person can and cannot
do, the files the firmware reads, and the interactive view (textual Pilot)."""

from __future__ import annotations

import asyncio
import json
import os
import time

import pytest
from apptools import app_wait

from turtleboard.sim.device import load_board_file
from turtleboard.sim.world import (
    BOUNCE_MS,
    FIELD,
    MID,
    OFFSET_SPAN,
    World,
    WorldError,
    reading,
)

from small_boards import write_board


@pytest.fixture
def world(tmp_path):
    board = load_board_file(write_board(tmp_path / "b.json", game="mahe", fields=5))
    w = World(board, str(tmp_path / "world"))
    yield w
    w.close()


def adc(world) -> list[int]:
    with open(os.path.join(world.dir, "adc")) as f:
        return [int(x) for x in f.read().split()]


def channel(world, cell) -> int:
    return world.board.sensor_of[world.board.cells.index(cell)]


def test_sensor_model_up_down_stack_and_offsets(world):
    values = adc(world)
    assert len(values) == world.board.channels()
    assert all(abs(v - MID) <= OFFSET_SPAN for v in values)
    assert len(set(values)) > 1  # every sensor has its own offset
    world.take()
    world.place("2")
    up = adc(world)[channel(world, "2")]
    assert up - values[channel(world, "2")] == FIELD
    world.take()
    world.place("2")  # a stack reads like its bottom turtle, a little stronger
    assert adc(world)[channel(world, "2")] > up
    world.take(up=False)
    world.place("3")
    assert values[channel(world, "3")] - adc(world)[channel(world, "3")] == FIELD
    ch = channel(world, "3")
    assert reading(ch, [["a", False], ["b", True]]) < reading(ch, [])


def test_impossible_actions_are_refused_and_change_nothing(world):
    before = adc(world)
    with pytest.raises(WorldError, match="cell 2 is empty"):
        world.lift("2")
    with pytest.raises(WorldError, match="the hand is empty"):
        world.place("2")
    with pytest.raises(WorldError, match="no cell 'moon'"):
        world.take() or world.place("moon")
    world.place("1")
    with pytest.raises(WorldError, match="the hand is empty"):
        world.put_away()
    world.take()
    world.place("1")
    with pytest.raises(WorldError, match="stack of 2"):
        world.flip("1")
    with pytest.raises(WorldError, match="no button 'reset'"):
        world.press("reset")
    world.lift("1", 1)
    with pytest.raises(WorldError, match="already holds"):
        world.lift("1")
    assert adc(world) != before


def test_buttons_file_and_leds(world):
    world.press("next")
    with open(os.path.join(world.dir, "buttons")) as f:
        assert f.read() == "next\n"
    world.release("next")
    with open(os.path.join(world.dir, "buttons")) as f:
        assert f.read() == "\n"
    assert world.leds() == []
    with open(os.path.join(world.dir, "leds"), "w") as f:
        f.write("ff0000 00ff00\n")
    assert world.cell_led("raft") == "ff0000"
    assert world.cell_led("1") == "00ff00"
    assert world.cell_led("2") == "000000"


def test_undo_key_and_buttons_soldered_to_each_others_pin(tmp_path):
    # The table view has a key for every button of the board (UNDO: u); a
    # button soldered to another's pin is read as that one (docs/sim-world.md).
    from turtleboard.sim.world import Wiring
    from turtleboard.sim.worldview import WorldApp

    world = reference_world(tmp_path, "tortuga")

    def read():
        with open(os.path.join(world.dir, "buttons")) as f:
            return f.read()

    async def run():
        app = WorldApp(world)
        async with app.run_test(size=(80, 24)) as pilot:
            await finish(app, pilot)
            pressed = []  # (the key lets go after 200 ms: a busy machine may be past it)
            press = world.press
            world.press = lambda name: (pressed.append(name), press(name))
            await pilot.press("u")
            assert pressed == ["undo"] and app.message == ""
            assert await app_wait(pilot, lambda: world.held == [] and read() == "\n")

    try:
        asyncio.run(run())
        wiring = Wiring(world.board, {"buttons": {"undo": 9}})  # a pin the board file leaves free
        wiring.swap_buttons("next", "ok")
        world.set_wiring(wiring)
        world.press("next")
        assert read() == "ok\n"
        world.release("next")
        world.press("undo")
        assert read() == "\n"  # nothing reads it
        assert "button UNDO on GP9 (the board file says GP8)" in wiring.faults()
        assert Wiring(world.board, wiring.to_json()).buttons == {"next": 7, "ok": 6, "undo": 9}
        with pytest.raises(WorldError, match="no button 'reset'"):
            wiring.swap_buttons("reset", "ok")
    finally:
        world.close()


def test_pieces_stay_where_they_are_across_a_restart(world, tmp_path):
    world.take()
    world.place("4")
    world.take(up=False)
    world.place("5")
    world.take()
    again = World(world.board, world.dir)
    try:
        assert again.stacks["4"] == [["turtle", True]]
        assert again.stacks["5"] == [["turtle", False]]
        assert again.hand == [["turtle", True]]
        assert adc(again) == adc(world)
    finally:
        again.close()
    with open(os.path.join(world.dir, "pieces.json"), "w") as f:
        f.write("{not json")
    with pytest.raises(WorldError, match="delete it"):
        World(world.board, world.dir)
    json.dumps(world.stacks)


def test_bounce_settles_at_the_full_reading(tmp_path):
    board = load_board_file(write_board(tmp_path / "b.json", game="mahe", fields=5))
    w = World(board, str(tmp_path / "world"), bounce=True, noise=0)
    try:
        w.take()
        w.place("2")
        ch = board.sensor_of[board.cells.index("2")]
        seen = set()
        end = time.monotonic() + 2 * BOUNCE_MS / 1000
        while time.monotonic() < end:  # the wobble, and past it
            seen.add(adc(w)[ch])
            time.sleep(0.01)
        full = reading(ch, [["t", True]])
        end = time.monotonic() + 10
        while adc(w)[ch] != full and time.monotonic() < end:
            time.sleep(0.01)
        assert adc(w)[ch] == full
        assert len(seen) > 1  # it wobbled on the way down
    finally:
        w.close()


def test_interactive_view_plays_the_board_by_hand(world):
    from turtleboard.sim.worldview import WorldApp

    with open(os.path.join(world.dir, "leds"), "w") as f:
        f.write(" ".join(["00ff00"] * world.board.led_count) + "\n")

    async def run():
        app = WorldApp(world)
        async with app.run_test() as pilot:
            await pilot.press("t", "p")  # take a turtle, put it on the raft
            assert world.stacks["raft"] == [["turtle", True]]
            await pilot.press("l", "right", "right", "P")  # carry it to 2, flipped
            assert world.stacks["raft"] == [] and world.stacks["2"] == [["turtle", False]]
            await pilot.press("f")
            assert world.stacks["2"] == [["turtle", True]]
            await pilot.press("right", "l")
            assert "cell 3 is empty" in app.message  # refused, said why
            await pilot.press("n")
            assert world.held == ["next"]
            assert await app_wait(pilot, lambda: world.held == [])  # let go after a moment
            await pilot.click("#cell-4")
            assert app.selected == 4
            cell = app.query_one("#cell-2")
            assert "^" in str(cell.render())
            assert cell.styles.background.hex.lower() == "#00ff00"  # its LED's colour
            with open(os.path.join(world.dir, "leds"), "w") as f:
                f.write(" ".join(["0000ff"] * world.board.led_count) + "\n")
            # the view follows the LEDs the firmware writes
            assert await app_wait(pilot, lambda: cell.styles.background.hex.lower() == "#0000ff")

    asyncio.run(run())


BOARDS = os.path.join(os.path.dirname(__file__), "..", "..", "boards")


def reference_world(tmp_path, game):
    board = load_board_file(os.path.join(BOARDS, "%s.json" % game))
    return World(board, str(tmp_path / game))


async def finish(app, pilot):
    """Until the hands laid out what a key asked for."""
    assert await app_wait(pilot, lambda: not app.busy), "the hands are still busy: %s" % app.busy


def test_tortuga_view_is_the_hexagon_and_arrows_go_to_the_neighbour(tmp_path):
    from turtleboard.sim.worldview import WorldApp

    world = reference_world(tmp_path, "tortuga")
    cells = world.board.cells

    async def run():
        app = WorldApp(world)
        async with app.run_test(size=(150, 45)) as pilot:
            def at(cell):
                region = app.query_one("#cell-%d" % cells.index(cell)).region
                return region.x, region.y

            # North is up: d1 (the south player's corner) below d4 below d7;
            # columns a..g left to right, a column's neighbours half a cell up or down.
            assert at("d1")[0] == at("d4")[0] == at("d7")[0]
            assert at("d1")[1] > at("d4")[1] > at("d7")[1]
            assert at("a1")[0] < at("b1")[0] < at("d1")[0] < at("g1")[0]
            assert at("d1")[1] - at("c1")[1] == (at("d1")[1] - at("d2")[1]) // 2 > 0
            assert at("d2")[1] < at("e1")[1] < at("d1")[1]
            app.select(cells.index("d1"))
            await pilot.press("up")
            assert app.cell == "d2"
            await pilot.press("up", "up", "right")
            assert app.cell in ("e3", "e4")  # a neighbour, not a cell two columns on
            await pilot.press("left", "down")
            assert app.cell in ("d3", "d4", "d2")
            app.select(cells.index("g4"))
            await pilot.press("right")
            assert app.cell == "g4"  # nothing further east: stay
            app.select(cells.index("a1"))
            seen = []
            for _ in range(6):  # across the hexagon, zigzagging along a1's row
                await pilot.press("right")
                seen.append(app.cell)
            assert seen == ["b1", "c2", "d2", "e2", "f1", "g1"]
            await pilot.click("#cell-%d" % cells.index("c3"))
            assert app.cell == "c3"

    try:
        asyncio.run(run())
    finally:
        world.close()


def test_start_key_lays_out_the_engine_start_and_clear_sweeps_it(tmp_path):
    from turtleboard.sim.worldview import WorldApp, board_game
    from turtles.game import EMPTY, UP

    world = reference_world(tmp_path, "tortuga")
    changes = []

    async def run():
        app = WorldApp(world)
        async with app.run_test(size=(150, 45)) as pilot:
            await pilot.press("t")  # something in hand is put back first
            before = world.changes
            await pilot.press("s")
            await finish(app, pilot)
            assert world.image() == board_game(world.board).image()
            assert world.hand == []
            changes.append(world.changes - before)
            assert "done" in app.message
            cell = app.query_one("#cell-%d" % world.board.cells.index("d1"))
            assert "S" in str(cell.render())  # a south turtle: its team shows
            north = app.query_one("#cell-%d" % world.board.cells.index("d7"))
            assert "N" in str(north.render())
            # the board's other lights in words: whose turn, its status
            assert "turn:" in str(app.query_one("#leds").render())
            assert "status" in str(app.query_one("#status").render())
            app.select(world.board.cells.index("d1"))
            await pilot.press("r")  # turned about to the other team
            assert world.stacks["d1"] == [["N", True]]
            await pilot.press("c")
            await finish(app, pilot)
            assert world.image() == [EMPTY] * len(world.board.cells)

    try:
        asyncio.run(run())
    finally:
        world.close()
    # One turtle at a time from the box (a take and a put-down each), as a person would.
    assert changes[0] >= 16 * 2
    assert UP in board_game(world.board).image()


@pytest.mark.parametrize("game, players, start, count", [
    ("mahe", 3, "raft", 6),  # 3 players: two turtles each on the raft
    ("race", 4, "start", 5),  # the five colours stacked on the start
])
def test_track_views_and_their_start(tmp_path, game, players, start, count):
    from turtleboard.sim.worldview import WorldApp

    world = reference_world(tmp_path, game)
    cells = world.board.cells

    async def run():
        app = WorldApp(world, players=2)
        async with app.run_test(size=(150, 45)) as pilot:
            def at(cell):
                region = app.query_one("#cell-%d" % cells.index(cell)).region
                return region.x, region.y

            if game == "race":
                assert at("start")[1] == at("4")[1] == at("lettuce")[1]
                assert at("start")[0] < at("1")[0] < at("8")[0] < at("lettuce")[0]
                await pilot.press("right", "right")
                assert app.cell == "2"
            else:
                # Counter-clockwise from the bottom: 1 -> 5 rightwards, up the right
                # side, 12 on top, down the left side; the raft below left of 1.
                assert at("1")[0] < at("3")[0] and at("8")[1] < at("5")[1]
                assert at("12")[1] < at("8")[1] and at("12")[1] < at("18")[1]
                assert at("raft")[1] > at("1")[1] and at("raft")[0] < at("1")[0]
                await pilot.press("right", "right")
                assert app.cell == "2"  # raft -> 1 -> 2
            await pilot.press("plus")
            assert app.players == 3
            if game == "race":
                await pilot.press("plus", "plus", "plus")
                assert app.players == 5  # as many as the game allows
            await pilot.press("s")
            await finish(app, pilot)
            assert [c for c in cells if world.stacks[c]] == [start]
            assert len(world.stacks[start]) == count
            assert all(up for _, up in world.stacks[start])

    try:
        asyncio.run(run())
    finally:
        world.close()


@pytest.mark.parametrize("game", ["tortuga", "mahe", "race"])
def test_the_table_fits_80x24_and_the_cursor_never_leaves_sight(tmp_path, game):
    # At 80x24 every cell, the lights, the hand and the keys are on screen,
    # no cell over another; in a smaller window the table scrolls to the
    # selected cell, whichever it is.
    from turtleboard.sim.worldview import WorldApp

    world = reference_world(tmp_path, game)
    cells = world.board.cells

    def inside(outer, inner):
        return outer.contains_region(inner)

    async def run():
        app = WorldApp(world)
        async with app.run_test(size=(80, 24)) as pilot:
            box = app.query_one("#tablebox")

            def laid_out():  # every cell in the table's room, none over another
                room = box.scrollable_content_region
                regions = [app.query_one("#cell-%d" % i).region for i in range(len(cells))]
                return all(inside(room, r) for r in regions) and not any(
                    a.overlaps(b) for i, a in enumerate(regions) for b in regions[i + 1:])

            assert await app_wait(pilot, laid_out)
            room = box.scrollable_content_region
            regions = [app.query_one("#cell-%d" % i).region for i in range(len(cells))]
            for cell, region in zip(cells, regions):
                assert inside(room, region), (cell, region, room)
            for i, a in enumerate(regions):
                for b in regions[i + 1:]:
                    assert not a.overlaps(b), (a, b)
            assert box.max_scroll_y == 0 and box.max_scroll_x == 0
            screen = app.screen.region
            for part in ("#leds", "#status", "#hand", "#info", "Footer"):
                assert inside(screen, app.query_one(part).region), part
            assert "turn:" in str(app.query_one("#leds").render())
            # the footer lists the keys once the app has settled
            assert await app_wait(pilot, lambda: app.query("FooterKey"))
            footer = " ".join(k.description for k in app.query("FooterKey"))
            assert "lift" in footer and "quit" in footer
            assert all(inside(screen, k.region) for k in app.query("FooterKey"))
            def in_sight():  # the selected cell
                return inside(box.scrollable_content_region,
                              app.query_one("#cell-%d" % app.selected).region)

            await pilot.resize_terminal(56, 18)
            # the table's room is the smaller window's
            assert await app_wait(pilot, lambda: box.region.width <= 56 and box.region.height < 18)
            for i in range(len(cells)):
                app.select(i)
                assert await app_wait(pilot, in_sight), cells[i]
            for key in ("left", "left", "up", "up", "right", "down"):
                await pilot.press(key)
                assert await app_wait(pilot, in_sight), app.cell
            await pilot.resize_terminal(150, 45)
            # full size again
            assert await app_wait(pilot, lambda: not app.query_one("#table").has_class("compact"))

    try:
        asyncio.run(run())
    finally:
        world.close()


def test_hands_take_the_top_turtles_of_a_stack_marks_and_all(tmp_path):
    # l lifts the top turtle; l again on the same cell the next one under it
    # too; p puts them down together: a Mahé rider moves with its marks. On
    # the raft turtles stand side by side: l takes one, l again another one
    # instead, never two.
    from turtleboard.sim.worldview import WorldApp

    world = reference_world(tmp_path, "mahe")
    cells = world.board.cells

    def names(stack):
        return [n for n, _ in stack]

    async def run():
        app = WorldApp(world, players=2)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.press("s")
            await finish(app, pilot)
            raft = names(world.stacks["raft"])
            assert sorted(raft) == ["1a", "1b", "2a", "2b"]
            app.select(cells.index("raft"))
            await pilot.press("l")
            first = names(world.hand)
            assert len(first) == 1 and len(world.stacks["raft"]) == 3
            # (the hand line is redrawn after the key: waited for, not read at once)
            assert await app_wait(pilot, lambda: "l: another one instead" in str(app.query_one("#hand").render())), \
                str(app.query_one("#hand").render())
            await pilot.press("l")
            second = names(world.hand)
            assert len(second) == 1 and second != first and len(world.stacks["raft"]) == 3
            assert sorted(names(world.stacks["raft"]) + second) == sorted(raft)
            app.select(cells.index("3"))
            await pilot.press("p")
            app.select(cells.index("raft"))
            await pilot.press("l")
            rider = names(world.hand)
            app.select(cells.index("3"))
            await pilot.press("p")
            stack = second + rider
            assert names(world.stacks["3"]) == stack  # bottom first
            await pilot.press("l")
            assert names(world.hand) == rider  # the top one only
            # (the hand line is redrawn after the key: waited for, not read at once)
            assert await app_wait(pilot, lambda: "l: one more" in str(app.query_one("#hand").render())), \
                str(app.query_one("#hand").render())
            await pilot.press("l")
            assert names(world.hand) == stack  # and the one under it
            app.select(cells.index("5"))
            await pilot.press("p")
            assert names(world.stacks["5"]) == stack and world.hand == []
            await pilot.press("l")  # the rider alone off field 5
            app.select(cells.index("6"))
            await pilot.press("p")
            assert names(world.stacks["6"]) == rider and names(world.stacks["5"]) == second
            app.select(cells.index("raft"))
            await pilot.press("L")  # all of them at once
            assert len(world.hand) == 2 and world.stacks["raft"] == []

    try:
        asyncio.run(run())
    finally:
        world.close()


def test_a_redraw_while_the_view_closes_draws_nothing_and_raises_nothing(tmp_path):
    # The redraw timer can tick while the app's closing removes its widgets
    # one by one: the hand line gone, the cells still there.
    from textual.widgets import Static

    from turtleboard.sim.worldview import WorldApp

    world = reference_world(tmp_path, "race")

    async def run():
        app = WorldApp(world)
        async with app.run_test(size=(150, 45)) as pilot:
            await finish(app, pilot)
            for name in ("hand", "info", "leds"):
                await app.query_one("#" + name, Static).remove()
                app.shown = {}  # as if all had changed: the redraw would draw it all
                app.redraw()
            assert app.query("#cell-0")  # (the cells were still there)

    try:
        asyncio.run(run())
    finally:
        world.close()


def test_race_turtles_show_their_colours_and_a_long_hand_keeps_the_grid(tmp_path):
    # The start laid out: the five Race turtles by colour, bottom first. A
    # hand too long for its line is cut, never wrapped: the cells, the
    # lights and the keys keep their rows at 80x24.
    from turtleboard.sim.worldview import WorldApp

    world = reference_world(tmp_path, "race")

    async def run():
        app = WorldApp(world)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.press("s")
            await finish(app, pilot)
            assert [n for n, _ in world.stacks["start"]] == [
                "red", "yellow", "green", "blue", "purple"]
            start = app.query_one("#cell-%d" % world.board.cells.index("start"))
            assert await app_wait(pilot, lambda: "rygbp" in str(start.render()))
            parts = ["#cell-%d" % i for i in range(len(world.board.cells))] + [
                "#leds", "#status", "#hand", "#info", "Footer"]

            def rows():
                return [app.query_one(p).region for p in parts]

            before = rows()
            app.select(world.board.cells.index("1"))
            await pilot.press(*["t"] * 30)  # a hand of 30 turtles: a long line
            assert await app_wait(pilot, lambda: len(world.hand) == 30
                                  and "hand: ^^^^" in str(app.query_one("#hand").render()))
            assert rows() == before
            assert app.query_one("#hand").region.height == 1

    try:
        asyncio.run(run())
    finally:
        world.close()


def test_an_led_beside_no_cell_is_drawn_and_the_lights_as_soldered(tmp_path):
    # `turtleboard sim --extra-led 0`: an LED too many first on the chain.
    # Lit, the view draws it beside no cell (a self-test by hand asks about
    # it); every light after it sits one place further, the cells' and the
    # turn lights' alike.
    from turtleboard.sim.world import Wiring
    from turtleboard.sim.worldview import WorldApp

    world = reference_world(tmp_path, "race")
    wiring = Wiring(world.board)
    wiring.extra_led(0)
    world.set_wiring(wiring)
    assert Wiring(world.board, wiring.to_json()).light_at(10) == 11  # kept in wiring.json
    turn1 = world.board.groups["turn"][0]
    chain = ["000000"] * wiring.chain

    def light(*on):
        colours = list(chain)
        for i in on:
            colours[i] = "ffffff"
        with open(os.path.join(world.dir, "leds"), "w") as f:
            f.write(" ".join(colours) + "\n")

    async def run():
        app = WorldApp(world)
        async with app.run_test(size=(80, 24)) as pilot:
            status = app.query_one("#status")
            leds = app.query_one("#leds")
            light(0)
            assert await app_wait(pilot, lambda: "LED 0" in str(status.render()))
            assert "LED 0    lit beside no cell" in str(status.render())
            assert all(w.styles.background.hex.lower() == "#000000" for w in app.query(".cell"))
            light(1)  # the start's LED, one place further than the board file says
            start = app.query_one("#cell-%d" % world.board.cells.index("start"))
            assert await app_wait(pilot, lambda: "LED 0" not in str(status.render())
                                  and start.styles.background.hex.lower() == "#ffffff")
            light(turn1 + 1)  # the first turn light, where it is soldered
            assert await app_wait(pilot, lambda: "(player 1)" in str(leds.render()))

    try:
        asyncio.run(run())
    finally:
        world.close()


@pytest.mark.e2e
def test_the_raft_gives_the_turtle_the_board_asks_for_and_marks_stay_the_mirrors(tmp_path):
    # `turtleboard sim --interactive` with a mirror on its port: Mahé for 4,
    # each player's turtle stops after one die. The board asks for that
    # turtle off the raft, where the turtles stand side by side: l takes it
    # (not the last one put there), p puts it where it is lit, and after
    # every move the view's marks are the mirror's.
    import threading

    from turtleboard.connection.replica import Mirror
    from turtleboard.sim import device
    from turtleboard.sim.overheard import Overheard
    from turtleboard.sim.supervisor import Supervisor
    from turtleboard.sim.worldview import WorldApp

    sim = tmp_path / "sim"
    board = device.prepare(str(sim), os.path.join(BOARDS, "mahe.json"))
    world = World(board, str(sim / "world"))
    heard = Overheard(board.geometry)
    sup = Supervisor(str(sim / "flash"))
    sup.overhear = heard.feed  # as `turtleboard sim --interactive` does
    sup.start()
    thread = threading.Thread(target=sup.serve, daemon=True)
    thread.start()
    mirror = Mirror(sup.path, geometry=board.geometry)
    cells = board.cells

    def game():
        mirror.poll(0)
        return mirror.replica.game

    def marks():  # the view's turtles where the mirror has them
        out = {c: [n for n, _ in world.stacks[c]] for c in cells if world.stacks[c]}
        if "raft" in out:
            out["raft"] = sorted(out["raft"])
        return out

    async def run():
        app = WorldApp(world, port=sup.path, heard=heard)
        async with app.run_test(size=(80, 24)) as pilot:
            mirror.start(10)
            mirror.link.command("new", {"game": "mahe", "players": 4, "options": {},
                                        "dice": "electronic", "seed": 5}, timeout=5)
            mirror.wait_synced(10)
            await pilot.press("s")  # the four turtles on the raft
            await finish(app, pilot)
            for turn in range(2):
                assert await app_wait(pilot, lambda: game() is not None and mirror.prompt
                                      and "stop" in mirror.prompt.get("choices", [])), turn
                mover = game().snapshot()["mover"]
                n = len(game().history)
                mirror.send("enter", {"text": "stop"})
                assert await app_wait(pilot, lambda n=n: len(game().history) > n
                                      and heard.snapshot() == game().snapshot())
                to = next(c for c, on in game().snapshot()["cells"].items() if mover in on)
                app.select(cells.index("raft"))
                await pilot.press("l")
                assert [name for name, _ in world.hand] == [mover], (turn, world.hand, mover)
                app.select(cells.index(to))
                await pilot.press("p")
                assert marks() == game().snapshot()["cells"], turn
                # the board sees it as asked: the next player's turn comes
                assert await app_wait(pilot, lambda t=turn: game().snapshot()["turn"] == t + 1)
            await pilot.press("q")

    try:
        asyncio.run(run())
    finally:
        mirror.close()
        sup.stop()
        thread.join(10)
        world.close()
