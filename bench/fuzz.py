"""The long runs of the robustness fuzzers, with their figures.

    python bench/fuzz.py [--host-lines 1000000] [--device-lines 30000]
                         [--kills 60] [--games 20] [--quick]
    python bench/fuzz.py --hostile [--hostile-lines 1000000] [--paths play,console,export]

- hostile (host mode): a hostile fake board on a real pty (tests/host/hostile.py:
  valid CRCs with hostile JSON in every field of every kind, Unicode digits,
  huge lists and strings, deep nesting, unknown kinds) streams its lines into
  the real host paths: `play` (the textual app, headless), `console` (the
  command, a process of its own) and `record export` (its export_record, run
  again and again, a flood during each sync); per path the lines, the time,
  the crashes, whether the reader was alive at the end and back in step, and
  the memory over the run: RSS, and for `play` (in this process) the size
  tracemalloc traces (--no-traced: RSS alone, faster), each with the lines
  read by then. Figures in bench/results/fuzz-host.json.

- host: seeded lines into the host's frame parser, link and replica
  (tests/host/test_host_fuzz.py), under CPython;
- device: seeded lines into the device's frame reader and command dispatcher
  (tests/firmware/test_ctl_fuzz.py), under CPython and the MicroPython unix port;
- log: every truncation and all 255 byte flips at every byte of a real game
  log (tests/firmware/test_ctl_log_fuzz.py) under CPython, three flips a byte
  under MicroPython;
- kills: kill -9 of a MicroPython game-log writer at random moments
  (tests/firmware/test_hw_gamelog_kill.py);
- noise: whole games on noisy, bouncing reference boards in simulated time
  (tests/firmware/noisy_table.py): actions, wrong commits, stalls, prompts
  cancelled and moves taken back by noise, per rule set and noise level.

Every run must pass; the figures go to bench/results/fuzz.json.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import threading
import time
import tracemalloc
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "tests" / "firmware")]

import turtleboard  # noqa: E402,F401  (puts the device packages on the path)
from turtleboard.sim.mpy import FIRMWARE, run_micropython  # noqa: E402
from turtles.record import write_record  # noqa: E402


def pytest(args, env):
    start = time.monotonic()
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *args],
                          cwd=ROOT, env=dict(os.environ, **env), capture_output=True, text=True)
    if proc.returncode:
        sys.exit("FAILED: pytest %s\n%s" % (" ".join(args), proc.stdout[-3000:]))
    return round(time.monotonic() - start, 1)


def micropython(module, env):
    start = time.monotonic()
    old = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    try:
        proc = run_micropython([str(ROOT / "tests" / "engine" / "mprun.py"), module],
                               [FIRMWARE, ROOT / "tests" / "firmware"], timeout=7200, cwd=ROOT)
    finally:
        for k, v in old.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    if proc.returncode or " 0 failed" not in proc.stdout:
        sys.exit("FAILED under MicroPython: %s\n%s%s" % (module, proc.stdout[-3000:], proc.stderr[-2000:]))
    return round(time.monotonic() - start, 1)


def noise_games(games, actions):
    from noisy_table import Table

    out = []
    for noise in (2000, 2500, 3000):
        for bounce in (False, True):
            for game in ("tortuga", "mahe", "race"):
                row = {"game": game, "noise": noise, "bounce": bounce, "games": 0, "actions": 0,
                       "wrong": 0, "stalls": 0, "cancelled": 0, "takebacks": 0}
                for seed in range(1, games + 1):
                    table = Table(game, noise=noise, bounce=bounce, seed=seed)
                    table.play(actions)
                    r = table.report()
                    row["games"] += 1
                    for k in ("actions", "wrong", "stalls", "cancelled", "takebacks"):
                        row[k] += r[k]
                print("  noise %(noise)d bounce %(bounce)d %(game)-8s %(games)3d games %(actions)5d "
                      "actions: %(wrong)d wrong, %(stalls)d stalls, %(cancelled)d cancelled, "
                      "%(takebacks)d takebacks" % row, flush=True)
                out.append(row)
    return out


def rss_kb(pid="self"):
    with open("/proc/%s/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def growth(samples):
    # RSS at the end against the RSS once a tenth of the lines went through
    # (the caches and the log panes full by then): what grows with the lines.
    if len(samples) < 3:
        return 0
    return samples[-1][1] - samples[max(1, len(samples) // 10)][1]


def traced_kb():
    return tracemalloc.get_traced_memory()[0] // 1024 if tracemalloc.is_tracing() else None


def memory(samples):
    """The samples (lines, RSS KB[, traced KB]) as the results keep them."""
    out = {"lines_at": [s[0] for s in samples], "rss_kb": [s[1] for s in samples],
           "rss_growth_kb": growth([s[:2] for s in samples])}
    if samples and len(samples[0]) > 2 and samples[0][2] is not None:
        out["traced_kb"] = [s[2] for s in samples]
        out["traced_growth_kb"] = growth([(s[0], s[2]) for s in samples])
    return out


def hostile_play(lines, seed):
    import asyncio

    from hostile import FakeBoard
    from textual.widgets import RichLog

    from turtleboard.connection.replica import Mirror
    from turtleboard.mirror.app import MirrorApp

    board = FakeBoard(seed=seed, lines=lines)
    board.report = "line 52 (a snapshot, passed over) of the game log is damaged; 60 actions are restored"
    mirror = Mirror(board.path)
    res = {"path": "play", "lines": lines}
    samples = []

    async def scenario():
        app = MirrorApp(mirror)
        async with app.run_test(size=(120, 40)) as pilot:
            start = time.monotonic()
            board.start_flood()
            step = max(1, lines // 50)
            while not board.done.is_set():
                await pilot.pause(0.5)
                if board.sent // step > len(samples):
                    samples.append((board.sent, rss_kb(), traced_kb()))
            res["seconds"] = round(time.monotonic() - start, 1)
            for _ in range(600):
                if mirror.replica.in_sync and not mirror.replica.awaiting:
                    break
                await pilot.pause(0.05)
            last = board.play()
            want = "%d. %s" % (last["n"], last["text"])

            def shown():
                # among the newest lines only: the flood's own actions
                # ("7. d5", "17. d5") are further up the pane
                return any(line.text.startswith(want + " ") for line in app.query_one("#log", RichLog).lines[-20:])

            def in_step():
                return mirror.replica.in_sync and not mirror.replica.awaiting and mirror.replica.n == last["n"]

            for _ in range(600):
                if in_step() and shown():
                    break
                await pilot.pause(0.05)
            res["back_in_step"] = in_step()
            res["reader_alive"] = any(t.name == "mirror-pump" and t.is_alive() for t in threading.enumerate())
            res["last_action_shown"] = shown()
            res["log_pane_lines"] = len(app.query_one("#log", RichLog).lines)
            await pilot.press("q")

    try:
        mirror.start(5)
        asyncio.run(scenario())
        res["crashes"] = 0
    except Exception as e:  # noqa: BLE001 - what the run is looking for
        res["crashes"] = 1
        res["crash"] = repr(e)[:300]
    finally:
        mirror.close()
        board.close()
    link = mirror.link
    res.update(frames_in=link.frames_in, damaged=link.damaged, unusable=link.unusable,
               overlong=link.overlong, gaps=link.gaps, resyncs=mirror.replica.resyncs,
               backlog=len(link.backlog), acknowledged="ack" in board.received)
    res.update(memory(samples))
    return res


def hostile_console(lines, seed):
    from hostile import FakeBoard

    board = FakeBoard(seed=seed, lines=lines)
    proc = subprocess.Popen([sys.executable, "-m", "turtleboard", "console", "--port", board.path,
                             "--linger", "2"], cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=dict(os.environ, COLUMNS="120", NO_COLOR="1"))
    got = []
    tail = [b""]

    def read():
        while True:
            chunk = proc.stdout.read1(65536)
            if not chunk:
                return
            got.append(len(chunk))
            tail[0] = (tail[0] + chunk)[-20000:]

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    res = {"path": "console", "lines": lines}
    samples = []
    try:
        deadline = time.monotonic() + 30
        while "hello" not in board.received and time.monotonic() < deadline:
            time.sleep(0.05)
        start = time.monotonic()
        board.start_flood()
        step = max(1, lines // 50)
        while not board.done.wait(0.5):
            if board.sent // step > len(samples):
                samples.append((board.sent, rss_kb(proc.pid)))
        res["seconds"] = round(time.monotonic() - start, 1)
        last = board.play()
        want = ('"text":"%s"' % last["text"]).encode()
        deadline = time.monotonic() + 60
        while want not in tail[0] and time.monotonic() < deadline:
            time.sleep(0.05)
        res["reader_alive"] = res["last_action_shown"] = want in tail[0]
        proc.stdin.write(b"stats\n")
        proc.stdin.close()
        proc.wait(120)
        reader.join(10)
        err = proc.stderr.read().decode("utf-8", "replace")
        res["crashes"] = int(proc.returncode != 0 or "Traceback" in err)
        if res["crashes"]:
            res["crash"] = err[-300:]
        res["stats"] = [line for line in tail[0].decode("utf-8", "replace").splitlines()
                        if line.startswith("frames in")][-1:]
    finally:
        if proc.poll() is None:
            proc.kill()
        board.close()
    res["output_bytes"] = sum(got)
    res.update(memory(samples))
    return res


def hostile_export(lines, seed, per_run=2000):
    from hostile import FakeBoard

    from turtleboard.commands.record import export_record
    from turtleboard.errors import UserError

    res = {"path": "export", "lines": 0, "runs": 0, "records": 0, "said_why": 0, "refused": 0, "crashes": 0,
           "other_games": 0}
    samples = []
    start = time.monotonic()
    while res["lines"] < lines:
        board = FakeBoard(seed=seed + res["runs"], lines=min(per_run, lines - res["lines"]))

        board.start_flood()  # from the start: the sync's answers come in among the flood
        try:
            text = export_record(board.path)
            if text == write_record(board.game):
                res["records"] += 1
            else:  # a record of a game the board did not hold: must never happen
                res["other_games"] += 1
                res["other_game"] = text.splitlines()[:3]
        except UserError as e:
            res["said_why"] += 1  # a one-line error: no sync got through in time, or
            res["refused"] += "nothing written" in str(e)  # the flood named another game
        except Exception as e:  # noqa: BLE001 - what the run is looking for
            res["crashes"] += 1
            res["crash"] = repr(e)[:300]
        finally:
            board.close()
        res["lines"] += max(1, board.sent)
        res["runs"] += 1
        samples.append((res["lines"], rss_kb()))
    res["seconds"] = round(time.monotonic() - start, 1)
    res.update(memory(samples[:: max(1, len(samples) // 50)]))
    res["rss_growth_kb"] = growth(samples)
    return res


def hostile(a):
    sys.path[:0] = [str(ROOT / "tests" / "host")]
    out = ROOT / "bench" / "results" / "fuzz-host.json"
    res = json.loads(out.read_text()) if out.exists() else {}
    runs = {"play": hostile_play, "console": hostile_console, "export": hostile_export}
    for path in a.paths.split(","):
        print("hostile %s: %d lines" % (path, a.hostile_lines), flush=True)
        if a.traced and path == "play":
            tracemalloc.start()
        try:
            row = runs[path](a.hostile_lines, 1)
        finally:
            tracemalloc.stop()
        print("  " + json.dumps({k: v for k, v in row.items() if not k.endswith(("_kb", "_at"))}), flush=True)
        res[path] = row
        out.write_text(json.dumps(res, indent=1) + "\n")
    bad = [p for p, row in res.items() if p in a.paths.split(",") and (
           row.get("crashes") or row.get("reader_alive") is False or row.get("back_in_step") is False)]
    if bad:
        sys.exit("FAILED: %s" % ", ".join(bad))
    print("figures in %s" % out.relative_to(ROOT))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--host-lines", type=int, default=1000000)
    ap.add_argument("--device-lines", type=int, default=30000)
    ap.add_argument("--kills", type=int, default=60)
    ap.add_argument("--games", type=int, default=20, help="per rule set, noise level and bounce")
    ap.add_argument("--actions", type=int, default=60, help="per game")
    ap.add_argument("--quick", action="store_true", help="a short run of everything")
    ap.add_argument("--hostile", action="store_true", help="the hostile board against the real host paths only")
    ap.add_argument("--hostile-lines", type=int, default=1000000, help="per host path")
    ap.add_argument("--paths", default="play,console,export")
    ap.add_argument("--no-traced", dest="traced", action="store_false",
                    help="play: RSS alone (tracemalloc makes the flood slower)")
    ap.add_argument("--noise-only", action="store_true",
                    help="play the noisy games again only (the other figures are kept)")
    a = ap.parse_args()
    if a.hostile:
        return hostile(a)
    out = ROOT / "bench" / "results" / ("fuzz-quick.json" if a.quick else "fuzz.json")
    if a.noise_only:
        res = json.loads(out.read_text()) if out.exists() else {}
        return finish(res, a, out)
    if a.quick:
        a.host_lines, a.device_lines, a.kills, a.games = 50000, 3000, 10, 2
    res = {"host_lines": a.host_lines, "device_lines_cpython": a.device_lines,
           "device_lines_micropython": a.device_lines // 10}
    print("host: %d lines into the parser, link and replica" % a.host_lines, flush=True)
    res["host_s"] = pytest(["tests/host/test_host_fuzz.py"], {"TB_FUZZ_LINES": str(a.host_lines)})
    print("device: %d lines (CPython), %d (MicroPython)" % (a.device_lines, a.device_lines // 10),
          flush=True)
    res["device_cpython_s"] = pytest(["tests/firmware/test_ctl_fuzz.py"],
                                     {"TB_FUZZ_LINES": str(a.device_lines)})
    res["device_micropython_s"] = micropython("test_ctl_fuzz", {"TB_FUZZ_LINES": str(a.device_lines // 10)})
    print("log: every truncation and all 255 flips of every byte", flush=True)
    res["log_cpython_s"] = pytest(["tests/firmware/test_ctl_log_fuzz.py"], {"TB_LOG_FLIPS": "all"})
    # (three flips a byte under MicroPython: all 255 take it an hour)
    res["log_micropython_s"] = micropython("test_ctl_log_fuzz", {"TB_LOG_FLIPS": "three"})
    print("kills: %d of an appending and %d of a game-starting writer" % (a.kills, a.kills), flush=True)
    res["kills"] = 2 * a.kills
    res["kills_s"] = pytest(["tests/firmware/test_hw_gamelog_kill.py"], {"TB_KILLS": str(a.kills)})
    finish(res, a, out)


def finish(res, a, out):
    print("noise: %d games per row, up to %d actions each" % (a.games, a.actions), flush=True)
    res["noise"] = noise_games(a.games, a.actions)
    res["noise_wrong_commits"] = sum(r["wrong"] for r in res["noise"])
    res["noise_games"] = sum(r["games"] for r in res["noise"])
    out.write_text(json.dumps(res, indent=1) + "\n")
    print("all passed; figures in %s" % out.relative_to(ROOT))


if __name__ == "__main__":
    main()
