"""Every Pico figure at every pace, paced in EMULATED time (issue 36): seeded
legal Tortuga moves made through the sensors of an emulated RP2040, each
lift and put scheduled by the emulator itself at an emulated instant (its
control socket's `plan`: so the host's load changes nothing), every `action`
frame checked against the engine, the flash chip's time charged.

Paces (the pace each move actually got is recorded with it):
  slow    a move every 2 s (lift 1.85 s after the last `action` frame, put 150 ms later)
  human   lift 0.35-1.3 s after the last `action` frame, put 0.1-0.25 s later
  fast    chains of 2-5 moves: the next lift 30-80 ms after the last `action`
          frame, put down 40-120 ms after the lift (a chain begins 0.6-1.2 s
          after the one before)
  flash   each lift lands inside the next flash operation that begins 15 ms
          or more after the last put (the last move's commit writing its log
          line: an erase or a page program, at a random point of the chip's busy
          time), put 40-120 ms later

Per pace and image: sensor change (the put) -> `action` frame, the cycle
that committed (the control cycle holding the frame, from the scans of
channel 0), quiet cycles (>= 0.5 s after a frame, before the next lift, no
flash operation in them), the flash operations (erases, programs) and which
fell between a put and its frame.

Needs the harness of ../shared/pico-emu set up (bench/pico_emu.py's
docstring: EMU_ROOT, VENV_BIN, FW_STOCK, FW_ROMFS), with the `plan`,
`steps` and `flashops` control commands added to its emu/board-emu.mjs:
bench/harness/board-emu.patch (`patch $EMU_ROOT/emu/board-emu.mjs
bench/harness/board-emu.patch`, which also adds the heap benches' `mem`,
`gcwatch` and `gcseen`; bench/pico_emu_cuts.py uses them too). The flash chip's time is charged (`--flash-timing` typ).

    python bench/pico_emu_pace.py [MOVES] [stock|romfs ...] [--paces slow,human,fast,flash] [--seed S]
        MOVES: moves a pace (100), or per pace: slow=30,human=50,fast=100,flash=100

Results: bench/results/pico-emu.json, "paced": {image: {pace: figures}},
each with the image, the flash timing and the firmware commit. With
EMU_FLASH_TIMING=max in the environment (the harness's `--flash-timing max`,
the datasheet's worst case: 400 ms a sector erase, 3 ms a page program) under
"paced_flash_max".
"""

import json
import os
import random
import re
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
RESULTS = HERE / "results" / "pico-emu.json"
PACES = ("slow", "human", "fast", "flash")
CHUNK = 12  # moves a plan (the emulator plays them alone; the bench checks after)


def ms(ns):
    return ns / 1e6


def pace_plan(pace, rnd, moves):
    # -> steps: a lift and a put for each (move, lift cells, put cells),
    # each step's trigger and delay drawn for the pace. The plan's first
    # lift counts from when it is given (the last frame went out a while
    # ago); a fast plan is whole chains of 2-5 moves.
    steps = []
    chain_left = 0
    for i, (text, lift, put) in enumerate(moves):
        if pace == "slow":
            on, d1, d2 = "action", 1850, 150
        elif pace == "human":
            on, d1, d2 = "action", rnd.uniform(350, 1300), rnd.uniform(100, 250)
        elif pace == "fast":
            if chain_left <= 0:
                chain_left = rnd.randint(2, 5)
                on, d1 = "action", rnd.uniform(600, 1200)
            else:
                on, d1 = "action", rnd.uniform(30, 80)
            chain_left -= 1
            d2 = rnd.uniform(40, 120)
        else:  # flash
            on, d1, d2 = "flash", 0, rnd.uniform(40, 120)
        if i == 0 and on == "action":
            on, d1 = "prev", min(d1, 600)
        lift_step = {"on": on, "delay_ns": int(d1 * 1e6), "sensors": lift, "tag": "lift %s" % text}
        if on == "flash":
            # inside the next flash operation that begins 15 ms or more after the last put:
            # the last move's own write (a filesystem's is an erase and a few programs), not
            # the end of the one before it
            lift_step.update(kind="any", frac=rnd.uniform(0.05, 0.95), timeout_ns=int(4e9), after_ns=int(15e6))
        steps.append(lift_step)
        steps.append({"on": "prev", "delay_ns": int(d2 * 1e6), "sensors": put, "tag": "put %s" % text})
    return steps


def chunk_size(pace, rnd, left):
    # moves in the next plan: whole chains for the fast pace
    if pace != "fast":
        return min(CHUNK, left)
    n = 0
    while True:
        k = rnd.randint(2, 5)
        if n + k > CHUNK or n + k > left:
            return max(n, min(left, k))
        n += k


