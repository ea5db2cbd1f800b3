"""The heap as the device runs it, read from OUTSIDE (issue 36): the emulated
RP2040 runs main.py as a Pico does (nothing of the bench runs on it), and the
bench reads MicroPython's GC allocation table out of the emulated SRAM (the
harness's `mem` control command) at chosen instants: every block not free
counts (16 bytes a block). Read where the heap holds only what is live: 1 s
after each `action` frame (the firmware collects once the board has been
still 300 ms, and a quiet cycle allocates nothing).

    python bench/pico_emu_heapwatch.py stock|romfs [MOVES] [--map]

(--map: where the heap goes after the moves, bench/pico_emu_heapmap.py;
no restore; results under "heap_map")

    python bench/pico_emu_heapwatch.py stock|romfs [MOVES] --game mahe|race|tattoo|hatching|tortuga

plays MOVES actions of that game on its board, each action the board does
not draw itself entered by the host and the pieces then set to match, its
dice and cards drawn by the board (results: "heap_from_outside", image,
"games")

plays MOVES (30) seeded Tortuga moves through the sensors at the human pace
(bench/pico_emu_pace.py's), then boots with the 900-action Mahe game in the
log (bench/pico_emu.py's) sampling the table as fast as the control socket
answers: the highest heap in use during the restore; and the heap just after
each collection the firmware makes, counted by the emulator itself the
moment gc_collect_end() resets the allocator's index (the harness's
`gcwatch`): the live heap then; their highest is the restore's live peak.

The address of MicroPython's state (`mp_state_ctx`) comes from the image's
ELF: $FW_STOCK / $FW_ROMFS with .elf for .bin, or FW_STOCK_ELF / FW_ROMFS_ELF.
Results: bench/results/pico-emu.json, "heap_from_outside": {image: figures}.
"""

import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import pico_emu  # noqa: E402
import pico_emu_pace as pace  # noqa: E402

RESULTS = HERE / "results" / "pico-emu.json"
BLOCK = 16  # bytes a GC block (MICROPY_BYTES_PER_GC_BLOCK on the rp2 port)


