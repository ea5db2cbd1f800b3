"""The maker's self-test end to end: a virtual board soldered with faults,
`turtleboard board test` with scripted hands finds every one, the corrected
board file and its calibration are flashed, and a whole game plays through
the sensors. Ctrl-C in the middle gives the board back as it was."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest

from turtleboard.sim.world import WEAK_FIELD

pytestmark = pytest.mark.e2e


def turtleboard(*args, timeout=180) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "turtleboard", *args], capture_output=True,
                          text=True, timeout=timeout)


def test_a_faulty_board_is_found_out_corrected_flashed_and_played(vdev, tmp_path):
    # As soldered: cell 9's sensor on an input of the second multiplexer that
    # the board file does not use (a --wiring file), and the fault options.
    from small_boards import board_obj  # tests/e2e/small_boards.py

    wired = board_obj("race", fields=10)
    wired["cells"]["9"]["sensor"] = 20
    wiring_file = tmp_path / "as-soldered.json"
    wiring_file.write_text(json.dumps(wired))
    v = vdev("race", fields=10, extra=[
        "--wiring", str(wiring_file), "--swap-sensors", "2,3", "--reverse-sensor", "5",
        "--kill-sensor", "7", "--weak-magnet", "8", "--swap-leds", "1,4"])
    r = turtleboard("board", "test", "--port", v.path, "--board", v.board_path,
                    "--sim-hands", v.dir, "--patience", "3")
    out = r.stdout
    assert r.returncode == 1, out + r.stderr  # faults found
    assert "[12/12] cell lettuce" in out and "[2/2] OK: ok" in out  # progress, step by step
    assert "LED 1 is beside cell 4 (the board file: cell 1)" in out
    assert "LED 4 is beside cell 1 (the board file: cell 4)" in out
    assert "cell 2: wired to multiplexer 0 input 3 (channel 3)" in out and "swapped" in out
    assert "cell 3: wired to multiplexer 0 input 2 (channel 2)" in out
    assert "cell 9: wired to multiplexer 1 input 4 (channel 20)" in out
    assert "cell 5: polarity reversed" in out
    assert "cell 7: dead: its input reads 0, at the ground rail" in out
    assert "cell 8: weak magnet: a turtle reads +%d, %d counts above the threshold 6000" % (
        WEAK_FIELD, WEAK_FIELD - 6000) in out
    for healthy in ("start", "1", "4", "6", "10", "lettuce"):
        assert "cell %s: " % healthy not in out.split("Report")[1].split("Wrote")[0]

    # The corrected board file: the wiring as found, the threshold measured.
    base = os.path.splitext(v.board_path)[0]
    fixed_path, cal_path = base + "-v2.json", base + "-v2.calibration.txt"
    fixed = json.loads(open(fixed_path).read())
    cells = fixed["cells"]
    assert (cells["2"]["sensor"], cells["3"]["sensor"], cells["9"]["sensor"]) == (3, 2, 20)
    assert (cells["1"]["led"], cells["4"]["led"]) == (4, 1)
    assert fixed["version"] == 2
    assert fixed["sensing"]["threshold"] < 6000  # the weak magnet still reads
    assert "$.cells.9.sensor: 9 -> 20" in out  # the differences shown
    assert turtleboard("board", "check", fixed_path).returncode == 0
    cal = open(cal_path).read().splitlines()
    assert cal[0] == "turtleboard calibration 1 2 %s" % fixed["name"]
    assert len(cal) == 1 + 11  # every cell but the dead one

    # Not on the board yet: the test will not run against another board file.
    r = turtleboard("board", "test", "--port", v.path, "--board", fixed_path, "--sim-hands", v.dir)
    assert r.returncode == 2 and "version 1, not" in r.stderr and "flash this one first" in r.stderr

    # The maker turns the reversed sensor over and replaces the dead one.
    world = v.open_world()
    wiring = world.wiring
    wiring.reverse("5")
    wiring.dead.discard("7")
    world.set_wiring(wiring)

    r = turtleboard("flash", "--port", v.path, "--board", fixed_path, "--calibration", cal_path)
    assert r.returncode == 0, r.stdout + r.stderr
    on_device = open(os.path.join(v.dir, "flash", "calibration.txt")).read().splitlines()
    assert on_device[0] == cal[0]
    assert on_device[1:] == cal[1:] or len(on_device) == 13  # the replaced sensor learnt at boot

    # Tested again: nothing left to correct.
    r = turtleboard("board", "test", "--port", v.path, "--board", fixed_path,
                    "--sim-hands", v.dir, "--patience", "3")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "Sensors: 12 of 12 cells right" in r.stdout and "LEDs: all 24" in r.stdout
    assert "is right as it is: nothing to correct" in r.stdout

    # And a whole game through the sensors.
    m = v.mirror()
    assert m.link.hello["board_version"] == 2
    v.new_game(m, "race", 3)
    hands = v.hands(m, seed=2)
    hands.play()
    game = m.replica.game
    assert game.is_over() and m.replica.mismatches == 0
    assert v.device_log() == [game.action_text(a) for a in game.history]


def test_an_led_too_many_at_the_start_of_the_chain_is_found_and_corrected(vdev):
    # An LED soldered in before the first: every LED one place further on.
    # The test lights past the chain too, and the LED beside no cell is
    # told from the lights of the groups, which move along with the cells.
    v = vdev("race", fields=10, extra=["--extra-led", "0"])
    r = turtleboard("board", "test", "--port", v.path, "--board", v.board_path,
                    "--sim-hands", v.dir, "--patience", "3")
    out = r.stdout
    assert r.returncode == 1, out + r.stderr
    assert "LED 0 is beside no cell (the board file: cell start)" in out
    assert "LED 1 is beside cell start (the board file: cell 1)" in out
    assert "LED 20 is beside no cell (the board file: no LED there)" in out
    assert "LED 0 lights beside no cell, and no light of the board file is there: an LED too many" in out
    assert "does not light" not in out and "nothing was written" not in out
    fixed_path = os.path.splitext(v.board_path)[0] + "-v2.json"
    fixed = json.loads(open(fixed_path).read())
    order = ["start"] + [str(i) for i in range(1, 11)] + ["lettuce"]
    assert [fixed["cells"][c]["led"] for c in order] == list(range(1, 13))
    assert fixed["leds"]["count"] == 21
    assert fixed["leds"]["groups"] == {"turn": [13, 14, 15, 16], "dice": [17, 18], "status": [19, 20]}
    assert turtleboard("board", "check", fixed_path).returncode == 0

    # Flashed, the board file is right: LED 0 stays dark beside no cell.
    r = turtleboard("flash", "--port", v.path, "--board", fixed_path)
    assert r.returncode == 0, r.stdout + r.stderr
    r = turtleboard("board", "test", "--port", v.path, "--board", fixed_path,
                    "--sim-hands", v.dir, "--patience", "3")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "LEDs: all 25" in r.stdout and "is right as it is" in r.stdout


def self_test(v, hands, patience=3.0, out_dir=None):
    """`turtleboard board test` in this process, with `hands` as the person:
    its output and exit status."""
    from turtleboard.connection.link import Link
    from turtleboard.maker.report import write_results
    from turtleboard.maker.selftest import SelfTest

    obj = json.loads(open(v.board_path).read())
    link = Link(v.path)
    link.open()
    try:
        test = SelfTest(link, obj, hands, patience)
        test.run()
    finally:
        link.close()
    test.judge()
    return write_results(test, v.board_path, out_dir, v.path)


def slip_hands(v, out):
    """Hands that slip as a person does: LED 2 said to be beside cell 5
    (then < to answer it again), a turtle put on cell 4 when cell 3 is asked
    (then cell 3 typed to test it again), and on cell 9 when 8 is asked
    (never put right)."""
    from turtleboard.sim.tester import TesterHands

    class Slips(TesterHands):
        slips = {"3": "4", "8": "9"}
        led_slip = True
        back = False
        redo = None
        at = None

        def which_led(self, led, expected, name):
            if self.back:
                self.back = False
                return "<"
            if led == 2 and self.led_slip:
                self.led_slip, self.back = False, True
                return "5"
            return super().which_led(led, expected, name)

        def put(self, cell):
            self.out("  put a turtle on its feet on cell %s" % cell)
            self.at = self.slips.pop(cell, cell)
            self.world.take("tester")
            self.world.place(self.at, up=True)

        def lift(self, cell):
            super().lift(self.at)

        def typed(self):
            if self.redo is None and any("answered for cell 3 too" in line for line in out):
                self.redo = "3"
                return "3"
            return None

    return Slips(v.board, v.dir, out=lambda line: (out.append(line), print(line)))


def test_a_slip_is_redone_and_one_left_does_not_spoil_the_rest(vdev, capsys):
    v = vdev("race", fields=10, extra=["--swap-sensors", "6,7"])
    out: list[str] = []
    assert self_test(v, slip_hands(v, out)) == 1
    printed = capsys.readouterr().out
    said = "\n".join(out)
    assert "[3/24] LED 2 (cell 2): beside cell 5" in said and "[3/24] LED 2 (cell 2): ok" in said
    assert "[5/12] cell 4: channel 4, on its feet +14000; it answered for cell 3 too" in said
    assert "[4/12] cell 3: channel 3" in said.split("answered for cell 3 too")[1]  # tested again
    assert "[10/12] cell 9: channel 9, on its feet +14000; it answered for cell 8 too" in said
    assert "  cell 8: channel 9, as cell 9 too; left as the board file says (channel 8)" in printed
    fixed = json.loads(open(os.path.splitext(v.board_path)[0] + "-v2.json").read())
    cells = fixed["cells"]
    assert [cells[c]["sensor"] for c in ("3", "4", "6", "7", "8", "9")] == [3, 4, 7, 6, 8, 9]
    assert cells["2"]["led"] == 2 and cells["5"]["led"] == 5
    assert "Then test again for what disagreed" in printed


def test_a_step_that_does_not_answer_counts_down_and_is_skipped_not_a_fault(vdev, tmp_path, capsys):
    # The reference Race board soldered with NEXT and OK on each other's
    # pins; the person at it has no UNDO to press (as on a table without
    # the key) and skips it, and skips cell 7 too, while the time left
    # counts down. Skipped is not a fault: nothing is said against them.
    from turtleboard.sim.tester import TesterHands

    board = tmp_path / "race.json"
    board.write_text(open(os.path.join(os.path.dirname(__file__), "..", "..", "boards",
                                       "race.json")).read())
    v = vdev("race", board=str(board), extra=["--swap-buttons", "next,ok"])

    class NoUndo(TesterHands):
        waits: list = []
        asked = None

        def put(self, cell):
            if cell == "7":
                self.asked = cell  # the hands do not put it down
                self.out("  put a turtle on its feet on cell 7")
            else:
                super().put(cell)

        def lift(self, cell):
            if cell != "7":
                super().lift(cell)

        def press(self, button):
            if button == "undo":
                self.asked = button  # nothing to press
                self.out("  press and hold UNDO")
            else:
                super().press(button)

        def waiting(self, left_s):
            if self.asked and left_s is not None:
                self.waits.append((self.asked, left_s))

        def typed(self):
            seen = [left for what, left in self.waits if what == self.asked]
            if len(seen) >= 3 and seen[-1] < seen[0] - 0.1:  # it counted down a while
                self.asked = None
                return ""  # Enter: skip it
            return None

    hands = NoUndo(v.board, v.dir)
    assert self_test(v, hands, patience=30) == 1
    out = capsys.readouterr().out
    assert "[8/10] cell 7: skipped" in out and "[3/3] UNDO: skipped" in out
    assert "Sensors: 9 of 10 cells right; skipped (not tested): 7" in out
    assert "Buttons: 0 of 3 answer as the board file says; skipped (not tested): UNDO" in out
    assert "button NEXT is wired to GP7, the pin of OK in the board file" in out
    assert "UNDO (GP8) does not answer" not in out and "cell 7: no answer" not in out
    assert "Repair first" not in out
    for what in ("7", "undo"):
        left = [s for w, s in hands.waits if w == what]
        assert left[0] <= 30 and left == sorted(left, reverse=True)  # counting down
    fixed = json.loads((tmp_path / "race-v2.json").read_text())
    assert fixed["buttons"] == {"next": 7, "ok": 6, "undo": 8}
    assert fixed["cells"]["7"] == {"sensor": 7, "led": 7}


def settled_leds(world, still_s=2.0, timeout=20.0) -> list[str]:
    """The LED frame once it has not changed for `still_s`."""
    end = time.monotonic() + timeout
    last, since = world.leds(), time.monotonic()
    while time.monotonic() < end:
        time.sleep(0.05)
        now = world.leds()
        if now != last:
            last, since = now, time.monotonic()
        elif now and time.monotonic() - since >= still_s:
            return now
    raise AssertionError("the LEDs never settled")


def test_ctrl_c_gives_the_board_back_as_it_was(vdev):
    v = vdev("race", fields=10, extra=["--swap-sensors", "3,6"])
    world = v.open_world()
    m = v.mirror()
    v.new_game(m, "race", 3)
    leds_before = settled_leds(world)
    hash_before = m.replica.game.state_hash()
    pieces_before = world.pieces()
    m.close()
    proc = subprocess.Popen(
        [sys.executable, "-m", "turtleboard", "board", "test", "--port", v.path, "--board",
         v.board_path, "--sim-hands", v.dir, "--patience", "30"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env=dict(os.environ, PYTHONUNBUFFERED="1"))  # each line seen as it is said
    try:
        seen = ""
        while "put a turtle on its feet on cell 4" not in seen:
            line = proc.stdout.readline()
            assert line, "board test ended early: " + seen + proc.stderr.read()
            seen += line
        # A turtle of the test is down (or about to be) on cell 4. The board
        # pauses (a busy USB link) so the test cannot end before Ctrl-C
        # reaches it: the signal comes while the test is under way.
        firmware = v.bg.firmware_pid()
        os.kill(firmware, signal.SIGSTOP)
        try:
            proc.send_signal(signal.SIGINT)
        finally:
            os.kill(firmware, signal.SIGCONT)
        rest, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 130, seen + rest + err
    assert "the board is back in its game as it was" in err
    assert not os.path.exists(os.path.splitext(v.board_path)[0] + "-v2.json")
    world.stop_ticker()
    world._load()  # the pieces as the hands left them
    assert world.pieces() == pieces_before
    m2 = v.mirror()
    m2.wait_synced(10)
    assert m2.replica.game.state_hash() == hash_before
    deadline = time.monotonic() + 5  # well before the device would give up on the host (10 s)
    while world.leds() != leds_before and time.monotonic() < deadline:
        time.sleep(0.05)
    assert world.leds() == leds_before


def test_on_a_tortuga_board_every_turtle_is_also_flipped(vdev):
    v = vdev("tortuga", extra=["--reverse-sensor", "d4", "--swap-sensors", "a1,g4"])
    r = turtleboard("board", "test", "--port", v.path, "--board", v.board_path,
                    "--sim-hands", v.dir, "--out-dir", os.path.join(v.dir, "out"),
                    "--patience", "3")
    out = r.stdout
    assert r.returncode == 1, out + r.stderr
    assert "turn it over (on its back) on cell g4" in out
    assert "cell b2: channel 5, on its feet +14000, flipped -14000" in out
    assert "cell d4: channel 18, on its feet -14000, flipped +14000" in out
    assert "cell d4: polarity reversed" in out
    assert "cell a1: wired to multiplexer 2 input 4 (channel 36)" in out
    assert "Sensors: 34 of 37 cells right" in out
