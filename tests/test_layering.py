"""The layering docs/ARCHITECTURE.md promises, checked on the source's import statements.

- tools/ (the deterministic core) imports none of agents, graph, knowledge, prompts;
- knowledge/ imports neither agents nor graph; agents/ do not import graph;
- no import cycle between the top-level packages, nor between tools' subpackages;
- no module over 300 lines.

Every import counts, including imports inside functions and under TYPE_CHECKING: each is a
dependency a reader has to follow.
"""

from __future__ import annotations

import ast
import shutil
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("tools", "knowledge", "prompts", "agents", "graph")
FORBIDDEN = {
    "tools": {"agents", "graph", "knowledge", "prompts"},
    "knowledge": {"agents", "graph"},
    "agents": {"graph"},
}
MAX_LINES = 300


@dataclass(frozen=True)
class ImportEdge:
    """One import statement: the importing file, its line, and the module imported."""

    file: str
    line: int
    source: str
    target: str


def _module_name(root: Path, path: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _resolve_relative(module: str, is_package: bool, level: int, name: str | None) -> str:
    base = module.split(".")
    base = base if is_package else base[:-1]
    base = base[: len(base) - (level - 1)]
    return ".".join(base + ([name] if name else []))


def _submodule(root: Path, package: str, name: str) -> str:
    """`from package import name`: the submodule when `name` is one, else the package."""
    where = root.joinpath(*package.split("."), name)
    return f"{package}.{name}" if where.with_suffix(".py").exists() or where.is_dir() else package


def import_edges(root: Path) -> list[ImportEdge]:
    """Every import of one of PACKAGES made by a module of PACKAGES under `root`."""
    edges = []
    for package in PACKAGES:
        for path in sorted((root / package).rglob("*.py")):
            module = _module_name(root, path)
            tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
            for node in ast.walk(tree):
                if isinstance(node, ast.Import):
                    targets = [alias.name for alias in node.names]
                elif isinstance(node, ast.ImportFrom):
                    target = node.module or ""
                    if node.level:
                        target = _resolve_relative(module, path.name == "__init__.py", node.level, node.module)
                    targets = [_submodule(root, target, alias.name) for alias in node.names]
                else:
                    continue
                rel = path.relative_to(root).as_posix()
                edges += [ImportEdge(rel, node.lineno, module, t) for t in targets
                          if t.split(".")[0] in PACKAGES]
    return edges


def unit(module: str) -> str:
    """The node a module belongs to: its top-level package, or `tools.<sub>` inside tools."""
    parts = module.split(".")
    return ".".join(parts[:2]) if parts[0] == "tools" and len(parts) > 1 else parts[0]


def layering_violations(edges: list[ImportEdge]) -> list[str]:
    """Imports that go against FORBIDDEN, as 'file:line imports target'."""
    return [f"{e.file}:{e.line} imports {e.target} ({e.source.split('.')[0]} must not import "
            f"{e.target.split('.')[0]})" for e in edges
            if e.target.split(".")[0] in FORBIDDEN.get(e.source.split(".")[0], set())]


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one node (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def package_cycles(edges: list[ImportEdge]) -> list[str]:
    """Import cycles between top-level packages and between tools' subpackages, each with the
    imports that close it."""
    problems = []
    for name, key in (("packages", lambda m: m.split(".")[0]), ("tools subpackages", unit)):
        graph: dict[str, set[str]] = {}
        for e in edges:
            src, dst = key(e.source), key(e.target)
            if src != dst and (name == "packages" or src.startswith("tools.") and dst.startswith("tools.")):
                graph.setdefault(src, set()).add(dst)
        for component in _cycles(graph):
            members = set(component)
            witnesses = sorted({f"{e.file}:{e.line} → {e.target}" for e in edges
                                if key(e.source) in members and key(e.target) in members
                                and key(e.source) != key(e.target)})
            problems.append(f"cycle between {name} {' ↔ '.join(component)}: " + "; ".join(witnesses[:8]))
    return problems


def long_modules(root: Path) -> list[str]:
    """Modules over MAX_LINES lines."""
    return [f"{p.relative_to(root)}: {n} lines" for package in PACKAGES
            for p in sorted((root / package).rglob("*.py"))
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_LINES]


def test_layers_hold():
    assert layering_violations(import_edges(ROOT)) == []


def test_no_import_cycles():
    assert package_cycles(import_edges(ROOT)) == []


def test_no_module_over_300_lines():
    assert long_modules(ROOT) == []


def _copy_tree(tmp_path: Path) -> Path:
    for package in PACKAGES:
        shutil.copytree(ROOT / package, tmp_path / package,
                        ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "*.yaml", "*.md", "*.json"))
    return tmp_path


def test_a_bad_import_is_caught(tmp_path):
    root = _copy_tree(tmp_path)
    core = root / "tools" / "sqlsafe.py"
    core.write_text(core.read_text() + "\n\ndef _late():\n    from graph import cli  # noqa\n")
    knowledge = root / "knowledge" / "__init__.py"
    knowledge.write_text(knowledge.read_text() + "\nfrom agents import models  # noqa\n")
    found = layering_violations(import_edges(root))
    assert any(v.startswith("tools/sqlsafe.py:") and "imports graph" in v for v in found)
    assert any(v.startswith("knowledge/__init__.py:") and "imports agents.models" in v for v in found)


def test_an_import_cycle_is_caught(tmp_path):
    root = _copy_tree(tmp_path)
    for name, other in (("zz_left", "zz_right"), ("zz_right", "zz_left")):
        (root / "tools" / name).mkdir()
        (root / "tools" / name / "__init__.py").write_text(f"from tools.{other} import thing  # noqa\n")
    (root / "prompts" / "uses_memory.py").write_text("import knowledge.store  # noqa\n")
    (root / "knowledge" / "uses_prompts.py").write_text("from prompts import base  # noqa\n")
    cycles = package_cycles(import_edges(root))
    assert any(c.startswith("cycle between tools subpackages tools.zz_left ↔ tools.zz_right") for c in cycles)
    assert any(c.startswith("cycle between packages knowledge ↔ prompts") and "knowledge/uses_prompts.py:1" in c
               for c in cycles)


def test_relative_imports_are_resolved(tmp_path):
    (tmp_path / "agents").mkdir()
    (tmp_path / "agents" / "__init__.py").write_text("from .x import y  # noqa\n")
    (tmp_path / "agents" / "x.py").write_text("from ..graph import cli  # noqa\n")
    for package in PACKAGES:
        (tmp_path / package).mkdir(exist_ok=True)
    edges = import_edges(tmp_path)
    assert {e.target for e in edges} == {"agents.x", "graph"}
    assert layering_violations(edges) == ["agents/x.py:1 imports graph (agents must not import graph)"]


def test_a_long_module_is_caught(tmp_path):
    root = _copy_tree(tmp_path)
    (root / "prompts" / "huge.py").write_text("x = 1\n" * (MAX_LINES + 1))
    assert f"prompts/huge.py: {MAX_LINES + 1} lines" in long_modules(root)
