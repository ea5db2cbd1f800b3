"""The simulated table (docs/simulation.md): a bounded sample of seeds for
`make test`, the seeds that found faults (each a test of its own), and the
simulation's own check that one seed gives one run (the mutations, each
caught within a simulated hour, are bench/simulate.py --mutations).

    pytest -m simulate                 # this file alone
    python bench/simulate.py --hours H --seed S     # the soak

The sample plays a few simulated minutes a seed, with every fault; a
broken promise fails the test with its seed, step and replay command.
"""

from __future__ import annotations

import os
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "bench"))

pytest.importorskip("websockets", reason="the web extra: pip install 'turtleboard[web]'")

from simulate import one  # noqa: E402

pytestmark = [pytest.mark.e2e, pytest.mark.simulate]


# the machine's seconds a table of the suite may take: one that crawls (a
# view that stays behind makes every step wait) fails, saying so
BUDGET_S = 300


def table(tmp_path, seed, minutes, **kw):
    run = one(seed, minutes, folder=str(tmp_path / "sim"), budget_s=BUDGET_S, **kw)
    assert not run["broken"], "\n".join(
        "promise %(promise)d broken (seed %(seed)d, step %(step)d): %(what)s\n  replay: %(replay)s" % b
        for b in run["broken"])
    return run


# The sample: seeds of three games, faults and all (about a minute in all on two cores).
SAMPLE = [(4, "race"), (11, "tortuga"), (5, "hatching")]


@pytest.mark.parametrize("seed,game", SAMPLE)
def test_a_simulated_table_keeps_every_promise(tmp_path, seed, game):
    # Tortuga's table also opens its page in headless Chromium, which must
    # show the board's last action at the end (where chromium and playwright are)
    from turtleboard.simulate.browser import available

    chromium = game == "tortuga" and available()
    run = table(tmp_path, seed, 1.0, game=game, browser=chromium)
    assert run["stats"]["actions"] > 0
    # the table's time counted to the games its people played, by name
    played = run["stats"]["minutes_played"]
    assert abs(sum(played.values()) - run["minutes"]) < 0.01, played
    assert set(played) <= {"mahe", "race", "tortuga", "tattoo", "hatching", "no game"}, played
    if chromium:
        assert run["stats"]["browser_checks"] >= 1
    assert run["lag_steps"] == 0 or run["lag_steps"] < run["stats"]["steps"] // 10


def test_one_seed_gives_one_run(tmp_path):
    a = table(tmp_path / "a", 5, 0.5, game="hatching")
    b = table(tmp_path / "b", 5, 0.5, game="hatching")
    for key in ("actions", "steps", "boots", "verbs", "faults"):
        assert a["stats"][key] == b["stats"][key], key


# The seeds that found faults: each a test of its own, run as far as the
# step that broke its promise. Those found late in a long table (minutes of
# the table's time) run with TURTLEBOARD_SIM_LONG=1 only, to keep make
# test's share of the simulated table under two minutes; the fault each
# found has its own short test besides (named).

LONG = pytest.mark.skipif(not os.environ.get("TURTLEBOARD_SIM_LONG"),
                          reason="a long seed: TURTLEBOARD_SIM_LONG=1 pytest -m simulate runs it")


def test_seed_1_race_a_press_comes_after_the_question_it_answers(tmp_path):
    # the simulator's fault: the firmware's frames were seen at the time of
    # the last grant, so NEXT was pressed and let go before the question
    # was there (step 398)
    table(tmp_path, 1, 1.1, game="race")


@LONG
def test_seed_2_mahe_the_68th_answer_from_a_page_is_seen(tmp_path):
    # the simulator's fault: a page's answers were counted in the 64 it keeps
    table(tmp_path, 2, 1.7, game="mahe")



@LONG
def test_seed_2_mahe_the_host_back_in_step_after_an_unplug_on_a_loaded_machine(tmp_path):
    # the unplug at 488 s of the table's time, a long game's sync answer
    # after it: on a loaded machine its `state` line was dropped, and the
    # host stayed out of step for over a second (docs/simulation.md). Run
    # it beside two busy loops to see what the fix is for.
    table(tmp_path, 2, 8.4, game="mahe")

def test_seed_4_race_prompt_ids_a_host_takes(tmp_path):
    # prompt ids drawn per boot up to 2**29 were bad frames to the host
    # (tests/firmware/test_ctl_prompts.py, the last boot's question)
    table(tmp_path, 4, 0.2, game="race")


def test_seed_13_tortuga_a_jump_chain_goes_on_across_a_power_cut(tmp_path):
    # a hop announced, not yet logged, the next made while the board was
    # dark: both hops guided back (tests/firmware/test_ctl_moves.py)
    table(tmp_path, 13, 0.2, game="tortuga")


def test_seed_102_race_next_with_no_question_says_why_no_hint(tmp_path):
    # NEXT in the Race with real cards did nothing (tests/firmware/test_ctl_computer.py)
    table(tmp_path, 102, 0.8, game="race")


def test_seed_106_tattoo_a_seat_page_takes_back_only_its_own_action(tmp_path):
    # (and the PC's seat, its move taken back by UNDO, plays again:
    # tests/host/test_host_seats.py)
    table(tmp_path, 106, 0.25, game="tattoo")


def test_seed_109_tortuga_the_board_records_the_move_made(tmp_path):
    # the simulator's fault: what the hands meant by a move taken back by
    # UNDO was held against the next move of that number
    table(tmp_path, 109, 0.6, game="tortuga")


@LONG
def test_seed_103_tattoo_views_after_the_cable_is_put_back(tmp_path):
    # the simulator's fault: the views' clocks ran on across an unplugged board
    table(tmp_path, 103, 1.7, game="tattoo")


