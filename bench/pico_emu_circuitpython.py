"""The firmware on CircuitPython beside MicroPython, on the emulated RP2040
(rp2040js, ../shared/pico-emu), flash timing on (typ), the same harness and
the same firmware for both: CircuitPython 10.2.1 for raspberry_pi_pico built
from source, the firmware put on its CIRCUITPY drive by `turtleboard flash
--drive` (the CircuitPython way: code.py, boot.py, .mpy files for
CircuitPython, lib/neopixel); MicroPython 1.28 RPI_PICO with the firmware as
files (`turtleboard flash --files`), as bench/pico_emu.py measures it.

For each: MOVES seeded Tortuga moves through the sensors (every `action`
frame checked against the engine, the LEDs on the wire against the host's
view), sensor -> `action` latency, the committing and quiet control cycles,
the flash erases and programs of play, the live heap playing Tortuga
(bench/pico_emu_heap.py), the boot to `hello` with a 900-action Mahe game in
the log. Emulated time: a real Pico is ~1.3x slower (code runs from flash
through a 16 KB cache).

The emulated CIRCUITPY drive is the FAT that CircuitPython makes in the
emulated flash at 1 MiB (its CIRCUITPY_FIRMWARE_SIZE, 1020 KB, and 4 KB of
nvm): with no loop mount here, its files are copied out into a folder with
mtools (`apt-get install mtools`), `turtleboard flash --drive FOLDER` writes
the firmware there, and the folder is copied back.

The harness needs two changes to run CircuitPython (both in pico-emu.mjs):
the flash chip select's pad reads high when floated (CircuitPython senses
BOOTSEL that way at boot; rp2040js leaves the QSPI pads without input
enable, so it read "pressed" for ever), and the PIO runs on the emulated
clock (rp2040js steps it on a JS timer, so CircuitPython's PIO-driven
NeoPixels had no timing and the CPU waited on its FIFO for however long the
simulator ran between ticks). docs/firmware.md says more.

    EMU_ROOT, VENV_BIN as for bench/pico_emu.py; FW_CIRCUITPY the CircuitPython
    firmware.bin; FW_STOCK MicroPython v1.28.0 RPI_PICO
    python bench/pico_emu_circuitpython.py [MOVES] [circuitpython] [micropython]
    (results: bench/results/pico-emu-circuitpython.json)
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))
from pico_emu import harness_project, image_info, quiet_cycles, run, summary  # noqa: E402  (the MicroPython bench's)

RESULTS = HERE / "results" / "pico-emu-circuitpython.json"
NEED = ("EMU_ROOT", "VENV_BIN", "FW_CIRCUITPY", "FW_STOCK")
FAT_AT = 1024 * 1024  # the CIRCUITPY FAT in the flash image


def mtools(*args):
    env = dict(os.environ, MTOOLS_SKIP_CHECK="1")
    return subprocess.run(list(args), env=env, capture_output=True, text=True)


def pull(image, folder):
    """The emulated CIRCUITPY drive's files into `folder`."""
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    r = mtools("mcopy", "-s", "-n", "-m", "-i", "%s@@%d" % (image, FAT_AT), "::/*", str(folder) + "/")
    if r.returncode:
        raise SystemExit("mcopy could not read the CIRCUITPY drive: " + r.stderr[-500:])


def push(image, folder):
    """Make the emulated drive hold exactly `folder`'s files."""
    fat = "%s@@%d" % (image, FAT_AT)
    listed = mtools("mdir", "-i", fat, "-/", "-b", "::/").stdout.split()
    have = [p[3:] for p in listed if not p.endswith("/")]
    want = sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file())
    for p in have:
        if p not in want:
            mtools("mdel", "-i", fat, "::/" + p)
    for p in want:
        if "/" in p:
            mtools("mmd", "-D", "s", "-i", fat, "::/" + p.rsplit("/", 1)[0])
        r = mtools("mcopy", "-o", "-m", "-i", fat, str(folder / p), "::/" + p)
        if r.returncode:
            raise SystemExit("mcopy could not write %s: %s" % (p, r.stderr[-300:]))


