"""What the README and the docs say is true: the layout names every folder,
the docs list names every doc, every repository path a doc names exists, the
Pythons said agree with the package's metadata, and the two set-up commands
make their venv with the Python asked for (`make test PYTHON=...`)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tomllib
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()
DOCS = sorted((ROOT / "docs").glob("*.md"))
# what a checkout, a build or the sdist leaves at the top that is no part of the project
NOT_PROJECT = re.compile(r"^(\..*|build|dist|var|__pycache__|.*\.egg-info|turtleboard-sim)$")


def section(text: str, heading: str) -> str:
    start = text.index("\n## %s\n" % heading)
    end = text.find("\n## ", start + 1)
    return text[start:end if end >= 0 else len(text)]


def layout_entries() -> dict[str, str]:
    """The README's layout: each entry (first word of a line) -> its text."""
    entries, name = {}, None
    for line in section(README, "Layout").splitlines():
        m = re.match(r"^    (\S+)\s*(.*)", line)
        if m and not line.startswith("     "):
            name = m.group(1)
            entries[name] = m.group(2)
        elif name and line.startswith("     "):
            entries[name] += " " + line.strip()
    return entries


def test_the_readme_layout_names_every_top_level_folder_and_every_part_of_the_tool():
    entries = layout_entries()
    tops = [p.name + "/" for p in ROOT.iterdir() if p.is_dir() and not NOT_PROJECT.match(p.name)]
    named = {e.split("/")[0] + "/" for e in entries}
    assert set(tops) <= named, sorted(set(tops) - named)
    for entry in entries:  # and nothing that is not there
        assert (ROOT / entry).exists(), entry
    for name in ("pyproject.toml", "Makefile", "MANIFEST.in", ".ci/run"):
        assert name in entries, name
    host = entries["host/"]
    for part in (ROOT / "host").iterdir():
        if (part / "__init__.py").exists():
            assert part.name + "/" in host, part.name
    tools = entries["tools/"]
    for tool in (ROOT / "tools").glob("*.py"):
        assert tool.name in tools, tool.name


def test_the_readme_names_every_doc():
    docs = section(README, "Layout")
    missing = [d.name for d in (ROOT / "docs").iterdir() if d.name not in docs]
    assert not missing, missing


# A repository path in backticks: a top-level folder, then more of the path.
TOP_NAMES = "|".join(re.escape(p.name) for p in ROOT.iterdir()
                     if p.is_dir() and not NOT_PROJECT.match(p.name))
PATH = re.compile(r"(?<![\w/.-])((?:%s|\.ci)/[\w./{},*-]*)" % TOP_NAMES)


def expand(path: str) -> list[str]:
    """`firmware/turtles/{game,rng}.py` -> both paths."""
    m = re.search(r"\{([^{}]*)\}", path)
    if not m:
        return [path]
    return [p for alt in m.group(1).split(",")
            for p in expand(path[:m.start()] + alt + path[m.end():])]


def dead_paths(text: str) -> list[str]:
    dead = []
    for code in re.findall(r"`([^`\n]+)`", text):
        for found in PATH.findall(code):
            for path in expand(found.rstrip(".,;:")):
                # written where the command runs (the mutation report: by a run
                # of `bench/simulate.py --mutations`), not kept in the repository
                if path.startswith(("bench/.peer", "dist/", "bench/results/simulate-mutations")):
                    continue
                if not (list(ROOT.glob(path)) if "*" in path else (ROOT / path).exists()):
                    dead.append(path)
    return dead


def test_every_repository_path_and_link_the_docs_name_exists():
    dead = {}
    for doc in [ROOT / "README.md", *DOCS, *ROOT.glob("micropython/boards/*/README.md")]:
        text = doc.read_text()
        links = [t for t in re.findall(r"\]\(([^)#\s]+)", text)
                 if "://" not in t and not (doc.parent / t).exists()]
        if dead_paths(text) + links:
            dead[doc.relative_to(ROOT).as_posix()] = dead_paths(text) + links
    assert not dead, dead


def test_a_dead_path_is_seen():
    assert dead_paths("`firmware/turtles/{game,nogame}.py`, `docs/web.md`") == \
        ["firmware/turtles/nogame.py"]


