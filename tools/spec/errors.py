"""Spec errors that name the file, the YAML path and line, and the fix."""

from __future__ import annotations

import re
from typing import Any

import yaml
from pydantic import ValidationError


class SpecError(ValueError):
    """A user error in a spec. ``problems`` holds ``(path, message)`` pairs; str() is the report."""

    def __init__(self, source: str, problems: list[tuple[str, str]], lines: dict[str, int] | None = None):
        self.source = source
        self.problems = problems
        self.lines = lines or {}
        super().__init__(self.render())

    def render(self) -> str:
        head = f"{self.source}: invalid spec ({len(self.problems)} problem{'s' * (len(self.problems) != 1)})"
        rows = []
        for path, msg in self.problems:
            line = self.lines.get(path)
            where = f"line {line}, " if line else ""
            rows.append(f"  - {where}{path or '(top level)'}: {msg}")
        return "\n".join([head, *rows])


def _clean_loc(loc: tuple, data: Any) -> list:
    """Drop pydantic's union tags (``dist.normal.std`` -> ``dist.std``) by walking the raw data."""
    out, node = [], data
    for part in loc:
        if isinstance(node, dict):
            if part in node:
                out.append(part)
                node = node[part]
            elif node.get("kind") == part or part in ("function-after", "function-before"):
                continue
            elif isinstance(part, str) and part.endswith("]"):
                continue
            else:
                out.append(part)
                node = None
        elif isinstance(node, list) and isinstance(part, int) and part < len(node):
            out.append(part)
            node = node[part]
        else:
            out.append(part)
            node = None
    return out


def render_path(parts: list) -> str:
    """``['entities', 1, 'states']`` -> ``entities[1].states``."""
    s = ""
    for p in parts:
        s += f"[{p}]" if isinstance(p, int) else (f".{p}" if s else str(p))
    return s


_FRIENDLY = {
    "extra_forbidden": "unknown field; check the spelling (`chronoeval schema` lists every field)",
    "missing": "required field is missing",
    "union_tag_not_found": "missing 'kind'; say which kind of distribution/noise this is",
}


def problems_from_validation(exc: ValidationError, data: Any) -> list[tuple[str, str]]:
    """Turn a pydantic ValidationError into ``(path, message)`` pairs, semantic ones split out."""
    out: list[tuple[str, str]] = []
    for err in exc.errors():
        parts = _clean_loc(tuple(err["loc"]), data)
        msg = _FRIENDLY.get(err["type"], err["msg"])
        msg = re.sub(r"^(Value|Assertion) error, ", "", msg)
        if err["type"] == "value_error" and re.match(r"^[\w\[\]\.]+: ", msg):
            for line in msg.splitlines():
                path, _, text = line.partition(": ")
                out.append((path, text))
            continue
        if err["type"] in ("greater_than", "greater_than_equal", "less_than", "less_than_equal"):
            msg = f"{msg.replace('Input should be', 'must be')} (got {err.get('input')!r})"
        elif err["type"] in ("int_parsing", "int_type", "int_from_float"):
            msg = f"must be a whole number (got {err.get('input')!r})"
        elif err["type"] == "finite_number":
            msg = f"must be a finite number, not {err.get('input')!r}"
        elif err["type"] in ("float_parsing", "float_type"):
            msg = f"must be a number (got {err.get('input')!r})"
        elif err["type"] == "union_tag_invalid":
            ctx = err.get("ctx", {})
            msg = f"unknown kind {ctx.get('tag')!r}; use one of {ctx.get('expected_tags')}"
        if err["type"] == "extra_forbidden" and parts:
            msg = f"unknown field '{parts[-1]}'; check the spelling (`chronoeval schema` lists every field)"
        out.append((render_path(parts), msg))
    return out


def yaml_lines(text: str) -> dict[str, int]:
    """Map every YAML path in ``text`` to its 1-based line number (best effort)."""
    try:
        root = yaml.compose(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except yaml.YAMLError:
        return {}
    lines: dict[str, int] = {}

    def walk(node, parts):
        lines.setdefault(render_path(parts), node.start_mark.line + 1)  # a key's own line wins
        if isinstance(node, yaml.MappingNode):
            for k, v in node.value:
                lines[render_path([*parts, k.value])] = k.start_mark.line + 1
                walk(v, [*parts, k.value])
        elif isinstance(node, yaml.SequenceNode):
            for i, v in enumerate(node.value):
                walk(v, [*parts, i])

    if root is not None:
        walk(root, [])
    return lines


def nearest_lines(problems: list[tuple[str, str]], lines: dict[str, int]) -> dict[str, int]:
    """For each problem path, the line of the deepest prefix of it found in the YAML."""
    out = {}
    for path, _ in problems:
        p = path
        while p and p not in lines:
            shorter = re.sub(r"(\.[^.\[]*|\[[^\]]*\])$", "", p)
            if shorter == p:
                break
            p = shorter
        if p in lines:
            out[path] = lines[p]
    return out
