"""Power cuts at the game log's flash writes on the emulated RP2040: moves made
through the sensors, the board left still, the emulator killed at the N-th
flash program of the write behind (before or after it), booted again with
the pieces where they were. Each cut must lose nothing: the board comes back
at the move or one before it, and one before, it reads the move again from
the pieces (`action` by sensors, same text and hash); the host's console is
told (it reconnects and shows the board's `hello`, one action behind); `sync`
gives every action.

    python bench/pico_emu_cuts.py NAME stock|romfs CUTS [SEED]

NAME: an emulator folder in $EMU_ROOT/work whose flash already holds the
firmware and a Tortuga board (bench/pico_emu.py leaves bench-<kind>-<pid>);
the environment as for bench/pico_emu.py, FW_STOCK / FW_ROMFS naming the
image that run put on (the boots here use it, its partition table too).
Results: $EMU_ROOT/work/NAME/cuts.json.
"""

import json
import os
import random
import re
import sys
import time

NAME, KIND, CUTS = sys.argv[1], sys.argv[2], int(sys.argv[3])
SEED = int(sys.argv[4]) if len(sys.argv) > 4 else 5
sys.argv = [sys.argv[0], NAME]  # play.py reads the emulator's name from argv
sys.path.insert(0, os.path.join(os.environ["EMU_ROOT"], "scripts"))
import play  # noqa: E402
from play import (  # noqa: E402
    CELLS,
    FW_ROMFS,
    FW_STOCK,
    ROOT,
    Ctl,
    Emu,
    Frames,
    Game,
    Host,
    World,
    check,
    engine,
    img_dict,
    settle,
)

D = f"{ROOT}/work/{NAME}"
res = {"checks": [], "moves": [], "cuts": []}
play.out = res
FW = FW_STOCK if KIND == "stock" else FW_ROMFS


def boot():
    e = Emu(NAME, FW, f"{D}/flash.img").start(f"{D}/table.json" if os.path.exists(f"{D}/table.json") else None)
    open(f"{D}/bridge.pid", "w").write(str(e.proc.pid))
    time.sleep(0.3)
    open(f"{D}/node.pid", "w").write(str(e.node_pid()))
    return e


def safe_moves(g):
    # legal moves that need no prompt, one board image each, losing no turtle
    texts = [t for t in g.legal_texts() if t[0] != "="]
    seen = {}
    for t in texts:
        g2 = g.copy()
        g2.apply_text(t)
        seen.setdefault(tuple(g2.image()), []).append(t)
    out = []
    for t in texts:
        g2 = g.copy()
        g2.apply_text(t)
        if len(seen[tuple(g2.image())]) != 1 or any(x[0] == "=" for x in g2.legal_texts()) or g2.is_over():
            continue
        if sum(1 for v in img_dict(g2).values() if v) < sum(1 for v in img_dict(g).values() if v):
            continue
        out.append(t)
    return out


emu = boot()
ctl = Ctl(f"{D}/ctl.sock")
fr = Frames()
w = World(ctl)
w.set()
host = Host(f"{D}/tty", f"{D}/console-cuts.log")
check("hello", fr.wait(lambda f: f["kind"] == "hello", 120) is not None)
gm = Game(NAME, host, fr, w, ctl)
rnd = random.Random(SEED)


def new_game():
    k = fr.mark()
    host.send("new tortuga 2")
    check("new game", fr.wait(lambda f: f["kind"] == "ok", 120, since=k) is not None)
    gm.g = engine()
    k = fr.mark()
    w.set(**img_dict(gm.g))
    check("start position in sync", gm.wait_status(lambda e: e == {}, k, 120) is not None)