def state_address(elf):
    out = subprocess.run(["arm-none-eabi-nm", elf], capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        parts = line.split()
        if parts[-1] == "mp_state_ctx":
            return int(parts[0], 16)
    raise SystemExit("no mp_state_ctx in %s" % elf)


class Heap:
    # mp_state_ctx.mem.area of v1.28's rp2 port (no MEM_STATS, no split heap,
    # a finaliser table, no weakref table): the allocation table's start and
    # length, the finaliser table, the pool's start and end, found in
    # mp_state_ctx (after its thread and VM parts) by what gc_init() makes
    # of them: the finaliser table right after the allocation table, the
    # pool after both, 64 bytes of pool for each byte of the table.
    def __init__(self, ctl, ctx):
        w = self.words(ctl, ctx, 1024)
        for i in range(len(w) - 4):
            atb, n, ftb, pool, end = w[i:i + 5]
            if (0x20000000 <= atb < 0x20042000 and 0 < n < 16384 and 0 <= ftb - atb - n < 4
                    and ftb < pool < end <= 0x20042000 and 0 <= end - pool - n * 4 * BLOCK < 4 * BLOCK):
                self.atb, self.atb_len, self.pool, self.pool_end = atb, n, pool, end
                self.last_free = ctx + 4 * (i + 5)  # gc_last_free_atb_index: gc_collect_end() sets it to 0
                self.ctl = ctl
                return
        raise ValueError("no GC state found in mp_state_ctx (MicroPython not started yet?)")

    @staticmethod
    def words(ctl, at, n):
        raw = bytes.fromhex(ctl.cmd(mem=[[at, 4 * n]])["mem"][0])
        return [int.from_bytes(raw[4 * i:4 * i + 4], "little") for i in range(n)]

    def watch(self):
        # From now on the emulator counts the heap in use at the end of each
        # collection the firmware makes (the harness's `gcwatch`).
        self.ctl.cmd(gcwatch={"at": self.last_free, "atb": self.atb, "len": self.atb_len})

    def collections(self):
        # -> [(emulated ns, bytes in use just after a collection)] since watch()
        return [tuple(x) for x in self.ctl.cmd(gcseen=1)["gcseen"]]

    def used(self):
        # -> (bytes in blocks not free, emulated ns)
        r = self.ctl.cmd(mem=[[self.atb, self.atb_len]])
        table = bytes.fromhex(r["mem"][0])
        free = sum(((b & 3) == 0) + ((b >> 2 & 3) == 0) + ((b >> 4 & 3) == 0) + ((b >> 6 & 3) == 0) for b in table)
        return (len(table) * 4 - free) * BLOCK, r["t"]


def summary(values):
    return pace.summary(values)


def playing(ns, heap, moves, seed):
    # human-paced moves; the heap read 1 s after each action frame
    play, ctl, fr, gm = ns["play"], ns["ctl"], ns["fr"], ns["gm"]
    rnd = random.Random(seed)
    pace.new_game(ns)
    got = []
    news = []  # (emulated ns) from each `new` sent to the game set up
    heap.watch()
    while len(got) < moves:
        one = pace.chain(play, gm.g, 1, rnd)
        if not one:
            t0 = ctl.cmd(stats=1)["t"]
            pace.new_game(ns)
            news.append((t0, ctl.cmd(stats=1)["t"]))
            continue
        text, lift, put, g2 = one[0]
        k = fr.mark()
        ctl.cmd(plan=[{"on": "prev", "delay_ns": int(rnd.uniform(0.35, 1.3) * 1e9), "sensors": lift},
                      {"on": "prev", "delay_ns": int(rnd.uniform(0.1, 0.25) * 1e9), "sensors": put}])
        a = fr.wait(lambda f: f["kind"] == "action", 300, since=k)
        if a is None or a["p"]["text"] != text:
            raise SystemExit("the move %s was not committed: %r" % (text, a and a["p"]))
        gm.g = g2
        ns["w"].state.update(play.img_dict(g2))
        while ctl.cmd(stats=1)["t"] < a["t"] * 1e6 + 1e9:
            time.sleep(0.1)
        got.append(heap.used()[0])
    return got, heap.collections(), news


GAMES = {  # what --game plays: (board file, the console's `new`, rules, players, options)
    "tortuga": ("tortuga", "new tortuga 2", "tortuga", 2, {}),
    "tattoo": ("tortuga", "new tortuga 2 tattoo=4", "tortuga", 2, {"tattoo": 4}),
    "hatching": ("tortuga", "new tortuga 2 hatching=1", "tortuga", 2, {"hatching": 1}),
    "mahe": ("mahe", "new mahe 4", "mahe", 4, {}),
    "race": ("race", "new race 4", "race", 4, {}),
}


def playing_entered(ns, heap, game, moves, seed):
    # Any of the five: each action the board does not draw itself entered
    # by the host (`enter`, also what came up where the board asks: the
    # Race's cards), its dice drawn by the board, the
    # pieces then set as the engine's board after it; the heap read 1 s
    # after each `action` frame, as playing().
    from controller.board import load_board
    from controller.flows import device_options
    from turtles import game_class, new_game
    from turtles.bots import random_action
    from turtles.game import CHANCE
    from turtles.rng import Rng

    board_name, new_text, rules, players, options = GAMES[game]
    board = load_board((HERE.parent / "boards" / (board_name + ".json")).read_text())
    play, ctl, fr, host = ns["play"], ns["ctl"], ns["fr"], ns["host"]
    rng = Rng(seed)

    def set_pieces(g):
        table = [play.reading(ch, 0) for ch in range(48)]
        image = g.image()
        where = {c: i for i, c in enumerate(board.cells)}
        for j, cell in enumerate(g.cells()):
            ch = board.sensor_of[where[cell]]
            table[ch] = play.reading(ch, image[j])
        ctl.cmd(table=table)

    news = []  # (emulated ns) from each `new` sent to the game set up

    def start():
        # -> the new game, and the frames read before its `ok`
        k = fr.mark()
        t0 = ctl.cmd(stats=1)["t"]
        host.send(new_text)
        if fr.wait(lambda f: f["kind"] == "ok", 120, since=k) is None:
            raise SystemExit("%r was not answered" % new_text)
        cls = game_class(rules)
        g = new_game(rules, players, device_options(rules, cls, dict(options)), board.geometry)
        set_pieces(g)
        news.append((t0, ctl.cmd(stats=1)["t"]))
        return g, k

    g, k = start()
    got = []
    heap.watch()
    entered = drawn = 0
    while len(got) < moves:  # (k: the frames read; the board's draws come any time)
        if g.is_over():
            g, k = start()
            continue
        want = None
        if g.to_move() == CHANCE:  # the board draws it, or asks what came up (the Race's cards)
            a = fr.wait(lambda f: f["kind"] in ("action", "error") or (
                f["kind"] == "prompt" and f["p"].get("kind") == "chance"), 300, since=k)
            if a is not None and a["kind"] == "prompt":
                k = fr.all.index(a) + 1
                want = g.action_text(random_action(g, rng))
                host.send("enter " + want)
        else:
            want = g.action_text(random_action(g, rng))
            host.send("enter " + want)
        if want is not None:
            a = fr.wait(lambda f: f["kind"] in ("action", "error"), 300, since=k)
        k = fr.all.index(a) + 1 if a is not None else k
        if a is None or a["kind"] == "error" or (want is not None and a["p"]["text"] != want):
            raise SystemExit("%s: %r was not committed: %r" % (game, want, a and a["p"]))
        g.apply_text(a["p"]["text"])
        if a["p"]["hash"] != "%08x" % g.state_hash():
            raise SystemExit("%s: the board's game is not the engine's after %s" % (game, a["p"]["text"]))
        if want is None:
            drawn += 1
        else:
            entered += 1
        set_pieces(g)
        while ctl.cmd(stats=1)["t"] < a["t"] * 1e6 + 1e9:
            time.sleep(0.1)
        got.append(heap.used()[0])
    return got, heap.collections(), news[1:], {"entered": entered, "drawn_by_the_board": drawn}


def restoring(env, name, kind, work, ctx):
    # the 900-action Mahe game in the log, then a boot sampled from power-on to hello + 1 s
    py = env["VENV_BIN"] + "/python"
    scripts = Path(env["EMU_ROOT"]) / "scripts"
    r = pico_emu.run(env, py, str(scripts / "timed_flash.py"), name, "--board", "mahe",
                     "--" + ("files" if kind == "stock" else "romfs"))
    if "FLASHTIME" not in r.stdout:
        return {"error": "turtleboard flash --board mahe failed: " + (r.stdout + r.stderr)[-500:]}
    sys.path.insert(0, str(HERE))
    from pico import write_boot_files

    folder = Path(tempfile.mkdtemp(prefix="tb-log-"))
    (folder / "board.json").write_text((HERE.parent / "boards" / "mahe.json").read_text())
    write_boot_files(folder)
    gone = ("import os\nfor f in ('game.log.report', 'game.log.bad'):\n try: os.remove(f)\n except OSError: pass\n"
            "try:\n import rp2, turtleboard_log\n print('AREA', rp2.Flash().ioctl(4, 0), turtleboard_log.LOG_AREA_BYTES)\n"
            "except ImportError:\n pass")
    r = pico_emu.run(env, env["VENV_BIN"] + "/mpremote", "connect", str(work / "tty"), "exec", gone, "+", "cp",
                     str(folder / "game.log"), ":game.log", timeout=1800)
    pico_emu.run(env, py, str(scripts / "emuctl.py"), "stop", name)
    area = [x.split()[1:] for x in r.stdout.splitlines() if x.startswith("AREA ")]
    if area:
        pico_emu.put_in_area(work / "flash.img", folder / "game.log", int(area[0][0]), int(area[0][1]))
    pico_emu.run(env, py, str(scripts / "emuctl.py"), "start", name, kind)
    play = pace.harness(name)
    ctl = play.Ctl(str(work / "ctl.sock"))
    heap = None
    samples = []
    hello = None
    deadline = time.time() + 1800
    while time.time() < deadline:
        if heap is None:
            try:
                heap = Heap(ctl, ctx)  # (once MicroPython has set up its heap)
                heap.watch()
            except ValueError:
                time.sleep(0.05)
                continue
        used, t = heap.used()
        samples.append((t, used))
        stats = ctl.cmd(stats=1)
        if stats.get("hello_ns") and hello is None:
            hello = stats["hello_ns"]
        if hello is not None and t > hello + 1e9:
            break
    collected = heap.collections() if heap is not None else []
    before = [u for t, u in collected if hello is None or t <= hello]
    return {"samples": len(samples), "hello_ms": hello and hello / 1e6,
            "highest_in_use_bytes": max(u for _, u in samples) if samples else None,
            "collections_before_hello": len(before),
            "live_peak_bytes": max(before) if before else None,
            "after_each_collection_bytes": before,
            "one_second_after_hello_bytes": samples[-1][1] if samples else None}


def main():
    game = sys.argv[sys.argv.index("--game") + 1] if "--game" in sys.argv else None
    args = [a for a in sys.argv[1:] if not a.startswith("--") and a != game]
    kind = args[0]
    moves = int(args[1]) if len(args) > 1 else 30
    where = "--map" in sys.argv
    env = pace.project_env("heap")
    image = env["FW_STOCK" if kind == "stock" else "FW_ROMFS"]
    elf = env.get("FW_STOCK_ELF" if kind == "stock" else "FW_ROMFS_ELF") or image[:-4] + ".elf"
    ctx = state_address(elf)
    py = env["VENV_BIN"] + "/python"
    scripts = Path(env["EMU_ROOT"]) / "scripts"
    name = "heap-%s-%d" % (kind, os.getpid())
    work = Path(env["EMU_ROOT"]) / "work" / name
    pico_emu.run(env, py, str(scripts / "emuctl.py"), "start", name, kind, "--fresh")
    out = {"image": os.path.basename(image), "flash_timing": "typ"}
    try:
        time.sleep(25)
        r = pico_emu.run(env, py, str(scripts / "timed_flash.py"), name, "--board", GAMES[game or "tortuga"][0],
                         "--" + ("files" if kind == "stock" else "romfs"))
        if "FLASHTIME" not in r.stdout:
            raise SystemExit("turtleboard flash failed: " + (r.stdout + r.stderr)[-1500:])
        pico_emu.run(env, py, str(scripts / "emuctl.py"), "stop", name)
        pico_emu.run(env, py, str(scripts / "emuctl.py"), "start", name, kind)
        ns = pace.attach(name)
        try:
            heap = Heap(ns["ctl"], ctx)
            out["heap_pool_bytes"] = heap.pool_end - heap.pool
            if game is not None:
                got, collected, news, how = playing_entered(ns, heap, game, moves, 5)
                out["moves"] = how
            else:
                got, collected, news = playing(ns, heap, moves, 5)
            out["playing_%s_bytes" % (game or "tortuga")] = dict(summary(got), moves=len(got))
            out["playing_after_each_collection_bytes"] = summary([u for _, u in collected])
            # the collections while a `new` made the next game (the last game and the next both alive)
            during = [u for t, u in collected if any(t0 <= t <= t1 for t0, t1 in news)]
            out["of_them_while_a_new_game_was_made"] = dict(summary(during), news=len(news)) if during else {
                "n": 0, "news": len(news)}
            if collected:  # the highest: when, and the frames the board sent about then
                t, u = max(collected, key=lambda c: c[1])
                near = [(round(f["t"] - t / 1e6, 1), f["kind"], str(f.get("p"))[:80])
                        for f in ns["fr"].all if abs(f["t"] - t / 1e6) < 400]
                out["highest_collection"] = {"bytes": u, "emulated_s": round(t / 1e9, 3), "frames_within_400_ms": near}
            if where:  # the heap as it is now, 1 s after the last move's frame
                import pico_emu_heapmap
                out["map"] = pico_emu_heapmap.breakdown(ns["ctl"], heap, elf)
        finally:
            ns["host"].close()
        if not where and game is None:
            out["restore_mahe_900"] = restoring(env, name, kind, work, ctx)
    finally:
        pico_emu.run(env, py, str(scripts / "emuctl.py"), "stop", name)
    out["firmware"] = "commit " + subprocess.run(["git", "-C", str(HERE.parent), "describe", "--always", "--dirty"],
                                                 capture_output=True, text=True).stdout.strip()
    out["when"] = time.strftime("%Y-%m-%d")
    results = json.loads(RESULTS.read_text()) if RESULTS.exists() else {}
    if game is not None:  # beside the Tortuga game's figures
        results.setdefault("heap_from_outside", {}).setdefault(kind, {}).setdefault("games", {})[game] = out
    else:
        results.setdefault("heap_map" if where else "heap_from_outside", {})[kind] = out
    RESULTS.write_text(json.dumps(results, indent=1) + "\n")
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
