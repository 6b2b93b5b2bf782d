"""What the query layer knows about a bundle's tables, read from the spec: roles of columns.

The synthesizer picks keys, states and filters from here and the renderer takes its nouns and
units from here, so questions use the domain's own vocabulary.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from tools.common.durations import parse_duration
from tools.spec.model import Spec


@dataclass(frozen=True)
class Key:
    """A numeric measurement column."""

    name: str
    unit: str | None
    integer: bool
    decimals: int | None
    description: str = ""


@dataclass(frozen=True)
class StaticAttr:
    """A categorical static attribute usable as a filter or group-by, and where it lives."""

    name: str
    values: tuple[str, ...]
    table: str | None  # None: on the main table's rows
    key: str | None = None  # main-table column referring to ``table``
    ref: str | None = None  # id column of ``table``


@dataclass(frozen=True)
class StateColumn:
    """A visible categorical column that follows the state machine (state or derived event)."""

    name: str
    values: tuple[str, ...]
    terminal: tuple[str, ...] = ()
    is_state: bool = False


@dataclass(frozen=True)
class TableView:
    """One event/metric table: its entity, clock, state columns, keys and filterable attributes."""

    name: str
    entity_type: str
    noun: str
    entity: str
    time: str
    periodic: bool
    cadence_s: float | None
    keys: tuple[Key, ...]
    states: tuple[StateColumn, ...]
    attrs: tuple[StaticAttr, ...]
    start: datetime
    end: datetime
    flags: tuple[str, ...] = ()
    entity_parts: tuple[str, ...] = ()  # further id columns of a composite key (tools/queries/composite.py)

    def key(self, name: str) -> Key:
        return next(k for k in self.keys if k.name == name)

    def state(self, name: str) -> StateColumn:
        return next(s for s in self.states if s.name == name)


@dataclass
class Catalog:
    """Every queryable table of a bundle, by name."""

    spec: Spec
    tables: dict[str, TableView] = field(default_factory=dict)

    def __getitem__(self, name: str) -> TableView:
        return self.tables[name]


def _noun(name: str) -> str:
    return name.replace("_", " ")


def _categorical_values(dist) -> tuple[str, ...] | None:
    if getattr(dist, "kind", None) == "categorical":
        return tuple(str(v) for v in dist.values)
    return None


def build_catalog(spec: Spec) -> Catalog:
    """The catalog of a spec: one ``TableView`` per entity type that emits rows."""
    from datetime import timedelta

    cat = Catalog(spec)
    start = spec.start_dt
    end = start + timedelta(seconds=spec.horizon_seconds)
    by_name = {e.name: e for e in spec.entities}
    for e in spec.entities:
        if e.emission is None:
            continue
        attrs: list[StaticAttr] = []
        for a in e.attributes:
            vals = _categorical_values(a.dist)
            if vals is None and a.dist.kind == "parent_attribute" and a.in_rows:
                parent = by_name[_fk_target(e, a.dist.via)]
                pa_ = next(x for x in parent.attributes if x.name == a.dist.attribute)
                vals = _categorical_values(pa_.dist)
            if vals is None:
                continue
            if a.in_rows:
                attrs.append(StaticAttr(a.name, vals, None))
            elif a.in_static and e.static_table_name:
                attrs.append(StaticAttr(a.name, vals, e.static_table_name, e.id.column, e.id.column))
        for a in e.attributes:  # attributes of a parent reached through a foreign key
            if a.dist.kind == "foreign_key" and a.in_rows:
                parent = by_name[a.dist.entity]
                for pa_ in parent.attributes:
                    vals = _categorical_values(pa_.dist)
                    if vals and pa_.in_static and parent.static_table_name and \
                            not any(x.name == pa_.name for x in attrs):
                        attrs.append(StaticAttr(pa_.name, vals, parent.static_table_name, a.name,
                                                parent.id.column))
        states: list[StateColumn] = []
        flags: tuple[str, ...] = ()
        sm = e.states
        if sm is not None:
            if sm.column:
                states.append(StateColumn(sm.column, tuple(sm.states), tuple(sm.terminal), True))
            for col, mapping in sm.derived_columns.items():
                vals = tuple(dict.fromkeys(v for v in mapping.values() if v is not None))
                term = tuple(dict.fromkeys(mapping[s] for s in sm.terminal if mapping.get(s)))
                states.append(StateColumn(col, vals, term))
            flags = tuple(sm.flags)
        keys = tuple(Key(m.name, m.unit, m.integer or m.noise.kind == "poisson", m.decimals, m.description)
                     for m in e.measurements if not m.hidden)
        em = e.emission
        cat.tables[e.table_name] = TableView(
            name=e.table_name, entity_type=e.name, noun=_noun(e.name), entity=e.id.column,
            time=em.timestamp_column, periodic=em.kind == "periodic",
            cadence_s=parse_duration(em.cadence) if em.cadence else None,
            keys=keys, states=tuple(states), attrs=tuple(attrs), start=start, end=end, flags=flags,
            entity_parts=composite_parts(e))
    return cat


def composite_parts(e) -> tuple[str, ...]:
    """The other columns of an entity's composite key (``EntityType.key_parts``)."""
    return e.key_parts


def _fk_target(e, column: str) -> str:
    a = next(x for x in e.attributes if x.name == column)
    return a.dist.entity
