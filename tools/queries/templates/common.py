"""Building blocks for candidate enumerators: filters, thresholds and windows chosen from the data."""

from __future__ import annotations

from tools.queries.catalog import Key, TableView
from tools.queries.composite import COMPOSITE_OK
from tools.queries.context import SynthContext
from tools.queries.spec import EntityFilter, Predicate, QuerySpec, Window


def base_spec(template: str, t: TableView, **kw) -> QuerySpec:
    """A QuerySpec on table ``t`` with its entity and time columns filled in (and a composite key's other
    columns, for the templates that take one: tools/queries/composite.py)."""
    if t.entity_parts and template in COMPOSITE_OK:
        kw.setdefault("entity_parts", list(t.entity_parts))
    return QuerySpec(template=template, table=t.name, entity=t.entity, time=t.time, **kw)


def round_to(x: float, key: Key) -> float | int:
    """A threshold rounded to the key's precision (whole numbers for counts)."""
    if key.integer:
        return int(round(x))
    d = key.decimals if key.decimals is not None else 2
    return round(float(x), min(d, 2))


def threshold(ctx: SynthContext, t: TableView, key: Key, p: float) -> float | int | None:
    """The key's ``p`` quantile over the table, rounded so the question can state it exactly."""
    q = ctx.quantile(t.name, key.name, p)
    return None if q is None else round_to(q, key)


def key_predicates(ctx: SynthContext, t: TableView, key: Key) -> list[Predicate]:
    """'key above its 90th percentile' and 'key below its 10th percentile'."""
    out = []
    hi, lo = threshold(ctx, t, key, 0.9), threshold(ctx, t, key, 0.1)
    if hi is not None:
        out.append(Predicate(column=key.name, op=">", value=hi))
    if lo is not None and lo != hi:
        out.append(Predicate(column=key.name, op="<", value=lo))
    return out


def state_predicates(ctx: SynthContext, t: TableView, limit: int = 4) -> list[Predicate]:
    """'state column equals a frequent value' for each visible state/event column."""
    out = []
    for s in t.states:
        for value, _n in ctx.frequent(t.name, s.name, limit):
            out.append(Predicate(column=s.name, op="==", value=str(value)))
    return out


def entity_filters(t: TableView) -> list[EntityFilter]:
    """One filter per (categorical static attribute, value)."""
    out = []
    for a in t.attrs:
        for v in a.values[:3]:
            out.append(EntityFilter(predicates=[Predicate(column=a.name, op="==", value=v)],
                                    table=a.table, key=a.key, ref=a.ref))
    return out


def day_window(t: TableView, day: int) -> Window:
    """The ``day``-th whole UTC day of the data (0-based)."""
    from datetime import timedelta

    from tools.queries.context import iso

    s = t.start + timedelta(days=day)
    return Window(start=iso(s), end=iso(s + timedelta(days=1)))
