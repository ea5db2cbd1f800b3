"""Power cuts at random on the emulated RP2040 during fast chains of moves
(issue 36): chains of 2-5 seeded Tortuga moves made through the sensors at
the fast pace (the next lift 30-80 ms after the last `action` frame, put
down 40-120 ms after the lift, scheduled by the emulator in emulated time),
the flash chip's time charged; the emulator is killed at a flash program
(before or after it: `cut_at_program`) or at a random instant of the chain
(a `cut` step of its plan), then booted again with the pieces where the cut
left them (the table the emulator keeps on every change).

Each cut must lose no reported action: the `hello` after it says at least
the `n` of the last `action` frame that went out, with the engine's hash
(one more when the cut came between a write and its frame), or, where the
log is a file (a move the pieces prove is written after its frame), one
less, and the board then commits that move again from the pieces at once;
and the board
tells what it asks to be redone: nothing when the pieces show its game, the
move again (an `action` by sensors) when they show one legal move more, else
a status naming the cells to change. The bench then puts the pieces as the
board's game has them and goes on. Every 10 cuts and at the end `sync` must
give every action (the log intact); at the end the filesystem is listed and
read, and no `hello` may report log damage.

    python bench/pico_emu_cuts.py stock|romfs CUTS [SEED]

Needs what bench/pico_emu_pace.py needs. Results: bench/results/pico-emu.json
"power_cuts_paced": {image: figures}; each cut's record in
$EMU_ROOT/work/cuts-<image>-<pid>/cuts.json.
"""

import json
import os
import random
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import pico_emu_pace as pace  # noqa: E402

RESULTS = HERE / "results" / "pico-emu.json"
READ_ALL = """import os
def read(d):
    n = 0
    for name, kind, *_ in os.ilistdir(d):
        path = d + "/" + name if d != "/" else "/" + name
        if path == "/rom":
            continue
        if kind == 0x4000:
            n += read(path)
        else:
            open(path, "rb").read()
            n += 1
    return n
print(sorted(os.listdir()), os.statvfs("/"))
print("READ OK", read("/"), "files")
"""


def state_of(play, ch, v):
    # the cell state a reading gives (0 empty, 1 up, 2 down), as the harness sets them
    d = v - play.reading(ch, 0)
    return 1 if d > play.FIELD // 2 else 2 if d < -play.FIELD // 2 else 0


def pieces(play, d):
    table = json.load(open(d + "/table.json"))
    return {c: state_of(play, play.BOARD.sensor_of[i], table[play.BOARD.sensor_of[i]])
            for i, c in enumerate(play.CELLS)}


def main():
    ns = {}
    try:
        cut_at_random(ns)
    finally:
        if ns.get("emu") is not None:
            ns["emu"].stop()  # (a bench that fails leaves no emulator running)