def summary(values):
    if not values:
        return None
    s = sorted(values)
    k = max(0, min(len(s) - 1, -(-99 * len(s) // 100) - 1))
    return {"n": len(s), "median": round(s[len(s) // 2], 2), "p99": round(s[k], 2),
            "max": round(s[-1], 2), "min": round(s[0], 2)}


def play_pace(ns, pace, n_moves, rnd):
    # ns: the harness's play module (World, Frames, Game, ...), set up on an emulator
    play, ctl, fr, w, gm = ns["play"], ns["ctl"], ns["fr"], ns["w"], ns["gm"]
    new_game(ns)
    rows = []
    t_begin = ctl.cmd(stats=1)["t"]
    flash0 = ctl.cmd(stats=1)["flash"]
    ch0 = []
    last_action_t = None
    while len(rows) < n_moves:
        chosen = chain(play, gm.g, chunk_size(pace, rnd, n_moves - len(rows)), rnd)
        if not chosen:
            new_game(ns)
            continue
        steps = pace_plan(pace, rnd, [(t, lft, p) for t, lft, p, _ in chosen])
        k = fr.mark()
        ctl.cmd(cycles=1, reset=1)
        ctl.cmd(plan=steps)
        deadline = time.time() + 60 + 40 * len(chosen)
        while time.time() < deadline:
            got = fr.since(k, "action")
            if len(got) >= len(chosen):
                break
            time.sleep(0.2)
        fired = ctl.cmd(steps=1)["fired"]
        acts = fr.since(k, "action")
        cyc = ctl.cmd(cycles=1, raw=1)
        ch0 += cyc.get("ch0_ns") or []
        ops = ctl.cmd(flashops=t_begin)["flashops"]
        puts = [s for s in fired if s["tag"].startswith("put")]
        lifts = [s for s in fired if s["tag"].startswith("lift")]
        for j, (text, _, _, g_after) in enumerate(chosen):
            if j >= len(puts) or j >= len(acts):
                rows.append({"move": text, "error": "no action frame"})
                break
            a = acts[j]
            t_put, t_lift = puts[j]["t"], lifts[j]["t"]
            ok = (a["p"]["text"] == text and a["p"]["n"] == len(g_after.history)
                  and a["p"]["hash"] == "%08x" % g_after.state_hash())
            between = [o for o in ops if t_put <= o[0] <= a["t"] * 1e6]
            rows.append({
                "move": text, "ok": ok, "latency_ms": round(a["t"] - ms(t_put), 3),
                "planned_lift_ms": round(ms(steps[2 * j]["delay_ns"]), 1),
                "lift_after_action_ms": None if j == 0 else round(ms(t_lift) - last_action_t, 1),
                "put_after_lift_ms": round(ms(t_put - t_lift), 1), "lift_tag": lifts[j]["tag"],
                "lift_in_flash_op": next((o[1] for o in ops if o[0] <= t_lift < o[0] + o[2]), None),
                "flash_between_put_and_action": [o[1] for o in between], "action_t": a["t"],
                "lift_t_ns": t_lift})
            last_action_t = a["t"]
            gm.g = g_after
        if any("error" in r or not r["ok"] for r in rows[-len(chosen):]):
            break
        w.state.update(play.img_dict(gm.g))
        time.sleep(0.5)
    stats = ctl.cmd(stats=1)
    flash = {k: stats["flash"][k] - flash0[k] for k in ("erase", "program")}
    return rows, ch0, ctl.cmd(flashops=t_begin)["flashops"], flash


def figures(rows, ch0, ops):
    good = [r for r in rows if r.get("ok")]
    frames = sorted(r["action_t"] * 1e6 for r in good)
    commit = []
    for t in frames:
        for a, b in zip(ch0, ch0[1:]):
            if a <= t < b:
                commit.append(ms(b - a))
                break
    quiet = []
    nexts = frames[1:] + [float("inf")]
    for a, b in zip(ch0, ch0[1:]):
        # 0.5 s or more after a frame, before the next frame's move began (~0.3 s before it at most)
        prev = [f for f in frames if f <= a]
        if not prev or a - prev[-1] < 5e8:
            continue
        nxt = min(x for x in nexts if x > a) if any(x > a for x in nexts) else float("inf")
        if b > nxt - 3.5e8:
            continue
        if any(a <= o[0] < b for o in ops):
            continue
        quiet.append(ms(b - a))
    lat = [r["latency_ms"] for r in good]
    worst = sorted(good, key=lambda r: -r["latency_ms"])[:3]
    for r in worst:
        # the long cycles (2 ms or more) from 100 ms before the lift to the
        # frame: [start after the lift, length] (ms)
        t0 = r["lift_t_ns"]
        r["long_cycles_from_lift_ms"] = [
            [round(ms(a - t0), 1), round(ms(b - a), 1)] for a, b in zip(ch0, ch0[1:])
            if t0 - 1e8 <= a <= r["action_t"] * 1e6 and b - a >= 2e6]
    for r in good:
        r.pop("lift_t_ns", None)
    # (in fast chains: the lifts within a chain, not the pauses between chains)
    lift_gap = [r["lift_after_action_ms"] for r in good if r["lift_after_action_ms"] is not None
                and (r["planned_lift_ms"] < 200 or r["planned_lift_ms"] > 300)]
    return {
        "moves": len(rows), "checked_ok": len(good),
        "sensor_to_action_ms": summary(lat),
        "committing_cycle_ms": summary(commit),
        "quiet_cycle_ms": summary(quiet),
        "pace_got": {"lift_after_last_action_ms": summary(lift_gap),
                     "put_after_lift_ms": summary([r["put_after_lift_ms"] for r in good]),
                     "lifts_inside_a_flash_operation": {
                         k: sum(1 for r in good if r["lift_in_flash_op"] == k) for k in ("erase", "program")},
                     "lift_steps_that_timed_out": sum(1 for r in good if "timeout" in r["lift_tag"])},
        "flash_ops_between_a_put_and_its_action": {
            k: sum(r["flash_between_put_and_action"].count(k) for r in good) for k in ("erase", "program")},
        "worst_moves": worst,
    }


# ---- the harness, as play30.py uses it -------------------------------------

def safe_moves(play, g):
    # legal moves that need no prompt, one board image each, losing no turtle
    texts = [t for t in g.legal_texts() if t[0] != "="]
    imgs = {}
    for t in texts:
        g2 = g.copy()
        g2.apply_text(t)
        imgs.setdefault(tuple(g2.image()), []).append(t)
    out = []
    for t in texts:
        g2 = g.copy()
        g2.apply_text(t)
        if len(imgs[tuple(g2.image())]) != 1 or any(x[0] == "=" for x in g2.legal_texts()):
            continue
        before, after = play.img_dict(g), play.img_dict(g2)
        if sum(1 for v in after.values() if v) < sum(1 for v in before.values() if v):
            continue
        out.append(t)
    return out


def chain(play, g, n, rnd):
    # n seeded moves on from game g (fewer where the game runs out of safe
    # ones): [(text, the lift's readings, the put's readings, the game after)]
    out = []
    g2 = g.copy()
    for _ in range(n):
        mv = [t for t in safe_moves(play, g2) if not ends(g2, t)]
        if not mv:
            break
        text = rnd.choice(mv)
        before = play.img_dict(g2)
        g2.apply_text(text)
        after = play.img_dict(g2)
        src, dst = re.split(r"[-x]", text)
        put = {dst: after[dst]}
        put.update({c: after[c] for c in play.CELLS if c not in (src, dst) and before[c] != after[c]})
        out.append((text, channels(play, {src: 0}), channels(play, put), g2.copy()))
    return out


def project_env(what):
    # The environment for the harness, whose scripts read the engine and the
    # board files from PROJECT: a folder of links to this checkout's.
    project = Path("/tmp/tb-%s-%d" % (what, os.getpid()))
    (project / "src" / "turtleboard").mkdir(parents=True, exist_ok=True)
    for link, target in ((project / "firmware", REPO / "firmware"),
                         (project / "src" / "turtleboard" / "boards", REPO / "boards")):
        if not link.exists():
            link.symlink_to(target)
    env = dict(os.environ, PROJECT=str(project))
    os.environ.update(env)
    return env


def ends(g, t):
    g2 = g.copy()
    g2.apply_text(t)
    return g2.is_over()


def channels(play, cells):
    # {cell: state} -> {channel: reading} as the emulated multiplexers give them
    out = {}
    for c, v in cells.items():
        ch = play.BOARD.sensor_of[play.CELLS.index(c)]
        out[str(ch)] = play.reading(ch, v)
    return out


def new_game(ns):
    play, fr, w, host, gm = ns["play"], ns["fr"], ns["w"], ns["host"], ns["gm"]
    k = fr.mark()
    host.send("new tortuga 2")
    fr.wait(lambda f: f["kind"] == "ok", 120, since=k)
    gm.g = play.engine()
    k = fr.mark()
    w.set(**play.img_dict(gm.g))
    gm.wait_status(lambda e: e == {}, k, 120)


def harness(name):
    # The harness's play.py (../shared/pico-emu/scripts), for the emulator `name`.
    scripts = os.path.join(os.environ["EMU_ROOT"], "scripts")
    sys.argv = [sys.argv[0], name]  # play.py reads the emulator's name from argv
    if scripts not in sys.path:
        sys.path.insert(0, scripts)
    import play

    return play


def attach(name):
    # The host's side of a running emulator: its control socket, its frames,
    # the pieces, a `turtleboard console`, the engine's game.
    play = harness(name)
    d = "%s/work/%s" % (play.ROOT, name)
    ctl = play.Ctl(d + "/ctl.sock")
    fr = play.Frames()
    w = play.World(ctl)
    host = play.Host(d + "/tty", d + "/console-pace.log")
    fr.wait(lambda f: f["kind"] == "hello", 120)
    gm = play.Game(name, host, fr, w, ctl)
    return {"play": play, "ctl": ctl, "fr": fr, "w": w, "host": host, "gm": gm}


def run(env, *args, timeout=3600):
    return subprocess.run([*args], env=env, capture_output=True, text=True, timeout=timeout)


def measure(kind, paces, n_moves, seed, env):
    py = env["VENV_BIN"] + "/python"
    scripts = Path(env["EMU_ROOT"]) / "scripts"
    name = "pace-%s-%d" % (kind, os.getpid())
    run(env, py, str(scripts / "emuctl.py"), "start", name, kind, "--fresh")
    out = {}
    try:
        time.sleep(25)  # a fresh flash: MicroPython formats its filesystem
        r = run(env, py, str(scripts / "timed_flash.py"), name, "--board", "tortuga",
                "--" + ("files" if kind == "stock" else "romfs"))
        if "FLASHTIME" not in r.stdout or ('"rc": 0' not in r.stdout and "the firmware is on the board" not in r.stdout):
            # (a loaded host: the board's hello after the reset may come later than the tool waits)
            raise SystemExit("turtleboard flash failed: " + (r.stdout + r.stderr)[-1500:])
        run(env, py, str(scripts / "emuctl.py"), "stop", name)
        run(env, py, str(scripts / "emuctl.py"), "start", name, kind)
        ns = attach(name)
        try:
            for pace in paces:
                print("  pace", pace, flush=True)
                rows, ch0, ops, flash = play_pace(ns, pace, n_moves[pace], random.Random("%s-%d" % (pace, seed)))
                got = figures(rows, ch0, ops)
                got["flash_during_play"] = flash
                out[pace] = got
                print(json.dumps({k: got[k] for k in ("moves", "checked_ok", "sensor_to_action_ms",
                                                      "committing_cycle_ms", "quiet_cycle_ms")}), flush=True)
        finally:
            ns["host"].close()
    finally:
        run(env, py, str(scripts / "emuctl.py"), "stop", name)
    return out


def main():
    missing = [k for k in ("EMU_ROOT", "VENV_BIN", "FW_STOCK", "FW_ROMFS") if not os.environ.get(k)]
    if missing:
        sys.exit("set %s first: the emulated Pico is set up outside the repository "
                 "(bench/pico_emu.py's docstring says what each is)" % ", ".join(missing))
    args = sys.argv[1:]
    n_moves = {p: 100 for p in PACES}
    if args and args[0].isdigit():
        n_moves = {p: int(args[0]) for p in PACES}
    elif args and "=" in args[0]:
        n_moves.update((k, int(v)) for k, v in (x.split("=") for x in args[0].split(",")))
    kinds = [a for a in args if a in ("stock", "romfs")] or ["stock", "romfs"]
    paces = args[args.index("--paces") + 1].split(",") if "--paces" in args else list(PACES)
    seed = int(args[args.index("--seed") + 1]) if "--seed" in args else 1
    bad = [p for p in paces if p not in PACES]
    if bad:
        sys.exit("no pace %s; the paces are %s" % (", ".join(bad), ", ".join(PACES)))
    env = project_env("pace")
    commit = subprocess.run(["git", "-C", str(REPO), "describe", "--always", "--dirty"],
                            capture_output=True, text=True).stdout.strip()
    for kind in kinds:
        print("measuring", kind, flush=True)
        image = env["FW_STOCK" if kind == "stock" else "FW_ROMFS"]
        got = measure(kind, paces, n_moves, seed, env)
        results = json.loads(RESULTS.read_text()) if RESULTS.exists() else {}
        timing = os.environ.get("EMU_FLASH_TIMING", "typ")  # the harness's --flash-timing
        paced = results.setdefault("paced" if timing == "typ" else "paced_flash_" + timing, {}).setdefault(kind, {})
        for pace, figs in got.items():
            paced[pace] = dict(figs, image=os.path.basename(image), flash_timing=timing,
                               firmware="commit %s" % commit, when=time.strftime("%Y-%m-%d"))
        RESULTS.write_text(json.dumps(results, indent=1) + "\n")


if __name__ == "__main__":
    main()
