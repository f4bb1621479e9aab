"""The layout of the house (docs/architecture.md): which way imports run between the packages, read from the source
(every import, at the top of a module or inside a function; an import only for type checkers, under
``if TYPE_CHECKING:``, names a type and is left out).

From the bottom: ``sim`` (the rules and the engine) < ``strategies`` (the players) < ``experiments`` (experiment
files, runs, studies and their folders) < ``reports`` (what a folder says) < ``experiments.cli`` (the command line,
which may import everything). A module imports from its own layer and the layers below it only, and the modules of
``reports`` import one another without a circle."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("sim", "strategies", "experiments", "reports")
LAYERS = {"sim": 0, "strategies": 1, "experiments": 2, "reports": 3, "experiments.cli": 4}


def modules(root: Path | None = None) -> dict[str, Path]:
    """Every module of the project's packages: its dotted name -> its file."""
    out = {}
    for package in PACKAGES:
        for path in sorted(((root or ROOT) / package).rglob("*.py")):
            if "__pycache__" not in path.parts:
                out[module_name(path, root)] = path
    return out


def module_name(path: Path, root: Path | None = None) -> str:
    parts = path.relative_to(root or ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def imports(path: Path, root: Path | None = None) -> set[str]:
    """The project modules ``path`` imports (absolute names; ``from . import x`` gives ``package.x``)."""
    KNOWN = set(modules(root))  # noqa: N806
    name = module_name(path, root)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and _type_checking(node):
            for child in node.orelse:
                visit(child)
            return
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                target = ".".join([*base, node.module] if node.module else base)
            else:
                target = node.module or ""
            submodules = {f"{target}.{alias.name}" for alias in node.names} & KNOWN
            found.update(submodules or {target})  # ``from pkg import module`` imports the module, not what pkg holds
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(ast.parse(path.read_text(encoding="utf-8")))
    return {m for m in found if m.split(".")[0] in PACKAGES}


def layer(module: str) -> int:
    return LAYERS.get(module, LAYERS[module.split(".")[0]])


def graph() -> dict[str, set[str]]:
    """Module -> the project modules it imports (names that are not modules, e.g. a class, dropped)."""
    known = modules()
    return {name: {m for m in imports(path) if m in known and m != name} for name, path in known.items()}


def test_imports_run_down_the_layers_only():
    upward = [
        f"{module} imports {target}"
        for module, targets in graph().items()
        for target in sorted(targets)
        if layer(target) > layer(module)
    ]
    assert not upward, upward


def test_the_layer_check_catches_an_import_upwards(tmp_path):
    """The check reads function-level imports and skips only type-checking ones."""
    source = "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import reports\n\ndef f():\n    import reports\n"
    probe = tmp_path / "sim" / "probe.py"
    probe.parent.mkdir()
    probe.write_text(source)
    assert imports(probe, tmp_path) == {"reports"}
    assert layer("sim.probe") < layer("reports")
    probe.write_text(source.replace("def f():\n    import reports\n", ""))
    assert imports(probe, tmp_path) == set()


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []

    def strong(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                strong(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            part = []
            while True:
                w = stack.pop()
                on.discard(w)
                part.append(w)
                if w == v:
                    break
            if len(part) > 1:
                out.append(sorted(part))

    for v in sorted(edges):
        if v not in index:
            strong(v)
    return out


def test_cycles_finds_a_circle_and_only_circles():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


@pytest.mark.parametrize("package", ["reports", "strategies", "experiments"])
def test_no_circle_of_imports_inside_a_package(package):
    edges = {m: {t for t in ts if t.split(".")[0] == package} for m, ts in graph().items() if m.startswith(package)}
    assert cycles(edges) == []


def test_reading_a_rules_file_needs_no_phase():
    """``sim.rules`` (R-… numbers and D-… defaults from TOML) checks a file's law and note names against
    ``sim.rules.vocabulary``, not against the modules that give them effects: nothing it imports reaches a phase."""
    edges = graph()
    reached, todo = set(), ["sim.rules"]
    while todo:
        for target in edges.get(todo.pop(), ()):
            if target not in reached:
                reached.add(target)
                todo.append(target)
    assert not {m for m in reached if m.startswith("sim.phases") or m in ("sim.laws", "sim.notes", "sim.engine")}
