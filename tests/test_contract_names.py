"""Template names are contract (docs/ARCHITECTURE.md, "Query templates"): the registry and the
document list the same names, each under its family."""

from __future__ import annotations

import re
from pathlib import Path

from tools.queries.registry import load_templates

DOC = Path(__file__).resolve().parents[1] / "docs" / "ARCHITECTURE.md"
SECTION = "## Query templates (names are part of the contract)"


def _documented() -> dict[str, str]:
    """{template: family line it is listed under} from the contract's section."""
    text = DOC.read_text(encoding="utf-8").split(SECTION, 1)[1].split("\n## ", 1)[0]
    found: dict[str, str] = {}
    label = ""
    for line in text.splitlines():
        head = re.match(r"(Stateless|Stateful|Incident|Opt-in families)[^:]*:", line)
        label = head.group(1).lower() if head else label
        for name in re.findall(r"`([a-z_]+)`", line):
            found.setdefault(name, label)
    return found


def test_every_registered_template_is_in_the_contract_under_its_family():
    documented = _documented()
    for name, template in load_templates().items():
        assert name in documented, f"{name} is registered but not listed in docs/ARCHITECTURE.md"
        expected = template.family if template.family in ("stateless", "stateful", "incident") else "opt-in families"
        assert documented[name] == expected, f"{name} is listed under {documented[name]}, its family is {template.family}"


def test_the_contract_names_no_template_that_does_not_exist():
    names = set(load_templates())
    words = {"state", "event", "cpu_load"}  # prose in the section, not template names
    assert {n for n in _documented() if n not in names and n not in words and "_" in n} == set()
