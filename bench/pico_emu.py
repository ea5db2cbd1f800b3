"""The firmware's Pico figures measured on an emulated RP2040 (rp2040js) running
MicroPython's rp2 port: emulated time at 125 MHz (a real Pico, whose code runs
through a 16 KB flash cache, is ~1.3x slower); the harness charges each flash
erase and page program the W25Q16JV's time (45 ms a 4 KB sector, 0.7 ms a
page: `--flash-timing typ`, its default). Results taken before it did say so.
The paced figures are bench/pico_emu_pace.py's.

Drives the harness of ../shared/pico-emu (see its README): for each image,
an emulator started on a fresh flash, the firmware put on with
`turtleboard flash` (files on the stock image, ROMFS on TURTLEBOARD_PICO),
the first and later `new` timed on the device, MOVES seeded Tortuga moves
made through the sensors (every `action` frame checked against the engine),
the control cycles around each `action` frame, and the flash erases and
programs counted during play.

Set up first (once a machine, outside the repository):
    EMU_ROOT   the harness's work folder (emu/ with rp2040js, scripts/)
    VENV_BIN   a venv's bin with mpremote and turtleboard installed from a
               wheel of this checkout
    FW_STOCK   MicroPython v1.28.0 built for RPI_PICO (firmware.bin)
    FW_ROMFS   the same built for micropython/boards/TURTLEBOARD_PICO

    python bench/pico_emu.py [MOVES] [stock|romfs ...]
        (results: bench/results/pico-emu.json; the images' sizes and hashes in it)
    python bench/pico_emu.py --new-boot stock|romfs
        only `new` (three after the boot) and the boot with the 900-action
        Mahe game, on a fresh emulator (results: "new_and_boot")
    python bench/pico_emu.py --after NAME stock|romfs [--boot]
        only the quiet cycles (the Tortuga game a run left, the board still)
        and the boot with a 900-action Mahe game, on the emulator NAME a
        run left flashed ($EMU_ROOT/work/bench-<kind>-<pid>); --boot: only
        the boot (any emulator with this firmware's MicroPython on)
"""

import hashlib
import json
import math
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
RESULTS = HERE / "results" / "pico-emu.json"
NEED = ("EMU_ROOT", "VENV_BIN", "FW_STOCK", "FW_ROMFS")

NEW_SNIPPET = """
import time, gc, os
from controller.board import load_board
from controller.gamelog import GameLog, log_area
from controller.control import Controller
from controller.sensing import Sensing
from controller.boot import warm_up
from hal import platform_hal
board = load_board(open("board.json").read())
board.keep_small()
hal = platform_hal(board)
sensing = Sensing(hal, board)
sensing.calibrate()
ctl = Controller(hal, board, sensing, GameLog("newtime.log", log_area("newtime.log")), 1)
t = time.ticks_us()
warm_up(ctl)
warm = time.ticks_diff(time.ticks_us(), t)
from controller.commands import run_command
out = []
for i in range(3):  # the command as the host sends it: the game, the log begun, state + log + synced + ok
    gc.collect()
    t = time.ticks_us()
    run_command(ctl, i + 1, "new", {"game": board.games[0], "players": 2})
    out.append(time.ticks_diff(time.ticks_us(), t))
try:
    os.remove("newtime.log")
except OSError:
    pass  # (the log area's: the next game replaces it)
print()
print("NEWTIME", warm, out)
"""


MAKE_SNIPPET = """
import time, os
from _rp2 import Flash
from controller.logfiles import file_area, _remove
t = time.ticks_us()
where = file_area(Flash(), "maketime.area")
made = time.ticks_diff(time.ticks_us(), t)
t = time.ticks_us()
again = file_area(Flash(), "maketime.area")
read = time.ticks_diff(time.ticks_us(), t)
_remove("maketime.area")
print()
print("MAKETIME", made, read, where is not None and again == where)
"""


