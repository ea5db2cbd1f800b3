"""No import circles: no module of the package imports another that imports it
back, directly or through others, not even from inside a function.

Every .py under firmware/, host/ and boards/ is parsed (ast, nothing is
imported) under the name it is imported by: the device packages as the
device and the host import them (`turtles`, `controller`, `hal`, `main`), the
PC tool as `turtleboard.…`, the boards as `turtleboard.boards`. An import is
an edge to the deepest module of the package it names (`from . import flows`
names the module flows, `from . import new_game` the package's __init__);
imports of anything else (the standard library, third parties) are left out.
A strongly connected component of more than one module is a circle.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# folder -> the name its modules are imported under ("" : top-level names)
TREES = {"firmware": "", "host": "turtleboard", "boards": "turtleboard.boards"}
FIRMWARE_IN_HOST = "turtleboard.firmware."  # the installed tool's name for firmware/


def module_names(root: Path, trees: dict[str, str]) -> dict[str, Path]:
    """module name -> its file."""
    out = {}
    for folder, prefix in trees.items():
        for path in sorted((root / folder).rglob("*.py")):
            parts = list(path.relative_to(root / folder).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            name = ".".join(([prefix] if prefix else []) + parts)
            if name:
                out[name] = path
    return out


def imported(tree: ast.AST, name: str, is_package: bool, known: set[str]) -> set[str]:
    """The package's modules that the module `name` imports, anywhere in it."""
    def module(dotted: str) -> str | None:
        # the deepest module of the package that `dotted` names, or None
        if dotted.startswith(FIRMWARE_IN_HOST):
            dotted = dotted[len(FIRMWARE_IN_HOST):]
        parts = dotted.split(".")
        while parts and ".".join(parts) not in known:
            parts.pop()
        return ".".join(parts) or None

    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(module(alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                package = name.split(".") if is_package else name.split(".")[:-1]
                package = package[:len(package) - (node.level - 1)]
                base = ".".join(package + ([base] if base else []))
            for alias in node.names:
                sub = module(base + "." + alias.name)
                # `from base import x`: the module x if there is one, else base
                found.add(sub if sub is not None and sub != module(base) else module(base))
    found.discard(None)
    found.discard(name)
    return found


def import_graph(root: Path = ROOT, trees: dict[str, str] = TREES) -> dict[str, set[str]]:
    files = module_names(root, trees)
    known = set(files)
    return {
        name: imported(ast.parse(path.read_text(), str(path)), name, path.name == "__init__.py", known)
        for name, path in files.items()
    }


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return sorted(found)


def describe(graph: dict[str, set[str]], component: list[str]) -> str:
    """One circle through the component, as `a -> b -> a`, and its imports."""
    inside = set(component)
    path = [component[0]]
    while True:
        nxt = sorted(graph[path[-1]] & inside)
        step = next((m for m in nxt if m == path[0]), None) or next((m for m in nxt if m not in path), None)
        if step is None:  # every way on goes back into the path: close it there
            step = nxt[0]
        path.append(step)
        if step in path[:-1]:
            inside_edges = ["%s imports %s" % (a, b) for a in component for b in sorted(graph[a] & inside)]
            return "%s (%s)" % (" -> ".join(path[path.index(step):]), ", ".join(inside_edges))


def test_no_module_imports_one_that_imports_it_back():
    graph = import_graph()
    assert "controller.control" in graph and "turtleboard.cli" in graph and "turtles.game" in graph
    problems = [describe(graph, c) for c in circles(graph)]
    assert not problems, "import circles; break each by moving what is shared, not by an import " \
        "inside a function: " + "; ".join(problems)


def test_a_circle_through_a_function_local_import_is_found(tmp_path):
    pkg = tmp_path / "fw" / "pkg"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "game.py").write_text("def record():\n    from .record import write\n    return write()\n")
    (pkg / "record.py").write_text("from .game import VERSION\n")
    (pkg / "other.py").write_text("from pkg import game\nimport json\n")
    graph = import_graph(tmp_path, {"fw": ""})
    assert graph["pkg.other"] == {"pkg.game"}
    assert circles(graph) == [["pkg.game", "pkg.record"]]
    assert describe(graph, ["pkg.game", "pkg.record"]) == \
        "pkg.game -> pkg.record -> pkg.game (pkg.game imports pkg.record, pkg.record imports pkg.game)"


def test_a_circle_through_a_package_init_is_found(tmp_path):
    pkg = tmp_path / "host"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("from turtleboard.sub.a import X\n")
    (pkg / "sub" / "__init__.py").write_text("")
    (pkg / "sub" / "a.py").write_text("from .. import helper\n")
    graph = import_graph(tmp_path, {"host": "turtleboard"})
    assert graph["turtleboard.sub.a"] == {"turtleboard"}
    assert circles(graph) == [["turtleboard", "turtleboard.sub.a"]]
