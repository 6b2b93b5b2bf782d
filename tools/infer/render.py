"""Spec YAML with provenance comments: the plain dump of tools.spec.io, with ``#`` lines inserted above
the fitted parts (located by their YAML path), so the file loads back to the same spec."""

from __future__ import annotations

from tools.spec.errors import yaml_lines
from tools.spec.io import dump_spec
from tools.spec.model import Spec


def render_spec(spec: Spec, comments: dict[str, list[str]], header: list[str]) -> str:
    """YAML text of ``spec`` with ``header`` on top and ``comments[path]`` above each path's line."""
    text = dump_spec(spec)
    lines = text.splitlines()
    where = yaml_lines(text)
    above: dict[int, list[str]] = {}
    for path, notes in comments.items():
        line = where.get(path)
        if line is None or not notes:
            continue
        above.setdefault(line - 1, []).extend(notes)
    out = [f"# {h}".rstrip() for h in header]
    for i, line in enumerate(lines):
        if i in above:
            indent = len(line) - len(line.lstrip(" "))
            out += [" " * indent + "# " + n.replace("\n", " ") for n in above[i]]
        out.append(line)
    return "\n".join(out) + "\n"
