"""A hostile board against the real host paths: `play` (the textual app,
headless), `console` and `record export` (the real command line), each on a
fake board on a real pty (hostile.py) streaming generated lines: valid CRCs
with hostile JSON in every field of every kind, Unicode digits, huge lists and
strings, deep nesting, unknown kinds. Nothing may crash or stop a reader; the
host says what it dropped and gets back in step afterwards. A bounded sample
here; bench/fuzz.py --host-lines runs a million (TB_HOSTILE_LINES)."""

from __future__ import annotations

import asyncio
import functools
import gc
import os
import random
import subprocess
import sys
import threading
import time
import tracemalloc

from apptools import app_wait
from hostile import UNICODE_DIGITS, FakeBoard, Generator, good_payload, seal, spoil
from hosttools import ROOT

from controller import frames
from turtleboard.connection.link import BACKLOG_MAX, Damaged, Frame, Link
from turtleboard.connection.replica import Mirror, Replica, hash_text
from turtleboard.connection.schema import SCHEMA, problem
from turtles import new_game
from turtles.record import write_record

LINES = int(os.environ.get("TB_HOSTILE_LINES", "3000"))
FLOOD_HALF = int(os.environ.get("TB_FLOOD_HALF", "1000"))  # lines in each half of the memory tests' flood
REPORT = "line 52 (a snapshot, passed over) of the game log is damaged; 60 actions are restored"


def wait(cond, timeout=20.0, step=0.02):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if cond():
            return True
        time.sleep(step)
    return False


def test_the_issues_frames_are_unusable_where_they_are_read_and_said_so():
    link = Link("/nonexistent/turtleboard-hostile")
    lines = [
        seal(900, "hint", '{"by":"host","level":"good","n":0,"player":"x","text":"a1-b2"}'),
        seal(901, "state", '{"game":"mahe","n":0,"players":2,"seats":5}'),
        seal(902, "state", '{"game":"mahe","n":0,"players":2,"seats":{"a":1}}'),
        seal(903, "sense", '{"image":[[1]],"raw":[1]}'),
        seal("²", "ok", "{}"),
        seal("①", "ok", "{}"),
    ]
    events = link._decode_lines(lines)
    assert all(isinstance(e, Damaged) for e in events), events
    assert "hint with player 'x', not a whole number 0..8" in events[0].why
    assert "state with seats 5, not a list of texts or null" in events[1].why
    assert "seats {'a': 1}" in events[2].why and "sense with image [[1]]" in events[3].why
    assert "sequence number" in events[4].why and "sequence number" in events[5].why


def test_every_kind_with_every_field_spoiled_is_refused_or_harmless():
    # Every field of every kind given a value of each hostile sort: the
    # schema refuses it, or it is of the type the table says.
    r = random.Random(5)
    game = new_game("tortuga", 2)
    for kind, fields in SCHEMA.items():
        good = good_payload(kind, r, game)
        assert problem(kind, good) is None, (kind, good, problem(kind, good))
        for key in fields:
            for bad in (None, True, 1, -1, 10**40, 1.5, "x", "²", [], [[1]], {"a": 1}, ["a"] * 300):
                payload = dict(good, **{key: bad})
                why = problem(kind, payload)
                if why is None:
                    assert fields[key].check(bad) is None  # (a value the field allows)
                else:
                    assert key in why and kind in why


def test_the_replica_and_mirror_take_any_generated_line():
    gen = Generator(3)
    mirror = Mirror("/nonexistent/turtleboard-hostile")
    link = mirror.link
    for _ in range(LINES):
        events = link._decode_lines(link.reader.feed(gen.next_line()))
        out: list = []
        mirror._apply(events, out)  # (raises nothing: what this test is for)
        if mirror.replica.needs_sync:
            mirror.replica.sync_sent()
    assert link.unusable > LINES // 20 and link.frames_in > LINES // 3
    assert mirror.replica.resyncs > 0


def test_a_sync_that_never_ends_is_bounded():
    rep = Replica()
    rep.sync_sent()
    rep.handle(Frame(1, "state", {"game": "mahe", "players": 2, "n": 0, "hash": None}))
    notes = []
    for k in range(200_000):
        notes = rep.handle(Frame(k, "log", {"from": k * 1, "actions": ["d3"]}))
        if notes:
            break
    assert notes and "more than any game" in notes[0], notes
    assert rep.syncing is None and rep.needs_sync  # dropped, and asked again
    assert rep.handle(Frame(9, "log", {"from": 0, "actions": ["d3"] * 100})) == []  # (no sync open)