new_game()
for cut in range(CUTS):
    g = gm.g
    moves = safe_moves(g)
    if not moves:
        new_game()
        continue
    mv = rnd.choice(moves)
    n_prog, when = (1, 1, 2)[cut % 3], ("before", "after")[cut % 2]
    g2 = g.copy()
    before = img_dict(g2)
    g2.apply_text(mv)
    after = img_dict(g2)
    src, dst = re.split(r"[-x]", mv)
    flips = {c: after[c] for c in CELLS if c not in (src, dst) and before[c] != after[c]}
    k = fr.mark()
    w.set(**{src: 0})
    fr.wait(lambda f: f["kind"] == "status" and "dest" in f["p"]["expect"], 120, since=k)
    ctl.cmd(cut_at_program={"n": n_prog, "when": when})
    k = fr.mark()
    w.set(**{dst: 1}, **flips)
    sent = fr.wait(lambda f: f["kind"] == "action", 120, since=k)
    check(f"cut {cut}: {mv} committed",
          sent is not None and sent["p"]["text"] == mv and sent["p"]["n"] == len(g2.history), sent and sent["p"])
    # the emulator kills itself at the write behind, the board still; a
    # write with fewer programs than n_prog: no cut, the next move goes on
    t_placed = ctl.cmd(stats=1)["t"]
    try:
        while emu.proc.poll() is None and ctl.cmd(stats=1)["t"] - t_placed < 3e9:
            time.sleep(0.5)
    except OSError:  # it died as we asked
        emu.proc.wait(60)
    if emu.proc.poll() is None:
        ctl.cmd(cut_at_program={"n": 10 ** 9, "when": "before"})  # (disarmed)
        res["cuts"].append({"move": mv, "no_program": n_prog})
        gm.g = g2
        settle(ctl, 600)
        continue
    ev = [json.loads(x) for x in open(f"{D}/events.log") if '"cut"' in x][-1]
    k = fr.mark()
    emu = boot()
    ctl = Ctl(f"{D}/ctl.sock")
    w.ctl = ctl
    gm.ctl = ctl
    hello = fr.wait(lambda f: f["kind"] == "hello", 300, since=k)
    n = hello and hello["p"]["n"]
    check(f"cut {cut}: the action frame went out before the flash write", sent and sent["t"] < ev["t"] / 1e6,
          (sent and sent["t"], ev["t"] / 1e6))
    back = n == len(g.history) and hello["p"]["hash"] == "%08x" % g.state_hash()
    whole = n == len(g2.history) and hello["p"]["hash"] == "%08x" % g2.state_hash()
    check(f"cut {cut} ({when} program {n_prog}): the board is back at the move or one before it",
          back or whole, hello and hello["p"])
    again = None
    if back:
        again = fr.wait(lambda f: f["kind"] == "action", 120, since=k)
        check(f"cut {cut}: the pieces show {mv}: it commits again, by the sensors",
              again is not None and again["p"]["text"] == mv and again["p"]["by"] == "sensors"
              and again["p"]["n"] == len(g2.history) and again["p"]["hash"] == "%08x" % g2.state_hash(),
              again and again["p"])
    gm.g = g2
    time.sleep(2)  # the console reopens the port
    k = fr.mark()
    host.send("sync")
    fr.wait(lambda f: f["kind"] == "synced", 300, since=k)
    logs = [x for f in fr.since(k, "log") for x in f["p"]["actions"]]
    check(f"cut {cut}: sync gives every action", logs == [g2.action_text(x) for x in g2.history], logs[-3:])
    gm.wait_status(lambda e: e == {}, k, 120)
    settle(ctl, 600)  # the board still: the log is written (a move read again was queued)
    res["cuts"].append({"move": mv, "at": ev, "action_t": sent and sent["t"], "hello_n": n,
                        "n_before": len(g.history), "committed_again": again is not None})
host.close()
json.dump(res, open(f"{D}/cuts.json", "w"), indent=1)
told = open(f"{D}/console-cuts.log.out").read()
res["console_reconnected"] = told.count("reconnected")  # each with the board's hello: its n
check("the host's console was told of every restart (its hello, with the board's n)",
      res["console_reconnected"] >= sum(1 for c in res["cuts"] if "at" in c), res["console_reconnected"])
emu.stop()
json.dump(res, open(f"{D}/cuts.json", "w"), indent=1)
n_ok = sum(1 for c in res["checks"] if c[1])
real = [c for c in res["cuts"] if "at" in c]
print(f"{n_ok} passed, {len(res['checks']) - n_ok} failed; {len(real)} cuts, {len(res['cuts']) - len(real)} writes "
      f"with fewer programs than asked")