def cut_at_random(ns):
    kind, cuts = sys.argv[1], int(sys.argv[2])
    seed = int(sys.argv[3]) if len(sys.argv) > 3 else 7
    env = pace.project_env("cuts")
    py = env["VENV_BIN"] + "/python"
    scripts = Path(env["EMU_ROOT"]) / "scripts"
    name = "cuts-%s-%d" % (kind, os.getpid())
    subprocess.run([py, str(scripts / "emuctl.py"), "start", name, kind, "--fresh"], env=env)
    time.sleep(25)
    r = subprocess.run([py, str(scripts / "timed_flash.py"), name, "--board", "tortuga",
                        "--" + ("files" if kind == "stock" else "romfs")], env=env, capture_output=True, text=True)
    if '"rc": 0' not in r.stdout and "the firmware is on the board" not in r.stdout:  # (loaded host: a late hello)
        sys.exit("turtleboard flash failed: " + (r.stdout + r.stderr)[-1500:])
    subprocess.run([py, str(scripts / "emuctl.py"), "stop", name], env=env)
    play = pace.harness(name)
    d = "%s/work/%s" % (play.ROOT, name)
    fw = play.FW_STOCK if kind == "stock" else play.FW_ROMFS
    ns.update(play=play, emu=None)

    def boot():
        table = d + "/table.json"  # the pieces: the emulator keeps it as its plans move them
        if not os.path.exists(table):
            json.dump([play.reading(ch, 0) for ch in range(48)], open(table, "w"))
        ns["emu"] = play.Emu(name, fw, d + "/flash.img").start(table)
        ns["ctl"] = play.Ctl(d + "/ctl.sock")
        if "w" in ns:
            ns["w"].ctl = ns["ctl"]
            ns["gm"].ctl = ns["ctl"]

    ns["fr"] = play.Frames()  # (from the end of the line log: what comes from now on)
    boot()
    ns["w"] = play.World(ns["ctl"])
    ns["host"] = play.Host(d + "/tty", d + "/console-cuts.log")
    ns["fr"].wait(lambda f: f["kind"] == "hello", 300)
    ns["gm"] = play.Game(name, ns["host"], ns["fr"], ns["w"], ns["ctl"])
    rnd = random.Random(seed)
    pace.new_game(ns)
    res = {"image": os.path.basename(fw), "cuts": [], "failures": [], "no_cut": 0}
    done = 0
    while done < cuts:
        fr, gm = ns["fr"], ns["gm"]
        g = gm.g
        chosen = pace.chain(play, g, rnd.randint(2, 5), rnd)
        if not chosen:
            pace.new_game(ns)
            continue
        steps = pace.pace_plan("fast", rnd, [(t, lft, p) for t, lft, p, _ in chosen])
        steps[0]["delay_ns"] = int(rnd.uniform(0.1, 0.3) * 1e9)
        how = "program" if done % 2 == 0 else "instant"
        if how == "instant":
            i = rnd.randrange(len(steps))
            steps.insert(i + 1, {"on": "prev", "delay_ns": int(rnd.uniform(0, 120) * 1e6), "cut": True,
                                 "tag": "cut"})
        else:
            n_prog = rnd.randint(1, len(chosen))  # a page program a move, in either image's log area
            when = rnd.choice(("before", "after"))
            ns["ctl"].cmd(cut_at_program={"n": n_prog, "when": when})
        k = fr.mark()
        ns["ctl"].cmd(plan=steps)
        e = ns["emu"]
        deadline = time.time() + 60 + 40 * len(chosen)
        while e.proc.poll() is None and time.time() < deadline:
            if how == "program" and len(fr.since(k, "action")) >= len(chosen):
                time.sleep(2)  # the last write may still come
                if e.proc.poll() is None:
                    break
            time.sleep(0.2)
        acts = fr.since(k, "action")
        if e.proc.poll() is None:  # a program cut the chain never reached
            ns["ctl"].cmd(cut_at_program={"n": 10 ** 9, "when": "before"})
            res["no_cut"] += 1
            if len(acts) == len(chosen):
                gm.g = chosen[-1][3]
                ns["w"].state.update(play.img_dict(gm.g))
            else:
                pace.new_game(ns)
            continue
        e.proc.wait(60)
        reported = acts[-1]["p"]["n"] if acts else len(g.history)
        cut_ev = [json.loads(x) for x in open(d + "/events.log") if '"cut"' in x][-1]
        on_board = pieces(play, d)
        k = fr.mark()
        boot()
        hello = fr.wait(lambda f: f["kind"] == "hello", 300, since=k)
        n = hello["p"]["n"] if hello else None
        games = [g] + [c[3] for c in chosen]
        dev = next((x for x in games if len(x.history) == n), None)
        rec = {"cut": done, "how": how, "at": cut_ev, "reported_n": reported, "hello_n": n,
               "moves": [c[0] for c in chosen]}
        lost = n is None or dev is None or hello["p"]["hash"] != "%08x" % dev.state_hash()
        if not lost and n < reported:
            # A stock Pico writes a move the pieces prove after its frame: cut
            # between the two, the board must read it again from the pieces
            # (its `action` again, the same n and text), the next turtle
            # perhaps already in the air.
            lost = n != reported - 1 or games.index(dev) + 1 >= len(games)
            if not lost:
                again = fr.wait(lambda f: f["kind"] == "action", 120, since=k)
                want_text = chosen[games.index(dev)][0]
                lost = again is None or again["p"]["n"] != reported or again["p"]["text"] != want_text \
                    or again["p"]["by"] != "sensors"
                rec["read_again_from_the_pieces"] = not lost
                if not lost:
                    dev = games[games.index(dev) + 1]
        if lost:
            rec["lost"] = True
            res["failures"].append(rec)
            print("LOST", json.dumps(rec), flush=True)
            break
        # what the board asks: nothing, the move again, or the cells to change
        want = play.img_dict(dev)
        nxt = games[games.index(dev) + 1] if games.index(dev) + 1 < len(games) else None
        if on_board == want:
            rec["asks"] = "nothing"
            st = gm.wait_status(lambda x: x == {}, k, 120)  # (its first status after the boot)
            rec["told"] = st is not None
        elif nxt is not None and on_board == play.img_dict(nxt):
            a = fr.wait(lambda f: f["kind"] == "action" and f["p"]["by"] == "sensors", 120, since=k)
            rec["asks"] = "the move again"
            rec["told"] = a is not None and a["p"]["text"] == chosen[games.index(nxt) - 1][0]
            dev = nxt
        else:
            st = gm.wait_status(lambda x: x != {}, k, 120)
            rec["asks"] = st and st["p"]["expect"]
            rec["told"] = st is not None
        if not rec["told"]:
            res["failures"].append(rec)
        gm.g = dev
        ns["w"].state.update(on_board)
        if on_board != play.img_dict(dev):
            k = fr.mark()
            ns["w"].set(**play.img_dict(dev))  # the pieces as the board's game has them
            gm.wait_status(lambda x: x == {}, k, 120)
        rec["hello_log"] = hello["p"].get("log")
        res["cuts"].append(rec)
        done += 1
        print(done, how, "reported", reported, "hello", n, "asks", rec["asks"], flush=True)
        json.dump(res, open(d + "/cuts.json", "w"), indent=1)  # (what is done so far)
        if done % 10 == 0 or done == cuts:
            k = fr.mark()
            ns["host"].send("sync")
            fr.wait(lambda f: f["kind"] == "synced", 300, since=k)
            logs = [x for f in fr.since(k, "log") for x in f["p"]["actions"]]
            whole = logs == [gm.g.action_text(x) for x in gm.g.history]
            res.setdefault("syncs", []).append({"after_cut": done, "every_action": whole, "n": len(logs)})
            if not whole:
                res["failures"].append({"sync_after_cut": done, "got": logs[-5:]})
        if gm.g.is_over() or not pace.safe_moves(play, gm.g):
            pace.new_game(ns)
    ns["host"].close()
    time.sleep(1)
    out = subprocess.run([env["VENV_BIN"] + "/mpremote", "connect", d + "/tty", "exec", READ_ALL],
                         capture_output=True, text=True, timeout=300)
    res["filesystem"] = (out.stdout + out.stderr).strip()[-400:]
    stats = {"image": res["image"], "flash_timing": "typ", "cuts": len(res["cuts"]),
             "at_a_flash_program": sum(1 for c in res["cuts"] if c["how"] == "program"),
             "at_a_random_instant": sum(1 for c in res["cuts"] if c["how"] == "instant"),
             "program_cuts_the_chain_never_reached": res["no_cut"],
             "reported_actions_lost": sum(1 for f in res["failures"] if f.get("lost")),
             "failures": res["failures"][:5],
             "hello_one_more_than_reported": sum(1 for c in res["cuts"] if c["hello_n"] > c["reported_n"]),
             "reported_move_read_again_from_the_pieces": sum(1 for c in res["cuts"]
                                                             if c.get("read_again_from_the_pieces")),
             "board_asked": {"nothing": sum(1 for c in res["cuts"] if c["asks"] == "nothing"),
                             "the move again": sum(1 for c in res["cuts"] if c["asks"] == "the move again"),
                             "cells to change": sum(1 for c in res["cuts"] if isinstance(c["asks"], dict))},
             "log_damage_reported": sum(1 for c in res["cuts"] if c.get("hello_log")),
             "syncs_with_every_action": "%d of %d" % (sum(1 for s in res.get("syncs", []) if s["every_action"]),
                                                       len(res.get("syncs", []))),
             "filesystem_after": "READ OK" in res["filesystem"],
             "seed": seed, "when": time.strftime("%Y-%m-%d"),
             "firmware": "commit " + subprocess.run(["git", "-C", str(HERE.parent), "describe", "--always", "--dirty"],
                                                    capture_output=True, text=True).stdout.strip()}
    json.dump(res, open(d + "/cuts.json", "w"), indent=1)
    results = json.loads(RESULTS.read_text()) if RESULTS.exists() else {}
    results.setdefault("power_cuts_paced", {})[kind] = stats
    RESULTS.write_text(json.dumps(results, indent=1) + "\n")
    print(json.dumps(stats, indent=1))


if __name__ == "__main__":
    main()
