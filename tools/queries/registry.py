"""The template catalog: one ``Template`` per DESIGN.md template name, keyed by name.

A template bundles the two independent executors (pandas reference, SQL compiler), the naive
misreading where the template has one, the canonical English rendering and the candidate
enumerator the synthesizer draws from. Template modules register themselves on import.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from tools.common.families import CORE_FAMILIES as CORE_FAMILIES  # re-exported: the families, listed once
from tools.common.families import EXTRA_FAMILIES as EXTRA_FAMILIES
from tools.common.families import FAMILIES
from tools.queries.composite import KEYED, keyed_template
from tools.queries.spec import AnswerType, QuerySpec


@dataclass(frozen=True)
class Candidate:
    """A query the synthesizer may turn into a question, with what the rendering needs to know.

    ``hints`` carry rendering details that are not part of the query (e.g. the incident's
    description, a state's English name). ``contrast``/``negative`` mark intended contrasts and
    negative controls, which may have a zero or "no" answer.
    """

    spec: QuerySpec
    hints: dict[str, Any] = field(default_factory=dict)
    incident_id: str | None = None
    contrast: bool = False
    negative: bool = False
    unit: str | None = None
    decimals: int = 2


@dataclass(frozen=True)
class Template:
    """One query template: executors, naive reading, rendering and candidates."""

    name: str
    family: str
    answer_type: AnswerType
    reference: Callable[[Any, QuerySpec], Any]
    sql: Callable[[QuerySpec], str]
    render: Callable[[Candidate, Any], str]
    candidates: Callable[[Any], Iterable[Candidate]]
    naive: Callable[[Any, QuerySpec], Any] | None = None
    difficulty: str = "medium"
    answer_type_for: Callable[[QuerySpec], AnswerType] | None = None
    screen_with: str | None = None
    balance: bool = False  # keep yes and no answers in equal share (claims)
    explain: Callable[[Any, Candidate, Any], str] | None = None  # (ctx, candidate, answer) -> answer_text
    # (candidate, ctx) -> (natural question, evidence); None: tools.queries.natural's renderer of this name
    natural: Callable[[Candidate, Any], tuple[str, str]] | None = None

    def type_of(self, q: QuerySpec) -> AnswerType:
        """The answer type of one query (a grouped variant answers a mapping)."""
        return self.answer_type_for(q) if self.answer_type_for else self.answer_type

    @property
    def screener(self) -> str:
        """Which executor runs the many screening re-runs (window shifts, dropped clauses): the one
        that is cheap for this template on large tables. Stateful templates replay cached per-entity
        streams in pandas; row filters are cheapest in DuckDB."""
        return self.screen_with or ("reference" if self.family == "stateful" else "sql")


TEMPLATES: dict[str, Template] = {}


def register(t: Template) -> Template:
    """Add a template to the catalog (names are unique and must be DESIGN.md names)."""
    if t.family not in FAMILIES:
        raise ValueError(f"template {t.name}: unknown family {t.family}")
    if t.name in TEMPLATES:
        raise ValueError(f"template {t.name} registered twice")
    if t.name in KEYED:  # executors that take a composite entity key through the keyed view
        t = keyed_template(t)
    TEMPLATES[t.name] = t
    return t


def load_templates() -> dict[str, Template]:
    """Import every template module (they register on import) and return the catalog."""
    import importlib
    import pkgutil

    import tools.queries.templates as pkg

    for m in pkgutil.iter_modules(pkg.__path__):
        importlib.import_module(f"{pkg.__name__}.{m.name}")
    return TEMPLATES