def test_play_survives_a_hostile_board_and_gets_back_in_step():
    from textual.widgets import RichLog, Static

    from turtleboard.mirror.app import LOG_ROWS, MirrorApp

    board = FakeBoard(seed=11, lines=LINES)
    board.report = REPORT
    mirror = Mirror(board.path)

    def log_text(app):
        return "\n".join(s.text for s in app.query_one("#log", RichLog).lines)

    async def scenario():
        app = MirrorApp(mirror)
        async with app.run_test(size=(120, 40)) as pilot:
            assert await app_wait(pilot, lambda: mirror.replica.in_sync)
            # its report shown (before the flood: the log keeps its last LOG_ROWS rows)
            assert await app_wait(pilot, lambda: "the board's game log was damaged: " + REPORT
                               in " ".join(log_text(app).split()))
            board.start_flood()
            assert await app_wait(pilot, board.done.is_set, 120)
            # quiet again: the mirror gets back in step and follows the game
            assert await app_wait(pilot, lambda: mirror.replica.in_sync and not mirror.replica.awaiting
                                  and mirror.replica.n == len(board.game.history))
            last = board.play()
            newest = lambda: [s.text for s in app.query_one("#log", RichLog).lines[-20:]]  # noqa: E731
            # (among the newest lines: the flood said "7. d5" or "17. d5" further up)
            assert await app_wait(pilot, lambda: any(t.startswith(f"{last['n']}. {last['text']} ") for t in newest())
                                  and mirror.replica.n == last["n"]), log_text(app)[-2000:]
            assert await app_wait(pilot, lambda: "in step" in str(app.query_one("#top", Static).content))
            text = " ".join(log_text(app).split())  # (the log wraps long lines)
            assert "dropped a line from the board" in text and "more like it" in text
            assert len(app.query_one("#log", RichLog).lines) <= LOG_ROWS
            await pilot.press("q")

    try:
        mirror.start(5)
        asyncio.run(scenario())
    finally:
        mirror.close()
        board.close()
    assert mirror.link.unusable > 0 and mirror.link.damaged > mirror.link.unusable
    assert len(mirror.link.backlog) <= BACKLOG_MAX
    assert "ack" in board.received and board.report is None  # shown, then acknowledged


def held_memory() -> int:
    """Bytes the process holds (tracemalloc's traced size after a collection),
    less the libraries' caches of a fixed size: functools caches with a
    maxsize (rich's cell widths and segment splits, Textual's styles) and
    Textual's LRU and FIFO caches (a log pane's 1,024 rendered lines, each
    line's crops) fill with a flood's unique lines up to their size and stop
    there; they are emptied first (bench/fuzz.py --hostile measures them
    with the rest, as RSS)."""
    from textual.cache import FIFOCache, LRUCache

    for obj in gc.get_objects():
        if isinstance(obj, functools._lru_cache_wrapper) and obj.cache_parameters()["maxsize"] is not None:
            obj.cache_clear()
        elif isinstance(obj, (LRUCache, FIFOCache)):
            obj.clear()
    gc.collect()
    return tracemalloc.get_traced_memory()[0]


def bounded(held: list[int], slack: int) -> bool:
    """Held before a flood, after its first half and after its second: the
    second half adds at most an eighth of what the first did (which filled
    the log pane and the like), or `slack` bytes (what lines in flight may
    hold)."""
    first, second = held[1] - held[0], held[2] - held[1]
    return second <= max(first / 8, slack)


def test_play_holds_no_more_memory_after_twice_the_flood():
    # The real mirror (its reader thread, its textual app) on a hostile
    # board's flood, in two halves: what it holds stops growing once its
    # bounded parts (the log pane's LOG_ROWS rows, the board's LEDs, the
    # replica) are full; a part that keeps something per line fails this.
    from turtleboard.mirror.app import MirrorApp

    board = FakeBoard(seed=15, lines=FLOOD_HALF)
    board.report = REPORT
    mirror = Mirror(board.path)
    held: list[int] = []

    async def scenario():
        app = MirrorApp(mirror)
        async with app.run_test(size=(80, 24)) as pilot:
            def in_step():  # everything read, the last of it shown
                rep = mirror.replica
                return (rep.in_sync and not rep.awaiting and rep.n == len(board.game.history)
                        and app.logged == rep.n)

            assert await app_wait(pilot, in_step)
            held.append(held_memory())
            for half in range(2):
                board.start_flood(None if half == 0 else FLOOD_HALF)
                assert await app_wait(pilot, board.done.is_set, 600)
                assert await app_wait(pilot, in_step, 120)
                held.append(held_memory())
            await pilot.press("q")

    tracemalloc.start()
    try:
        mirror.start(5)
        asyncio.run(scenario())
    finally:
        tracemalloc.stop()
        mirror.close()
        board.close()
    print("play held (bytes): before %d, after %d lines %+d, after %d more %+d"
          % (held[0], FLOOD_HALF, held[1] - held[0], FLOOD_HALF, held[2] - held[1]), file=sys.stderr)
    assert bounded(held, 256 * 1024), held


