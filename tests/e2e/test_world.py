"""The sim world (no device): the sensor model, what a person can and cannot
do, the files the firmware reads, and the interactive view (textual Pilot)."""

from __future__ import annotations

import asyncio
import json
import os

import pytest

from boards import write_board
from turtleboard.sim.device import load_board_file
from turtleboard.sim.world import FIELD, MID, OFFSET_SPAN, World, WorldError, reading


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
        for _ in range(40):
            seen.add(adc(w)[ch])
            asyncio.run(asyncio.sleep(0.01))
        assert adc(w)[ch] == reading(ch, [["t", True]])
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
            await pilot.pause(0.4)
            assert world.held == []
            await pilot.click("#cell-4")
            assert app.selected == 4
            cell = app.query_one("#cell-2")
            assert "^" in str(cell.render())
            assert cell.styles.background.hex.lower() == "#00ff00"  # its LED's colour
            with open(os.path.join(world.dir, "leds"), "w") as f:
                f.write(" ".join(["0000ff"] * world.board.led_count) + "\n")
            await pilot.pause(0.3)  # the view follows the LEDs the firmware writes
            assert cell.styles.background.hex.lower() == "#0000ff"

    asyncio.run(run())