class Board:
    """One emulated Pico, on a fresh flash: CircuitPython, the firmware on its
    CIRCUITPY drive; or MicroPython, the firmware as files through its REPL."""

    def __init__(self, env, kind):
        self.kind, self.name = kind, "bench-%s-%d" % (kind, os.getpid())
        # emuctl.py's "stock" image: FW_STOCK
        self.env = dict(env, FW_STOCK=env["FW_CIRCUITPY" if kind == "circuitpython" else "FW_STOCK"])
        self.py = env["VENV_BIN"] + "/python"
        self.scripts = Path(env["EMU_ROOT"]) / "scripts"
        self.work = Path(env["EMU_ROOT"]) / "work" / self.name
        self.image = self.work / "flash.img"

    def emuctl(self, *args):
        return run(self.env, self.py, str(self.scripts / "emuctl.py"), args[0], self.name, *args[1:])

    def stats(self):
        return json.loads(run(self.env, self.py, str(self.scripts / "ctlcmd.py"), self.name,
                              '{"stats": 1}').stdout)

    def wait_hello(self, seconds=900):
        for _ in range(seconds):
            s = self.stats()
            if s.get("hello_ns"):
                return s
            time.sleep(1)
        raise SystemExit("no hello from %s within %d s" % (self.name, seconds))

    def install(self, board, extra=None):
        """The firmware and `board` on, and `extra` files ({name: bytes});
        then powered off and on. -> what flash printed."""
        if self.kind == "micropython":
            # no restart by flash (its 20 s wait for hello is wall time; the emulator is
            # slow): powered off and on below
            r = run(self.env, self.py, str(self.scripts / "timed_flash.py"), self.name, "--board",
                    board, "--files", "--no-reset")
            if "FLASHTIME" not in r.stdout or '"rc": 0' not in r.stdout:
                raise SystemExit("turtleboard flash failed: " + (r.stdout + r.stderr)[-1500:])
            for name, data in (extra or {}).items():
                local = self.work / name
                local.write_bytes(data)
                gone = ("import os\nfor f in ('game.log.report', 'game.log.bad'):\n try: os.remove(f)\n"
                        " except OSError: pass")
                run(self.env, self.env["VENV_BIN"] + "/mpremote", "connect", str(self.work / "tty"),
                    "exec", gone, "+", "cp", str(local), ":" + name, timeout=1800)
            self.emuctl("stop")
            (self.work / "lines.log").write_text("")
            self.emuctl("start", "stock")
            return r.stdout
        self.emuctl("stop")
        folder = Path(tempfile.mkdtemp(prefix="tb-circuitpy-"))
        try:
            pull(self.image, folder / "CIRCUITPY")
            r = run(self.env, self.env["VENV_BIN"] + "/turtleboard", "flash", "--board", board,
                    "--drive", str(folder / "CIRCUITPY"))
            if r.returncode:
                raise SystemExit("turtleboard flash --drive failed: " + (r.stdout + r.stderr)[-1500:])
            for name, data in (extra or {}).items():
                (folder / "CIRCUITPY" / name).write_bytes(data)
            for name in ("game.log.report", "game.log.bad"):
                (folder / "CIRCUITPY" / name).unlink(missing_ok=True)
            push(self.image, folder / "CIRCUITPY")
        finally:
            shutil.rmtree(folder, ignore_errors=True)
        (self.work / "lines.log").write_text("")
        self.emuctl("start", "stock")
        return r.stdout

    def start_fresh(self):
        self.emuctl("start", "stock", "--fresh")
        for _ in range(900):  # a fresh flash: the filesystem is made (CircuitPython: boot_out.txt)
            if self.kind == "micropython":
                r = run(self.env, self.env["VENV_BIN"] + "/mpremote", "connect",
                        str(self.work / "tty"), "exec", "print('ready')", timeout=120)
                if "ready" in r.stdout:
                    return
            elif mtools("mtype", "-i", "%s@@%d" % (self.image, FAT_AT), "::/boot_out.txt").returncode == 0:
                time.sleep(2)
                return
            time.sleep(2)
        raise SystemExit("the emulated %s did not come up" % self.kind)


def raw_run(tty, code, timeout=1800):
    """`code` run in CircuitPython's raw REPL (mpremote cannot enter it: after
    Ctrl-C CircuitPython waits for a key): -> what it printed. CircuitPython
    runs the REPL in a fresh VM once code.py has stopped."""
    import serial

    s = serial.Serial(str(tty), 115200, timeout=0.2)

    def until(mark, key=None):
        got, end, nxt = b"", time.time() + timeout, 0
        while not got.endswith(mark):
            if time.time() > end:
                raise SystemExit("no %r from %s: %r" % (mark, tty, got[-300:]))
            if key and time.time() > nxt:
                s.write(key)
                nxt = time.time() + 1
            got += s.read(4096)
        return got

    try:
        s.write(b"\r\x03\x03")
        until(b">>> ", key=b"\r")
        s.write(b"\x01")
        until(b"raw REPL; CTRL-B to exit\r\n>")
        s.write(code.encode() + b"\x04")
        out = until(b"\x04>")
        s.write(b"\x02\x04")  # the friendly REPL, a soft reload: code.py runs again
        return out.decode(errors="replace")
    finally:
        s.close()


def heap(b):
    code = (HERE / "pico_emu_heap.py").read_text()
    if b.kind == "circuitpython":
        stdout = raw_run(b.work / "tty", code)
    else:
        stdout = run(b.env, b.env["VENV_BIN"] + "/mpremote", "connect", str(b.work / "tty"),
                     "soft-reset", "run", str(HERE / "pico_emu_heap.py"), timeout=1800).stdout
    line = [x for x in stdout.splitlines() if x.startswith("HEAP ")]
    if not line:
        return {"error": stdout[-800:]}
    words = line[0].split()
    return {words[i]: int(words[i + 1]) for i in range(1, len(words) - 1, 2)}


