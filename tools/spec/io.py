"""Load and dump specs (parse YAML text or a file path). The built-in packs are knowledge's files:
finding them by name is ``knowledge.packs``."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from tools.spec.errors import SpecError, nearest_lines, problems_from_validation, yaml_lines
from tools.spec.model import Spec

SafeBase = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml when present: ~10x faster on big files


class _StrictLoader(SafeBase):
    """A safe loader that rejects duplicate keys (the last one would silently win otherwise)."""


def _mapping_without_duplicates(loader: _StrictLoader, node: yaml.MappingNode, deep: bool = False):
    seen: dict = {}
    for key_node, _ in node.value:
        key = loader.construct_object(key_node, deep=deep)
        if key in seen:
            raise yaml.constructor.ConstructorError(
                None, None, f"duplicate key '{key}' (first on line {seen[key]}); keep only one", key_node.start_mark)
        seen[key] = key_node.start_mark.line + 1
    return loader.construct_mapping(node, deep=deep)


_StrictLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _mapping_without_duplicates)
# YAML 1.2 booleans only: states and labels called on/off/yes/no stay strings.
_StrictLoader.yaml_implicit_resolvers = {
    ch: [(tag, rx) for tag, rx in resolvers if tag != "tag:yaml.org,2002:bool"]
    for ch, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()}
_StrictLoader.add_implicit_resolver("tag:yaml.org,2002:bool", re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"),
                                    list("tTfF"))


MAX_SPEC_BYTES = 512_000
MAX_NODES = 200_000  # YAML nodes after alias expansion: an alias bomb is refused before it is built
MAX_DEPTH = 40


def _node_budget(root: yaml.Node | None) -> str | None:
    """Why the composed YAML is too big or too deep once aliases are expanded (None if it is fine);
    counts each shared node once per reference without expanding anything."""
    sizes: dict[int, int] = {}
    depths: dict[int, int] = {}
    active: set[int] = set()

    def visit(node: yaml.Node) -> tuple[int, int]:  # iterative would be nicer; depth is capped below
        key = id(node)
        if key in sizes:
            return sizes[key], depths[key]
        if key in active:
            raise _Refused("an alias refers to a node that contains it (a recursive alias); remove it")
        if len(active) > MAX_DEPTH:
            raise _Refused(f"nesting deeper than {MAX_DEPTH} levels; a spec never needs that")
        active.add(key)
        kids = ([c for kv in node.value for c in kv] if isinstance(node, yaml.MappingNode)
                else node.value if isinstance(node, yaml.SequenceNode) else [])
        size, depth = 1, 0
        for k in kids:
            s, d = visit(k)
            size, depth = size + s, max(depth, d + 1)
            if size > MAX_NODES:
                raise _Refused(f"more than {MAX_NODES:,} YAML nodes once aliases (*name) are expanded; "
                               "an alias bomb? write the values out or use fewer aliases")
        active.discard(key)
        sizes[key], depths[key] = size, depth
        return size, depth

    try:
        if root is not None:
            visit(root)
    except _Refused as exc:
        return str(exc)
    return None


class _Refused(Exception):
    pass


def _load_yaml(text: str) -> Any:
    loader = _StrictLoader(text)
    try:
        root = loader.get_single_node()
        problem = _node_budget(root)
        if problem:
            raise _Refused(problem)
        return None if root is None else loader.construct_document(root)
    finally:
        loader.dispose()


def parse_spec_text(text: str, source: str = "<spec>") -> Spec:
    """Validate YAML text into a Spec, or raise SpecError naming the path, line and fix.

    Refuses, with a SpecError, text over ``MAX_SPEC_BYTES``, alias bombs (``MAX_NODES`` after
    expansion) and nesting deeper than ``MAX_DEPTH``."""
    if len(text.encode("utf-8", "replace")) > MAX_SPEC_BYTES:
        raise SpecError(source, [("", f"is larger than {MAX_SPEC_BYTES // 1000} KB; a spec is a short YAML file "
                                      "(data belongs in the generated bundle)")])
    try:
        data = _load_yaml(text)
    except _Refused as exc:
        raise SpecError(source, [("", f"refused: {exc}")]) from None
    except RecursionError:
        raise SpecError(source, [("", f"nesting deeper than {MAX_DEPTH} levels; a spec never needs that")]) from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}, column {mark.column + 1}" if mark else "(unknown line)"
        problem = getattr(exc, "problem", None) or str(exc)
        fix = "" if "duplicate key" in problem else "; fix the indentation or quoting"
        raise SpecError(source, [(where, f"not valid YAML ({problem}){fix}")]) from None
    if not isinstance(data, dict):
        raise SpecError(source, [("", "the spec must be a YAML mapping with at least 'name' and 'entities'")])
    try:
        return Spec.model_validate(data)
    except RecursionError:
        raise SpecError(source, [("", "a value is nested too deeply (a formula with thousands of terms?); "
                                      "simplify it")]) from None
    except ValidationError as exc:
        problems = problems_from_validation(exc, data)
        raise SpecError(source, problems, nearest_lines(problems, yaml_lines(text))) from None


def load_spec(path: str | Path) -> Spec:
    """Load a spec from a YAML file; raises SpecError (user error) for anything wrong with it."""
    p = Path(path)
    if p.is_dir():
        raise SpecError(str(p), [("", "is a directory; give a spec YAML file or a pack name (`chronoeval packs`)")])
    if not p.is_file():
        raise SpecError(str(p), [("", "file not found; give a spec YAML path or a pack name (`chronoeval packs`)")])
    if p.stat().st_size > MAX_SPEC_BYTES:
        raise SpecError(str(p), [("", f"is larger than {MAX_SPEC_BYTES // 1000} KB; a spec is a short YAML file")])
    try:
        text = p.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise SpecError(str(p), [("", "not a UTF-8 text file; a spec is YAML text")]) from None
    return parse_spec_text(text, str(p))


def spec_to_dict(spec: Spec) -> dict[str, Any]:
    """The spec as plain data, omitting defaults so dumps stay readable."""
    return json.loads(spec.model_dump_json(by_alias=True, exclude_defaults=True))


def dump_spec(spec: Spec) -> str:
    """YAML text that loads back to an equal Spec."""
    return yaml.safe_dump(spec_to_dict(spec), sort_keys=False, allow_unicode=True, width=100)


def spec_json_schema() -> dict[str, Any]:
    """JSON Schema of the spec (what `chronoeval schema` prints)."""
    return Spec.model_json_schema(by_alias=True)