class Tail:
    """A terminal that keeps only the last of what was shown."""

    def __init__(self):
        self.text = ""

    def write(self, text: str) -> int:
        self.text = (self.text + text)[-4000:]
        return len(text)

    def flush(self) -> None:
        pass

    def isatty(self) -> bool:
        return True


def test_console_holds_no_more_memory_after_twice_the_flood(monkeypatch):
    # The console (its reader thread, its rich output wrapping at 80
    # columns as in a terminal) on a hostile board's flood, in two halves.
    from turtleboard.console.app import Console

    tail = Tail()
    monkeypatch.setattr(sys, "stdout", tail)
    monkeypatch.setenv("COLUMNS", "80")
    board = FakeBoard(seed=16, lines=FLOOD_HALF)
    board.report = REPORT
    held: list[int] = []
    tracemalloc.start()
    link = Link(board.path)
    try:
        link.open(5)
        con = Console(link)
        reader = threading.Thread(target=con.reader, daemon=True)
        reader.start()

        def quiet():  # everything read and shown: the board's next action too
            tail.text = ""
            last = board.play()
            return wait(lambda: '"text":"%s"' % last["text"] in tail.text, 60)

        assert quiet()
        held.append(held_memory())
        for half in range(2):
            board.start_flood(None if half == 0 else FLOOD_HALF)
            assert wait(board.done.is_set, 600)
            assert quiet()
            held.append(held_memory())
        con.stop.set()
        reader.join(5)
    finally:
        tracemalloc.stop()
        link.close()
        board.close()
    print("console held (bytes): before %d, after %d lines %+d, after %d more %+d"
          % (held[0], FLOOD_HALF, held[1] - held[0], FLOOD_HALF, held[2] - held[1]), file=sys.stderr)
    assert bounded(held, 128 * 1024), held


def _turtleboard(*args):
    return subprocess.Popen([sys.executable, "-m", "turtleboard", *args], cwd=ROOT,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env=dict(os.environ, COLUMNS="120", NO_COLOR="1"))


def test_console_survives_a_hostile_board():
    board = FakeBoard(seed=12, lines=LINES)
    board.report = REPORT
    proc = _turtleboard("console", "--port", board.path, "--linger", "2")
    got = []

    def read():
        while True:
            chunk = proc.stdout.read1(65536)
            if not chunk:
                return
            got.append(chunk)

    def shown():
        return b"".join(got).decode("utf-8", "replace")

    reader = threading.Thread(target=read, daemon=True)
    reader.start()  # (a console blocked on a full pipe would stop reading the board)
    try:
        assert wait(lambda: "hello" in board.received)
        board.start_flood()
        assert wait(board.done.is_set, 300)
        last = board.play()
        assert wait(lambda: '"text":"%s"' % last["text"] in shown())  # the reader was alive to the end
        # the hostile board said other reports too: ask for its own again
        told = shown().count("(type `ack` once it is seen)")
        proc.stdin.write(b"stats\nhello\n")
        proc.stdin.flush()
        assert wait(lambda: shown().count("(type `ack` once it is seen)") > told)
        proc.stdin.write(b"ack\n")
        proc.stdin.close()
        proc.wait(120)
        reader.join(10)
    finally:
        if proc.poll() is None:
            proc.kill()
        board.close()
    out, err = shown(), proc.stderr.read().decode("utf-8", "replace")
    assert proc.returncode == 0, err[-2000:]
    assert "Traceback" not in err and "Traceback" not in out
    assert "damaged line dropped (a frame the host cannot use:" in out
    # said at most once a second ("and N more like it" when more come later),
    # every one counted: `stats` says how many
    import re

    counted = re.search(r"frames in \d+, out \d+, damaged (\d+)", out)
    assert counted and int(counted.group(1)) > 100, out[-2000:]
    assert "the board's game log was damaged:" in out
    assert board.received[-1] == "ack" and board.report is None