def measure(kind, moves, env):
    b = Board(env, kind)
    image = env["FW_CIRCUITPY" if kind == "circuitpython" else "FW_STOCK"]
    out = {"image": image_info(image),
           "deploy": "CIRCUITPY drive, .mpy for CircuitPython" if kind == "circuitpython" else "files, .mpy"}
    b.start_fresh()
    try:
        out["flash_output"] = [x for x in b.install("tortuga").splitlines() if "files," in x]
        s = b.wait_hello()
        out["boot_to_hello_ms_tortuga_no_game"] = s["hello_ns"] / 1e6
        before = b.stats()
        run(b.env, b.py, str(HERE / "pico_emu_play.py"), b.name, str(moves), "1")
        after = b.stats()
        play = json.loads((b.work / "play30.json").read_text())
        lats = [m["latency_ms"] for m in play["moves"] if m["latency_ms"] is not None]
        failed = [c for c in play["checks"] if not c[1]]
        out["play"] = {"moves": len(play["moves"]), "checks": len(play["checks"]),
                       "failed": failed[:5], "sensor_to_action_ms": summary(lats),
                       "flash_during_play": {k: after["flash"][k] - before["flash"][k]
                                             for k in ("erase", "program", "stall_ns")}}
        run(b.env, b.py, str(b.scripts / "cycles.py"), b.name, "action")
        cyc = json.loads((b.work / "cycles-action.json").read_text())
        out["cycles"] = {"all_us": cyc["summary"],
                         "committing_ms": summary([x["containing_ms"] for x in cyc["rows"]])}
        out["quiet_cycle_ms"] = quiet_cycles(b.env, b.name)
        out["heap_bytes"] = heap(b)
        out["boot_to_hello_ms"] = boot_with_a_long_game(b)
    finally:
        b.emuctl("stop")
    return out


def boot_with_a_long_game(b):
    # As bench/pico_emu.py's: the Mahe board and a 900-action Mahe game in
    # game.log, as the device writes it; power off and on: hello must show
    # the game restored (its snapshot loaded, the actions after it replayed).
    from pico import LOG_ACTIONS, write_boot_files

    folder = Path(tempfile.mkdtemp(prefix="tb-log-"))
    (folder / "board.json").write_text((REPO / "boards" / "mahe.json").read_text())
    expect = write_boot_files(folder)
    b.install("mahe", {"game.log": (folder / "game.log").read_bytes()})
    shutil.rmtree(folder, ignore_errors=True)
    stats = b.wait_hello()
    lines = (b.work / "lines.log").read_text(errors="replace").splitlines()
    hello = [x for x in lines if " hello {" in x]
    said = json.loads(hello[-1][hello[-1].index("{"):hello[-1].rindex("}") + 1]) if hello else {}
    want = "%08x" % int(expect["LOG_HASH"])
    restored = (said.get("game") == "mahe" and said.get("n") == LOG_ACTIONS
                and said.get("hash") == want and said.get("log") is None)
    return {"actions": LOG_ACTIONS, "ms": stats["hello_ns"] / 1e6, "restored": restored,
            "hello": {k: said.get(k) for k in ("board", "game", "n", "hash", "log")},
            "flash": stats["flash"]}


def main():
    missing = [k for k in NEED if not os.environ.get(k)]
    if missing:
        sys.exit("set %s first (this file's docstring says what each is)" % ", ".join(missing))
    moves = int(sys.argv[1]) if len(sys.argv) > 1 and sys.argv[1].isdigit() else 50
    kinds = [a for a in sys.argv[1:] if a in ("circuitpython", "micropython")] or [
        "circuitpython", "micropython"]
    env = dict(os.environ, PROJECT=str(harness_project()))
    results = json.loads(RESULTS.read_text()) if RESULTS.exists() else {}
    results["about"] = ("emulated RP2040 (rp2040js) at 125 MHz, flash timing typ (W25Q16JV: 45 ms a 4 KB "
                        "sector erased, 0.7 ms a 256-byte page); emulated ms (a real Pico ~1.3x slower); "
                        "the same firmware and harness for both")
    commit = subprocess.run(["git", "-C", str(REPO), "describe", "--always", "--dirty"],
                            capture_output=True, text=True).stdout.strip()
    for kind in kinds:
        print("measuring", kind, "...", flush=True)
        got = measure(kind, moves, env)
        got["when"] = time.strftime("%Y-%m-%d")
        got["firmware"] = "commit %s" % commit
        results[kind] = got
        print(json.dumps(got, indent=1), flush=True)
        RESULTS.write_text(json.dumps(results, indent=1, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
