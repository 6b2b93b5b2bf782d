"""The incident templates' view of one incident: ``Inc`` (resolved record) and ``Measure``."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import timedelta

from tools.queries.catalog import TableView
from tools.queries.composite import key_format
from tools.queries.render import humanize
from tools.queries.spec import EntityFilter, Predicate, QuerySpec, Window

DAY = timedelta(days=1)
MOVED = {"up", "down", "flat", "variance", "null", "missing"}
COUNT_AGGS = ("rows", "nulls", "entities")


@dataclass(frozen=True)
class Measure:
    """An aggregate of a key (or a row/entity count under an event filter) and the way it moved."""

    key: str | None
    agg: str
    direction: str  # up | down
    event_filter: tuple[Predicate, ...] = ()

    def params(self) -> dict:
        return {"key": self.key, "agg": self.agg}


@dataclass
class Inc:
    """One incident record, resolved against the catalog and the data."""

    rec: dict
    t: TableView
    ids: list[str]
    window: Window
    per_entity: bool  # long-lived entities (metric series); False for event logs of short-lived ones
    what: str = ""
    when: str = ""
    measures: list[Measure] = field(default_factory=list)
    calm: list[Measure] = field(default_factory=list)
    subpop: EntityFilter | None = None
    subpop_n: int = 0  # entities in the sub-population
    others: list[EntityFilter] = field(default_factory=list)  # unaffected populations
    baseline: Window | None = None
    baseline_rel: str = ""  # "the same hours on 1 January (one day earlier)"
    relation: EntityFilter | None = None  # cascade children: the related entities of the previous level
    relation_words: str = ""
    relation_not: tuple[EntityFilter, str] | None = None  # its complement, where expressible
    real: TableView | None = None  # a composite key: the catalog's table (``t`` is its keyed view)

    @property
    def id(self) -> str:
        return self.rec["id"]

    @property
    def table(self) -> str:
        """The incident's table in the bundle (``t.name`` is a keyed view for a composite key)."""
        return self.rec["table"]

    @property
    def key_words(self) -> str:
        """The entity's id columns as a question names them (``Device_ID/Interface_ID``)."""
        return self.t.entity if self.real is None else key_format(self.real.entity, self.real.entity_parts)

    @property
    def phrase(self) -> str:
        return f"the {self.what} {self.when}"

    @property
    def affected(self) -> EntityFilter | None:
        """The manifest's affected entities (event logs: the sub-population, whose rows in the window are theirs)."""
        if not self.per_entity:
            return self.subpop
        return EntityFilter(predicates=[Predicate(column=self.t.entity, op="in", value=list(self.ids))])

    def spec(self, template: str, **kw) -> QuerySpec:
        """A question on the incident's table; a composite key's spec names the table and every key column
        (its filters name the keyed view's joined key column, which the executors' keyed view adds)."""
        if self.real is not None:
            kw.setdefault("entity_parts", list(self.real.entity_parts))
            return QuerySpec(template=template, table=self.real.name, entity=self.real.entity, time=self.t.time, **kw)
        return self.view_spec(template, **kw)

    def view_spec(self, template: str, **kw) -> QuerySpec:
        """A spec on ``t`` as synthesis queries read it (the keyed view for a composite key)."""
        return QuerySpec(template=template, table=self.t.name, entity=self.t.entity, time=self.t.time, **kw)


def key_name(name: str) -> str:
    """A column's English name; CamelCase names (``RRC_ConnEstabFail``) are kept as they are."""
    return name if re.search(r"[a-z][A-Z]", name) else humanize(name)


def join_words(items: list[str]) -> str:
    """'a', 'a and b', 'a, b and c'."""
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]