@LONG
def test_seed_105_hatching_pages_while_the_host_reader_stalls(tmp_path):
    # the simulator's fault: pages were held to the 1 s while the host they
    # see the board through was stalled
    table(tmp_path, 105, 3.8, game="hatching")


@LONG
def test_seed_107_mahe_nobody_presses_a_dark_board(tmp_path):
    # the simulator's fault: a person pressed NEXT on the question of a
    # board whose cable was out
    table(tmp_path, 107, 9.0, game="mahe")


@LONG
def test_seed_218_tortuga_a_hint_asked_as_the_cable_is_pulled(tmp_path):
    # the simulator's fault: NEXT pressed for a hint, the cable pulled
    # during the press: the hint held to 2 s though no frame could come
    table(tmp_path, 218, 3.2, game="tortuga")


def test_seed_232_tortuga_the_computer_waiting_after_a_takeback_says_so(tmp_path):
    # the simulator's fault: the board's computer, waiting for OK after a
    # takeback (its status says so, a reason), was held to have done nothing
    table(tmp_path, 232, 2.4, game="tortuga")


@LONG
def test_seed_503_race_a_late_hint_leaves_the_choice_made_with_next(tmp_path):
    # a hint asked with NEXT, the question opened with OK, NEXT pressed on
    # it, then the hint came and moved the choice back: OK would have taken
    # what the person had not chosen (tests/firmware/test_ctl_computer.py)
    table(tmp_path, 503, 3.6, game="race")


def test_seed_702_mahe_a_question_stays_open_when_the_console_reconnects(tmp_path):
    # the simulator's fault: the hello answering the restarted console's
    # handshake closed the die's question in the table's eyes, and the
    # family waited on the board for ten seconds
    table(tmp_path, 702, 2.9, game="mahe")


@LONG
def test_seed_603_race_a_move_the_power_cut_took_is_not_held_against_the_next(tmp_path):
    # the simulator's fault: what the hands meant by a move the board never
    # took was held against the move made after the board was laid out again
    table(tmp_path, 603, 2.5, game="race")


@LONG
def test_seed_607_mahe_an_answer_sent_as_the_host_is_killed(tmp_path):
    # the simulator's fault: the page's connection went with the host; the
    # page says it is offline, which is its answer
    table(tmp_path, 607, 5.6, game="mahe")


@LONG
def test_seed_709_hatching_a_page_state_of_an_earlier_moment(tmp_path):
    # the simulator's fault: a take-back and another action within one step
    # gave two games of one action count; the page's state was of the first
    table(tmp_path, 709, 2.6, game="hatching")


@LONG
def test_seed_719_tortuga_a_move_made_while_the_board_boots(tmp_path):
    # the simulator's fault: the board booted from a power cut during the
    # move and lit the pieces it asks back, which is its answer
    table(tmp_path, 719, 2.1, game="tortuga")


@LONG
def test_seed_823_tortuga_undo_typed_on_the_console_while_the_board_is_unplugged(tmp_path):
    # the simulator's fault: the console says "not sent: ..." (its own
    # loop's words), which the simulated console did not, and the table
    # held the undo to an answer from a board that was not there
    table(tmp_path, 823, 9.2, game="tortuga")


def test_seed_947_race_a_page_reads_states_queued_while_it_slept(tmp_path):
    # the simulator's fault: a page that had stopped reading got, when it
    # read again, a state of the game before a new one, at the same count
    table(tmp_path, 947, 1.5, game="race")


def test_seed_1023_tattoo_an_answer_the_console_refuses_itself(tmp_path):
    # the simulator's fault: the console, restarted while a question opened,
    # says it has seen no question (its own check, nothing sent); the table
    # held the typed answer to an answer from the board
    table(tmp_path, 1023, 2.2, game="tattoo")


def test_seed_1362_mahe_a_digit_on_the_mirror_whose_reader_stalled(tmp_path):
    # the simulator's fault: the mirror, its reader stalled while a question
    # opened, says "no prompt is open" in its log and sends nothing; the
    # table held the key to an answer from the board
    table(tmp_path, 1362, 2.3, game="mahe")


@LONG
def test_seed_1430_tattoo_ok_to_end_the_placing_just_after_a_placement(tmp_path):
    # OK pressed 100 ms after a placement, while the turtle still wobbled
    # (a cell not yet settled), opened no question and said nothing; it is
    # now held until the board is still (tests/firmware/test_ctl_prompts.py)
    table(tmp_path, 1430, 6.9, game="tattoo")


def test_seed_2286_tattoo_ok_pressed_mid_jump_takes_back_the_placement(tmp_path):
    # the simulator's fault: OK pressed with the turtle in the air confirmed
    # the board's question (a take-back of the placement just made), and
    # putting it down made another placement: the game changed twice and
    # came back to the same action count, which the table did not see
    table(tmp_path, 2286, 2.5, game="tattoo")


def test_a_soaks_table_that_breaks_a_promise_leaves_its_trace(tmp_path):
    # a soak's table runs beside others and may not replay the same from
    # its seed: the trace of its last moments is the evidence
    run = one(1, 0.5, game="race", mutation="hash-differs", folder=str(tmp_path / "sim"),
              budget_s=BUDGET_S, traces=str(tmp_path / "traces"))
    assert run["broken"]
    path = run["broken"][0]["trace"]
    text = open(path).read()
    assert "board> hello" in text and "BROKEN promise 6" in text


@LONG
def test_seed_2465_hatching_ok_held_through_a_wobble_read_as_a_lift(tmp_path):
    # OK pressed as a turtle just put down bounced; the bounce was read as
    # the turtle lifted again (a take-back question for a moment) and the
    # held OK was dropped with it (tests/firmware/test_ctl_prompts.py)
    table(tmp_path, 2465, 7.0, game="hatching")