def time_making(env, work):
    # A stock Pico's log files made (its first boot), then found again (every
    # boot after): controller/logfiles.py on the device, the flash chip's time charged.
    snippet = work / "maketime.py"
    snippet.write_text(MAKE_SNIPPET)
    r = run(env, env["VENV_BIN"] + "/mpremote", "connect", str(work / "tty"), "run", str(snippet), timeout=1800)
    got = [x.split() for x in r.stdout.splitlines() if x.startswith("MAKETIME")]
    if not got:
        return {"error": (r.stdout + r.stderr)[-500:]}
    return {"made_ms": int(got[0][1]) / 1000, "found_again_ms": int(got[0][2]) / 1000, "same": got[0][3] == "True"}


def pct(values, q):
    s = sorted(values)
    return s[min(len(s) - 1, math.ceil(q * len(s)) - 1)] if s else None


def summary(values):
    if not values:
        return None
    s = sorted(values)
    return {"n": len(s), "median": round(s[len(s) // 2], 2), "p99": round(pct(s, 0.99), 2),
            "max": round(s[-1], 2), "min": round(s[0], 2)}


def image_info(path):
    data = Path(path).read_bytes()
    return {"file": os.path.basename(path), "bytes": len(data), "sha256": hashlib.sha256(data).hexdigest()}


def run(env, *args, timeout=7200):
    return subprocess.run([*args], env=env, capture_output=True, text=True, timeout=timeout)


def measure(kind, moves, env, project):
    root = Path(env["EMU_ROOT"])
    py = env["VENV_BIN"] + "/python"
    name = "bench-%s-%d" % (kind, os.getpid())
    work = root / "work" / name
    scripts = root / "scripts"
    out = {"image": image_info(env["FW_STOCK" if kind == "stock" else "FW_ROMFS"]),
           "deploy": "files" if kind == "stock" else "romfs"}
    r = run(env, py, str(scripts / "emuctl.py"), "start", name, kind, "--fresh")
    if r.returncode:
        raise SystemExit("the emulator did not start: " + r.stderr[-500:])
    try:
        time.sleep(20)  # a fresh flash: MicroPython formats its filesystem
        r = run(env, py, str(scripts / "timed_flash.py"), name, "--board", "tortuga", "--" + out["deploy"])
        line = [x for x in r.stdout.splitlines() if x.startswith("FLASHTIME ")]
        if not line or json.loads(line[0][10:])["rc"]:
            raise SystemExit("turtleboard flash failed: " + (r.stdout + r.stderr)[-1500:])
        out["flash"] = json.loads(line[0][10:])
        out["new_ms"] = time_new(env, work)
        # a fresh boot for the game (the emulator has no reset: power it off and on)
        run(env, py, str(scripts / "emuctl.py"), "stop", name)
        run(env, py, str(scripts / "emuctl.py"), "start", name, kind)
        ctl = [py, str(scripts / "ctlcmd.py"), name, '{"stats": 1}']
        before = json.loads(run(env, *ctl).stdout)
        r = run(env, py, str(HERE / "pico_emu_play.py"), name, str(moves), "1")  # play30.py, its LED check fixed
        after = json.loads(run(env, *ctl).stdout)
        play = json.loads((work / "play30.json").read_text())
        lats = [m["latency_ms"] for m in play["moves"] if m["latency_ms"] is not None]
        failed = [c for c in play["checks"] if not c[1]]
        out["play"] = {"moves": len(play["moves"]), "checks": len(play["checks"]), "failed": failed[:5],
                       "sensor_to_action_ms": summary(lats),
                       "flash_during_play": {k: after["flash"][k] - before["flash"][k] for k in ("erase", "program")}}
        r = run(env, py, str(scripts / "cycles.py"), name, "action")
        cyc = json.loads((work / "cycles-action.json").read_text())
        out["cycles"] = {"all_us": cyc["summary"],
                         "committing_ms": summary([x["containing_ms"] for x in cyc["rows"]])}
        out["quiet_cycle_ms"] = quiet_cycles(env, name)
        out["boot_to_hello_ms"] = boot_with_a_long_game(env, name, kind, work)
    finally:
        run(env, py, str(scripts / "emuctl.py"), "stop", name)
    return out


def time_new(env, work):
    # `new` timed on the device, as the host sends it (NEW_SNIPPET)
    snippet = work / "newtime.py"
    snippet.write_text(NEW_SNIPPET)
    r = run(env, env["VENV_BIN"] + "/mpremote", "connect", str(work / "tty"), "run", str(snippet), timeout=1800)
    got = [x for x in r.stdout.splitlines() if x.startswith("NEWTIME")]
    if not got:
        return {"error": (r.stdout + r.stderr)[-500:]}
    warm, news = json.loads("[" + got[0][8:].replace(" [", ", [") + "]")
    return {"warm_up_at_boot": warm / 1000, "new": [n / 1000 for n in news]}


def quiet_cycles(env, name, seconds=4.0):
    # The board left as it is, nothing asked: the control cycles of the last
    # `seconds` of emulated time (from the scans of channel 0).
    py = env["VENV_BIN"] + "/python"
    ctl = [py, str(Path(env["EMU_ROOT"]) / "scripts" / "ctlcmd.py"), name]
    t0 = json.loads(run(env, *ctl, '{"stats": 1}').stdout)["t"]
    while json.loads(run(env, *ctl, '{"stats": 1}').stdout)["t"] - t0 < (seconds + 1) * 1e9:
        time.sleep(1)
    ch0 = json.loads(run(env, *ctl, '{"cycles": 1, "raw": 1}').stdout)["ch0_ns"]
    start = t0 + 1e9  # a second for what the last command left to finish
    ms = [(b - a) / 1e6 for a, b in zip(ch0, ch0[1:]) if a >= start]
    return summary(ms)


def boot_with_a_long_game(env, name, kind, work):
    # The Mahe board (as `turtleboard flash --board mahe` puts it) and a
    # 900-action Mahe game in game.log, as the device writes it (bench/pico.py's),
    # then power off and on: boot to `hello`, which must show the game
    # restored (its snapshot loaded, the actions after it replayed).
    py = env["VENV_BIN"] + "/python"
    scripts = Path(env["EMU_ROOT"]) / "scripts"
    r = run(env, py, str(scripts / "timed_flash.py"), name, "--board", "mahe",
            "--" + ("files" if kind == "stock" else "romfs"))
    line = [x for x in r.stdout.splitlines() if x.startswith("FLASHTIME ")]
    if not line or json.loads(line[0][10:])["rc"]:
        return {"error": "turtleboard flash --board mahe failed: " + (r.stdout + r.stderr)[-500:]}
    sys.path.insert(0, str(HERE))
    from pico import LOG_ACTIONS, write_boot_files

    folder = Path(tempfile.mkdtemp(prefix="tb-log-"))
    (folder / "board.json").write_text((REPO / "boards" / "mahe.json").read_text())
    expect = write_boot_files(folder)  # its calibration.txt is the models': the device keeps its own
    # the game played before (Tortuga) is not this board's: the boot after the
    # flash reported it in game.log.report, which hello would repeat
    gone = ("import os\nfor f in ('game.log.report', 'game.log.bad'):\n try: os.remove(f)\n except OSError: pass\n"
            "try:\n import rp2, turtleboard_log\n print('AREA', rp2.Flash().ioctl(4, 0), turtleboard_log.LOG_AREA_BYTES)\n"
            "except ImportError:\n pass")
    r = run(env, env["VENV_BIN"] + "/mpremote", "connect", str(work / "tty"), "exec", gone, "+", "cp",
            str(folder / "game.log"), ":game.log", timeout=1800)
    if r.returncode:
        return {"error": "could not copy game.log: " + (r.stdout + r.stderr)[-500:]}
    run(env, py, str(scripts / "emuctl.py"), "stop", name)
    area = [x.split()[1:] for x in r.stdout.splitlines() if x.startswith("AREA ")]
    if area:  # the Turtleboard build: the log is in its raw area, as the device writes it there
        put_in_area(work / "flash.img", folder / "game.log", int(area[0][0]), int(area[0][1]))
    got = {}
    if not area:  # a stock Pico: its first boot copies game.log into its log files; time the boot after too
        got["first_boot_copying_game_log_ms"] = power_on_to_hello(env, name, kind)
        run(env, py, str(scripts / "emuctl.py"), "stop", name)
    hello_ms = power_on_to_hello(env, name, kind)
    stats = {"hello_ns": hello_ms and hello_ms * 1e6}
    lines = (work / "lines.log").read_text(errors="replace").splitlines()
    hello = [x for x in lines if " hello {" in x]
    said = json.loads(hello[-1][hello[-1].index("{"):hello[-1].rindex("}") + 1]) if hello else {}
    want = "%08x" % int(expect["LOG_HASH"])
    restored = (said.get("game") == "mahe" and said.get("n") == LOG_ACTIONS and said.get("hash") == want
                and said.get("log") is None)
    got.update({"actions": LOG_ACTIONS, "ms": stats.get("hello_ns") and stats["hello_ns"] / 1e6,
                "restored": restored, "hello": {k: said.get(k) for k in ("board", "game", "n", "hash", "log")},
                "game_hash": want})
    return got


def power_on_to_hello(env, name, kind):
    # The emulator started (a power-on): emulated ms to its first `hello`.
    py = env["VENV_BIN"] + "/python"
    scripts = Path(env["EMU_ROOT"]) / "scripts"
    run(env, py, str(scripts / "emuctl.py"), "start", name, kind)
    stats = {}
    for _ in range(600):
        stats = json.loads(run(env, py, str(scripts / "ctlcmd.py"), name, '{"stats": 1}').stdout)
        if stats.get("hello_ns"):
            break
        time.sleep(1)
    return stats.get("hello_ns") and stats["hello_ns"] / 1e6


def put_in_area(image, log_file, storage_blocks, area_bytes):
    # The game log's lines written into the raw log area of the emulator's
    # flash image (the start of the rp2 port's storage; the emulator stopped),
    # as controller/flashlog.py writes them on the device.
    import turtleboard  # noqa: F401  (puts the device packages on sys.path)
    from controller.flashlog import LogArea
    from controller.gamelog import GameLog
    from turtleboard.sim.pico.pico_flash import load

    tmp = Path(tempfile.mkdtemp(prefix="tb-area-")) / "area.img"
    tmp.write_bytes(b"\xff" * area_bytes)
    log = GameLog(str(tmp.parent / "game.log"), LogArea(load(str(tmp), "the log area"), "game.log"))
    lines = log_file.read_text().splitlines(keepends=True)
    header = json.loads(lines[0][2:lines[0].rindex(" *")])
    log.area.begin([log._header(header)] + lines[1:])
    base = 2 * 1024 * 1024 - storage_blocks * 4096
    with open(image, "r+b") as f:
        f.seek(base)
        f.write(tmp.read_bytes())


def harness_project():
    # The harness reads the engine and the board files from PROJECT: a
    # folder of links into this checkout, laid out as it expects.
    project = Path(tempfile.mkdtemp(prefix="tb-emu-"))
    (project / "src" / "turtleboard").mkdir(parents=True)
    (project / "firmware").symlink_to(REPO / "firmware")
    (project / "src" / "turtleboard" / "boards").symlink_to(REPO / "boards")
    return project


def new_and_boot(kind):
    # `new` timed on the device (three after the boot) and the boot with the
    # 900-action Mahe game, the flash chip's time charged (the harness's default).
    env = dict(os.environ, PROJECT=str(harness_project()))
    py = env["VENV_BIN"] + "/python"
    scripts = Path(env["EMU_ROOT"]) / "scripts"
    name = "newboot-%s-%d" % (kind, os.getpid())
    work = Path(env["EMU_ROOT"]) / "work" / name
    out = {"image": image_info(env["FW_STOCK" if kind == "stock" else "FW_ROMFS"]), "flash_timing": "typ"}
    run(env, py, str(scripts / "emuctl.py"), "start", name, kind, "--fresh")
    try:
        time.sleep(25)
        r = run(env, py, str(scripts / "timed_flash.py"), name, "--board", "tortuga",
                "--" + ("files" if kind == "stock" else "romfs"))
        if "FLASHTIME " not in r.stdout:
            raise SystemExit("turtleboard flash failed: " + (r.stdout + r.stderr)[-1500:])
        out["new_ms"] = time_new(env, work)
        if kind == "stock":
            out["log_files"] = time_making(env, work)
        out["boot_to_hello_ms"] = boot_with_a_long_game(env, name, kind, work)
    finally:
        run(env, py, str(scripts / "emuctl.py"), "stop", name)
    out["firmware"] = "commit " + subprocess.run(["git", "-C", str(REPO), "describe", "--always", "--dirty"],
                                                 capture_output=True, text=True).stdout.strip()
    out["when"] = time.strftime("%Y-%m-%d")
    return out


def main():
    missing = [k for k in NEED if not os.environ.get(k)]
    if missing:
        sys.exit("set %s first: the emulated Pico is set up outside the repository "
                 "(../shared/pico-emu/README.md says how; this file's docstring lists what each is)"
                 % ", ".join(missing))
    if sys.argv[1:2] == ["--new-boot"]:  # only `new` and the boot with the long game, on a fresh emulator
        kind = sys.argv[2]
        got = new_and_boot(kind)
        results = json.loads(RESULTS.read_text()) if RESULTS.exists() else {}
        results.setdefault("new_and_boot", {})[kind] = got
        RESULTS.write_text(json.dumps(results, indent=1) + "\n")
        print(json.dumps(got, indent=1))
        return
    if sys.argv[1:2] == ["--after"]:  # only the boot, on an emulator NAME that bench left flashed
        name, kind = sys.argv[2], sys.argv[3]
        work = Path(os.environ["EMU_ROOT"]) / "work" / name
        env = dict(os.environ)
        run(env, env["VENV_BIN"] + "/python", str(Path(env["EMU_ROOT"]) / "scripts" / "emuctl.py"), "start", name, kind)
        try:
            time.sleep(20)
            quiet = None if "--boot" in sys.argv else quiet_cycles(env, name)
            got = boot_with_a_long_game(env, name, kind, work)
        finally:
            run(env, env["VENV_BIN"] + "/python", str(Path(env["EMU_ROOT"]) / "scripts" / "emuctl.py"), "stop", name)
        results = json.loads(RESULTS.read_text())
        results.setdefault(kind, {})["boot_to_hello_ms"] = got
        if quiet is not None:
            results[kind]["quiet_cycle_ms"] = quiet
        RESULTS.write_text(json.dumps(results, indent=1) + "\n")
        print(json.dumps({"quiet_cycle_ms": quiet, "boot_to_hello_ms": got}, indent=1))
        return
    moves = int(sys.argv[1]) if len(sys.argv) > 1 and sys.argv[1].isdigit() else 30
    kinds = [a for a in sys.argv[1:] if a in ("stock", "romfs")] or ["stock", "romfs"]
    project = harness_project()
    env = dict(os.environ, PROJECT=str(project))
    results = json.loads(RESULTS.read_text()) if RESULTS.exists() else {}
    results["about"] = ("emulated RP2040 (rp2040js) at 125 MHz, MicroPython v1.28.0 rp2 port; "
                        "emulated ms (a real Pico ~1.3x slower); the runs of issue 36 on charge the flash chip's "
                        "time (typ: 45 ms a 4 KB sector erased, 0.7 ms a 256-byte page); older runs did not")
    commit = subprocess.run(["git", "-C", str(REPO), "describe", "--always", "--dirty"],
                            capture_output=True, text=True).stdout.strip()
    for kind in kinds:
        print("measuring", kind, "...", flush=True)
        got = measure(kind, moves, env, project)
        got["when"] = time.strftime("%Y-%m-%d")
        got["firmware"] = "commit %s" % commit
        # what other benches keep under this image stays; what this run
        # measured again moves to the_run_before
        prev = results.get(kind, {})
        before = {k: prev[k] for k in got if k in prev}
        results[kind] = dict(prev, **got)
        results[kind]["the_run_before"] = before
        print(json.dumps(got, indent=1), flush=True)
        RESULTS.write_text(json.dumps(results, indent=1) + "\n")


if __name__ == "__main__":
    main()
