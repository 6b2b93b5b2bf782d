"""Load, dump and list specs and the built-in domain packs."""

from __future__ import annotations

import json
import re
from importlib import resources
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from tools.spec.errors import SpecError, nearest_lines, problems_from_validation, yaml_lines
from tools.spec.model import Spec


class _StrictLoader(yaml.SafeLoader):
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


def parse_spec_text(text: str, source: str = "<spec>") -> Spec:
    """Validate YAML text into a Spec, or raise SpecError naming the path, line and fix."""
    try:
        data = yaml.load(text, Loader=_StrictLoader)  # noqa: S506 - a SafeLoader subclass
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


def pack_dir() -> Path:
    return Path(str(resources.files("knowledge") / "packs"))


def list_packs() -> list[str]:
    """Names of the built-in domain packs."""
    return sorted(p.stem for p in pack_dir().glob("*.yaml"))


def pack_path(name: str) -> Path:
    return pack_dir() / f"{name}.yaml"


def load_pack(name: str) -> Spec:
    """Load a built-in pack by name (``telecom``); SpecError if there is no such pack."""
    p = pack_path(name)
    if not p.is_file():
        raise SpecError(name, [("", f"no such pack; available packs: {', '.join(list_packs())}")])
    return load_spec(p)


def resolve_spec(spec_or_pack: str) -> Spec:
    """A path to a YAML spec, or the name of a built-in pack."""
    p = Path(spec_or_pack)
    if p.suffix.lower() in (".yaml", ".yml", ".json") or p.exists():
        return load_spec(p)
    return load_pack(spec_or_pack)


def spec_json_schema() -> dict[str, Any]:
    """JSON Schema of the spec (what `chronoeval schema` prints)."""
    return Spec.model_json_schema(by_alias=True)