def test_the_pythons_said_are_the_ones_the_package_claims():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    lowest = tuple(int(x) for x in re.fullmatch(r">=(\d+)\.(\d+)",
                                                project["requires-python"]).groups())
    minors = sorted(int(c.rsplit(".", 1)[1]) for c in project["classifiers"]
                    if re.fullmatch(r"Programming Language :: Python :: 3\.\d+", c))
    # the classified ones: from requires-python's lowest on, none left out
    assert minors == list(range(lowest[1], minors[-1] + 1)), minors
    assert "tested on 3.%d-3.%d" % (minors[0], minors[-1]) in README
    # no range said anywhere starts below what the package runs on
    for path in [ROOT / "README.md", ROOT / "pyproject.toml", *DOCS]:
        text = re.sub(r"\(and 3\.\d+, below what Turtleboard needs\)", "", path.read_text())
        for low in re.findall(r"(?:CPython|Python) 3\.(\d+) ?[-–]", text):
            assert int(low) >= lowest[1], (path.name, "3.%s" % low)
    # who made it, named as the LICENSE names them; no invented addresses
    holder = re.search(r"Copyright \(c\) \d+ (.+)", (ROOT / "LICENSE").read_text()).group(1)
    assert project["authors"] == [{"name": holder}] == project["maintainers"]
    assert "urls" not in project


# --- the Makefile's Python -------------------------------------------------

needs_make = pytest.mark.skipif(shutil.which("make") is None, reason="no make on PATH")


def make(*args, timeout=60):
    # as typed in a fresh shell: not the variables of a `make test` that runs these tests
    env = {k: v for k, v in os.environ.items()
           if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL", "PYTHON", "VENV", "JOBS", "ARGS")}
    return subprocess.run(["make", "--no-print-directory", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=timeout)


def python_reporting(tmp_path: Path, minor: int) -> Path:
    """A stand-in for an installed CPython 3.<minor>: this Python, saying it is that one."""
    fake = tmp_path / ("python3.%d" % minor)
    fake.write_text("#!%s\nimport sys\nsys.version_info = (3, %d, 0, 'final', 0)\n"
                    "assert sys.argv[1] == '-c'\ncode = sys.argv[2]\nsys.argv = ['-c']\n"
                    "exec(compile(code, '<string>', 'exec'), {'__name__': '__main__'})\n"
                    % (sys.executable, minor))
    fake.chmod(0o755)
    return fake


@needs_make
def test_make_makes_its_venv_with_the_python_named(tmp_path):
    v = tmp_path / "v"
    r = make("-n", "demo", "PYTHON=" + sys.executable, "VENV=" + str(v))
    assert r.returncode == 0, r.stderr
    assert "%s -m venv %s" % (sys.executable, v) in r.stdout
    r = make("-n", "test", "VENV=" + str(v))  # python3 when none is named
    assert "python3 -m venv %s" % v in r.stdout


@needs_make
def test_make_refuses_a_python_too_old_in_one_line(tmp_path):
    v = tmp_path / "v"
    r = make(str(v / "bin" / "python"), "PYTHON=" + str(python_reporting(tmp_path, 10)),
             "VENV=" + str(v))
    assert r.returncode != 0
    said = [line for line in r.stderr.splitlines() if not line.startswith("make: ***")]
    assert len(said) == 1 and "Python 3.10" in said[0] and "3.11 or later" in said[0], r.stderr
    assert not v.exists()
    r = make(str(v / "bin" / "python"), "PYTHON=no-such-python3", "VENV=" + str(v))
    said = [line for line in r.stderr.splitlines() if not line.startswith("make: ***")]
    assert r.returncode != 0 and len(said) == 1 and "no-such-python3" in said[0], r.stderr


@needs_make
def test_make_says_when_the_venv_is_of_another_python(tmp_path):
    v = tmp_path / "v"
    venv.EnvBuilder(with_pip=False, symlinks=True).create(v)
    other = python_reporting(tmp_path, 10 if sys.version_info[:2] != (3, 10) else 12)
    r = make("-n", "test", "PYTHON=" + str(other), "VENV=" + str(v))
    assert r.returncode != 0
    assert "was made by Python %d.%d" % sys.version_info[:2] in r.stderr, r.stderr
    assert "rm -rf %s" % v in r.stderr and len(r.stderr.strip().splitlines()) == 1
    # the same Python as the venv's: no word, the commands as usual
    r = make("-n", "test", "PYTHON=" + sys.executable, "VENV=" + str(v))
    assert r.returncode == 0 and "pytest" in r.stdout, r.stderr
