"""The registry of pattern kinds is the one list: every kind module is found, declares a coherent
entry, and the lists derived elsewhere (docs, checks, questions, prompts) follow it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tools.patterns.model import KINDS
from tools.patterns.registry import PatternKind, all_kinds, get_kind, register

ROOT = Path(__file__).resolve().parents[3]
KIND_FILES = sorted(p.stem for p in (ROOT / "tools" / "patterns" / "kinds").glob("[!_]*.py"))


def test_each_module_of_the_kinds_package_is_one_registered_kind():
    assert sorted(k.name for k in all_kinds()) == KIND_FILES
    assert KINDS == [k.name for k in all_kinds()] + ["cascade"]
    assert all(get_kind(name).source == f"tools.patterns.kinds.{name}" for name in KIND_FILES)


@pytest.mark.parametrize("kind", all_kinds(), ids=lambda k: k.name)
def test_each_entry_is_coherent(kind: PatternKind):
    assert kind.model.__doc__ and kind.summary
    assert kind.check({"keys": ["x"]}) in {"values", "missing_rows", "behavior", "arrivals", "none"}
    assert kind.inject is not None or kind.removes_rows or kind.shifts_behaviour  # it acts on something
    assert kind.placement != "effects" or "effects" in kind.model.model_fields
    assert kind.placement != "keys" or "keys" in kind.model.model_fields
    if kind.words:
        re.compile(kind.words)
    assert kind.phrase(_words()) and "{" not in kind.phrase(_words())


def _words():
    from tools.patterns.registry import Words

    return Words("latency", "session", "sessions", "checkout")


def test_the_docs_table_lists_exactly_the_registered_kinds():
    text = (ROOT / "docs" / "SPEC.md").read_text(encoding="utf-8")
    table = text[text.index("### Incidents"):].split("\n\n")[2]
    documented = {k for row in table.splitlines()[2:] for k in re.findall(r"`([a-z_]+)`", row.split("|")[1])}
    assert documented == set(KINDS)


def test_a_module_without_a_kind_entry_or_with_a_taken_name_is_refused():
    import types

    with pytest.raises(ValueError, match="declares KIND"):
        register(types.ModuleType("no_kind"))
    clash = types.ModuleType("clash")
    clash.KIND = get_kind("spike")
    with pytest.raises(ValueError, match="already registered"):
        register(clash)