def test_record_export_survives_a_hostile_board():
    board = FakeBoard(seed=13, lines=LINES)
    board.report = REPORT
    proc = _turtleboard("record", "export", "--port", board.path)
    try:
        assert wait(lambda: "hello" in board.received, timeout=30, step=0.002)
        board.start_flood()  # the sync's answer comes in among the flood
        out, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
        board.close()
    out, err = out.decode(), err.decode()
    assert "Traceback" not in err, err[-2000:]
    # the right record once a sync got through, else a one-line error saying so
    assert board.sent > 0
    if proc.returncode == 0:
        assert out == write_record(board.game)
        assert "the board's game log was damaged: " + REPORT in err
    else:
        # (or: the flood named another game than the hello: nothing written)
        assert "did not finish a sync" in err or "nothing written" in err, err
        assert len(err.strip().splitlines()) == 1, err
    assert "Traceback" not in out


def test_unicode_digits_never_pass_for_a_sequence_number():
    for digits in UNICODE_DIGITS + ["12a", "+1", " 1", "-1", "0x1", "123456"]:
        line = seal(digits, "ok", "{}")
        try:
            frames.decode(line)
        except frames.FrameError:
            continue
        raise AssertionError(digits)
    assert frames.decode(seal("00042", "ok", "{}"))[0] == 42


def test_spoiled_payloads_reach_nothing_but_the_schema():
    # Through the link: a spoiled frame is a Damaged event, never a Frame
    # with a field of the wrong type.
    r = random.Random(8)
    game = new_game("mahe", 2)
    link = Link("/nonexistent/turtleboard-hostile")
    for _ in range(2000):
        kind = r.choice(list(SCHEMA))
        payload = spoil(kind, good_payload(kind, r, game), r)
        for ev in link._decode_lines([frames.encode(1, kind, payload)] if _fits(kind, payload) else []):
            if isinstance(ev, Frame):
                assert problem(ev.kind, ev.payload) is None


def _fits(kind, payload):
    try:
        frames.encode(1, kind, payload)
        return True
    except (frames.FrameError, ValueError, TypeError, RecursionError):  # (inf and nan: no JSON here)
        return False


def test_a_sync_answer_that_makes_no_game_here_is_asked_again_less_and_less_often():
    # (after a flood, a hostile `state` may come before the board's own log)
    mirror = Mirror("/nonexistent/turtleboard-hostile")
    rep = mirror.replica
    g = new_game("mahe", 2)
    for k in range(1, 4):
        rep.sync_sent()
        for f in (Frame(1, "state", {"game": "race", "players": 2, "n": 0, "hash": None}),
                  Frame(2, "log", {"from": 0, "actions": []}),
                  Frame(3, "synced", {"n": 0, "hash": "%08x" % g.state_hash()})):
            notes = rep.handle(f)
        assert not rep.in_sync and rep.needs_sync and "syncing again" in notes[0]
        assert rep.failed == k and mirror.sync_interval() == 0.2 * 2 ** k
    rep.sync_sent()
    for f in (Frame(1, "state", {"game": "mahe", "players": 2, "n": 0, "hash": None}),
              Frame(2, "synced", {"n": 0, "hash": "%08x" % g.state_hash()})):
        notes = rep.handle(f)
    assert rep.in_sync and rep.failed == 0 and mirror.sync_interval() == 0.2


class OtherGameBoard(FakeBoard):
    """A board whose answer to `sync` is not the game its hello announced,
    or that announces another game while the export runs."""

    def __init__(self, trick, **kw):
        super().__init__(lines=0, **kw)
        self.trick = trick
        self.other = new_game("mahe" if trick == "answer" else "race", 2)

    def sync_answer(self):
        g, real = self.other, self.game
        if self.trick == "answer":  # another game of the same rules: state, log and synced
            self.game = g
            try:
                return super().sync_answer()
            finally:
                self.game = real
        if self.trick == "hello":  # another game announced in among a true answer
            other = self.frame("hello", dict(self.hello(), game=g.name, n=0, hash=hash_text(g.state_hash())))
            return [other] + super().sync_answer()
        return super().sync_answer()


def test_record_export_writes_the_game_the_board_announced_or_refuses():
    from turtleboard.commands.record import export_record
    from turtleboard.errors import UserError

    board = OtherGameBoard(None)
    try:
        assert export_record(board.path) == write_record(board.game)
    finally:
        board.close()
    for trick, said in [("answer", "is not the game it announced when connected (mahe at action 6"),
                        ("hello", "announced another game during the export (mahe when connected, then race)")]:
        board = OtherGameBoard(trick)
        try:
            export_record(board.path)
            raise AssertionError(f"{trick}: a record of a game the board did not announce")
        except UserError as e:
            assert said in str(e) and "nothing written" in str(e) and "\n" not in str(e), str(e)
        finally:
            board.close()


class HalfAnswers(FakeBoard):
    """A quiet board whose next sync goes unanswered (`swallow`), as when
    its answer is lost or a flood ends in the middle of one."""

    def __init__(self, **kw):
        super().__init__(lines=0, **kw)
        self.swallow = 0

    def _answer(self, seq, kind, payload):
        if kind == "sync" and self.swallow:
            self.swallow -= 1
            self.received.append(kind)
            return
        super()._answer(seq, kind, payload)


def test_a_sync_answered_by_halves_or_not_at_all_is_asked_again():
    # The million-line flood left the mirror waiting for good for the rest of
    # an answer: a `state` that came alone, a log chunk out of place, a sync
    # whose answer never came. Each is given up and the sync asked again.
    board = HalfAnswers()
    mirror = Mirror(board.path)
    rep = mirror.replica

    def in_step(n):
        end = time.monotonic() + 30
        while time.monotonic() < end:
            mirror.poll(0.05)
            if rep.in_sync and not rep.awaiting and rep.n == n:
                return True
        return False

    ways = {
        "a state alone": lambda: board.sync_answer()[:1],
        "a state and a log chunk out of place":
            lambda: board.sync_answer()[:1] + [board.frame("log", {"from": 3, "actions": ["d1"]})],
        "a sync unanswered": lambda: [b"~TB 9 status {} *0000\n"],  # (a damaged line: the mirror resyncs)
    }
    try:
        mirror.start(5)
        assert in_step(6)
        for way, lines in ways.items():
            board.swallow = 1
            board.write(b"".join(lines()))
            assert in_step(len(board.game.history)), (way, rep.in_sync, rep.awaiting, rep.needs_sync)
            last = board.play()
            assert in_step(last["n"]), way
    finally:
        mirror.close()
        board.close()
    assert board.received.count("sync") >= 1 + 2 * len(ways)


def test_a_board_with_a_new_report_in_every_hello_gets_at_most_one_ack_a_second():
    # 300 hellos, each with another game log report, as fast as the pty takes
    # them: the host notes and acknowledges at most one a second (not one
    # each), and the board's own report, repeated after, is still acknowledged.
    board = FakeBoard(seed=14, lines=0)
    board.report = REPORT
    mirror = Mirror(board.path)
    notes = []
    try:
        mirror.start(5)
        # (the report of its first hello, or of the sync's state: acknowledged)
        assert wait(lambda: mirror.poll(0.05) is not None and board.report is None)
        board.report = "line 9 of the game log is damaged; 8 actions are restored"
        start, before = time.monotonic(), mirror.link.frames_in
        hellos = b"".join(board.frame("hello", dict(board.hello(), log="report %d: line %d is damaged" % (k, k)))
                          for k in range(300))
        threading.Thread(target=board.write, args=(hellos,), daemon=True).start()  # (read meanwhile)
        end = time.monotonic() + 60
        while time.monotonic() < end and mirror.link.frames_in < before + 300:
            notes += [text for kind, text in mirror.poll(0.05) if kind == "note"]
        elapsed = time.monotonic() - start
        assert mirror.link.frames_in >= before + 300
        acks = board.received.count("ack") - 1
        assert acks <= elapsed / 1.0 + 1, (acks, elapsed)  # (docs/protocol.md: one a second; not one each)
        said = [n for n in notes if n.startswith("the board's game log was damaged: ")]
        assert len(said) == acks, said
        # the board says its own report again (its next hello): acknowledged
        end = time.monotonic() + 30
        while board.report is not None and time.monotonic() < end:
            board.write(board.frame("hello", board.hello()))
            for _ in range(10):
                notes += [text for kind, text in mirror.poll(0.05) if kind == "note"]
        assert board.report is None
        last = [n for n in notes if n.startswith("the board's game log was damaged: line 9 ")]
        assert len(last) == 1 and "other reports came since the last one shown" in last[0], notes[-3:]
    finally:
        mirror.close()
        board.close()
