"""Who and what an incident touches, checked against the data in a few batched DuckDB queries: the
shared sub-population, the unaffected populations, the moved measures of event logs and the cascade
relation to the previous level."""

from __future__ import annotations

import math
import re

from tools.queries.catalog import StaticAttr, TableView
from tools.queries.context import SynthContext
from tools.queries.render import plural
from tools.queries.spec import EntityFilter, Predicate
from tools.queries.sql.common import ident, lit, ts, where_clause
from tools.queries.sql.incident import agg_sql
from tools.queries.templates.incident_model import Inc, Measure


def memo(ctx: SynthContext, key: tuple, sql: str) -> list:
    if key not in ctx.memo:
        ctx.memo[key] = ctx.con.execute(sql).fetchall()
    return ctx.memo[key]


def entity_count(ctx: SynthContext, t: TableView) -> int:
    """Distinct entities with rows in the table."""
    return int(memo(ctx, ("inc_n", t.name), f"SELECT count(DISTINCT {ident(t.entity)}) FROM {ident(t.name)}")[0][0])


def value_counts(ctx: SynthContext, t: TableView, a: StaticAttr) -> dict[str, int]:
    """Entities per value of a static attribute (from the static table when it is keyed by the entity)."""
    if a.table is None:
        sql = f"SELECT {ident(a.name)}, count(DISTINCT {ident(t.entity)}) FROM {ident(t.name)} GROUP BY 1"
    elif a.key == t.entity:
        sql = f"SELECT {ident(a.name)}, count(DISTINCT {ident(a.ref)}) FROM {ident(a.table)} GROUP BY 1"
    else:
        sql = (f"SELECT s.{ident(a.name)}, count(DISTINCT m.{ident(t.entity)}) FROM {ident(t.name)} m "
               f"JOIN {ident(a.table)} s ON m.{ident(a.key)} = s.{ident(a.ref)} GROUP BY 1")
    return {str(v): int(n) for v, n in memo(ctx, ("inc_vc", t.name, a.name), sql) if v is not None}


def _norm(s: str) -> str:
    return " " + re.sub(r"[\s_\-,;:()]+", " ", str(s).lower()).strip() + " "


def _shared_values(ctx: SynthContext, inc: Inc) -> dict[str, str]:
    """Attribute → its single value among the affected entities (attributes with one non-null value)."""
    t, idl = inc.t, ", ".join(lit(x) for x in inc.ids)
    groups: dict[tuple, list[StaticAttr]] = {}
    for a in t.attrs:
        groups.setdefault((a.table, a.key, a.ref), []).append(a)
    out = {}
    for (table, key, ref), attrs in groups.items():
        if table is None:
            src = f"SELECT * FROM {ident(t.name)} WHERE {ident(t.entity)} IN ({idl})"
        elif key == t.entity:
            src = f"SELECT * FROM {ident(table)} WHERE {ident(ref)} IN ({idl})"
        else:
            src = (f"SELECT * FROM {ident(table)} WHERE {ident(ref)} IN (SELECT {ident(key)} FROM {ident(t.name)} "
                   f"WHERE {ident(t.entity)} IN ({idl}))")
        cols = ", ".join(f"count(DISTINCT {ident(a.name)}), any_value({ident(a.name)}), "
                         f"count(*) FILTER (WHERE {ident(a.name)} IS NULL)" for a in attrs)
        row = ctx.con.execute(f"SELECT {cols} FROM ({src})").fetchone()
        for i, a in enumerate(attrs):
            if row[3 * i] == 1 and not row[3 * i + 2]:
                out[a.name] = str(row[3 * i + 1])
    return out


def subpop(ctx: SynthContext, inc: Inc) -> tuple[EntityFilter | None, int]:
    """The static-attribute sub-population all affected entities share (attributes named in the
    description first; else, for several entities, the most specific shared one) and its size."""
    t, total = inc.t, entity_count(ctx, inc.t)
    shared = []
    for name, v in _shared_values(ctx, inc).items():
        a = next(x for x in t.attrs if x.name == name)
        n = value_counts(ctx, t, a).get(v, total)
        if n < total:
            shared.append((n, EntityFilter(predicates=[Predicate(column=name, op="==", value=v)], table=a.table,
                                           key=a.key, ref=a.ref)))
    desc = _norm(inc.rec.get("description", ""))
    named = [(n, f) for n, f in shared if _norm(f.predicates[0].value) in desc]
    if named:
        g = named[0][1]
        same = [(n, f) for n, f in named if (f.table, f.key, f.ref) == (g.table, g.key, g.ref)]
        preds = [f.predicates[0] for _, f in same]
        n = min(n for n, _ in same) if len(same) == 1 else _count(ctx, inc, g.model_copy(update={"predicates": preds}))
        return g.model_copy(update={"predicates": preds}), n
    if len(inc.ids) > 1 and shared:
        return min(shared, key=lambda x: (x[0], x[1].predicates[0].column))[::-1]
    return None, total


def _count(ctx: SynthContext, inc: Inc, f: EntityFilter) -> int:
    q = inc.view_spec("x", entity_filter=f)
    return int(ctx.scalar(f"SELECT count(DISTINCT {ident(q.entity)}) FROM {ident(q.table)} WHERE {where_clause(q)}"))


def others(ctx: SynthContext, inc: Inc) -> list[EntityFilter]:
    """Unaffected populations: the sub-population (if it can be combined with an id filter) and the
    whole table minus the affected entities; for event logs, the sub-population's sibling values."""
    t, sp = inc.t, inc.subpop
    out: list[EntityFilter] = []
    if inc.per_entity:
        not_in = Predicate(column=t.entity, op="not_in", value=list(inc.ids))
        if sp is not None and (sp.table is None or sp.key == t.entity) and inc.subpop_n > len(inc.ids):
            col = t.entity if sp.table is None else sp.ref
            out.append(sp.model_copy(update={"predicates": [*sp.predicates, not_in.model_copy(update={"column": col})]}))
        if entity_count(ctx, t) > len(inc.ids):
            out.append(EntityFilter(predicates=[not_in]))
    elif sp is not None and len(sp.predicates) == 1:
        p = sp.predicates[0]
        attr = next(a for a in t.attrs if a.name == p.column)
        counts = value_counts(ctx, t, attr)
        for v in attr.values:
            if v != p.value and counts.get(v, 0) > 0:
                out.append(sp.model_copy(update={"predicates": [p.model_copy(update={"value": v})]}))
    return out


def event_measures(ctx: SynthContext, inc: Inc) -> tuple[list[Measure], list[Measure]]:
    """Event logs: row counts (all, and per frequent state value) and distinct entities of the
    sub-population, classified by their change against the baseline window (moved / calm)."""
    t, b = inc.t, inc.baseline
    cands = [Measure(None, "rows", "up"), Measure(None, "entities", "up")]
    for s in t.states:
        for v, _n in ctx.frequent(t.name, s.name, 10):
            cands.append(Measure(None, "rows", "up", (Predicate(column=s.name, op="==", value=str(v)),)))
    q = inc.view_spec("x", entity_filter=inc.subpop)
    tc = ident(t.time)
    inw = f"{tc} >= {ts(inc.window.start)} AND {tc} < {ts(inc.window.end)}"
    inb = f"{tc} >= {ts(b.start)} AND {tc} < {ts(b.end)}"
    cols = []
    for m in cands:
        ef = " AND ".join(f"{ident(p.column)} = {lit(p.value)}" for p in m.event_filter) or "TRUE"
        mq = q.model_copy(update={"params": m.params()})
        cols += [agg_sql(mq, f"{inw} AND {ef}"), agg_sql(mq, f"{inb} AND {ef}")]
    row = ctx.con.execute(f"SELECT {', '.join(cols)} FROM {ident(t.name)} WHERE {where_clause(q)} "
                          f"AND (({inw}) OR ({inb}))").fetchone()
    moved, calm, seen = [], [], set()
    for i, m in enumerate(cands):
        vi, vb = row[2 * i], row[2 * i + 1]
        if (vi, vb) in seen or max(vi, vb) < 5:
            continue
        seen.add((vi, vb))
        r = (vi + 0.5) / (vb + 0.5)
        if r >= 1.5 or r <= 1 / 1.5:
            moved.append((abs(math.log(r)), Measure(None, m.agg, "up" if r > 1 else "down", m.event_filter)))
        elif 0.85 <= r <= 1.18 and min(vi, vb) >= 5:
            calm.append(m)
    moved.sort(key=lambda x: (bool(x[1].event_filter), -x[0]))  # plain row/entity counts first
    return [m for _, m in moved[:4]], calm[:2]


def relation(ctx: SynthContext, inc: Inc, prev: Inc) -> tuple:
    """Cascade children: (filter, words, complement) for the entities related to the previous level
    through ``params.via`` (a foreign key on either side)."""
    via = (inc.rec.get("params") or {}).get("via")
    if not via:
        return None, "", None
    child = ctx.spec.entity(inc.rec["entity_type"])
    on_child = any(a.name == via and a.dist.kind == "foreign_key" for a in child.attributes)
    cp = plural(inc.t.noun)
    if prev.relation is None:  # the previous level is the root: its manifest entities
        pp = Predicate(column=prev.t.entity, op="in", value=list(prev.ids))
        one = len(prev.ids) == 1
        prev_words = f"the {prev.t.noun if one else plural(prev.t.noun)} affected by {prev.phrase}"
        if on_child:
            f = EntityFilter(predicates=[pp.model_copy(update={"column": via})])
            neg = EntityFilter(predicates=[pp.model_copy(update={"column": via, "op": "not_in"})])
            return (f, f"the {cp} whose {via} is {'' if one else 'one of '}{prev_words}",
                    (neg, f"the {cp} whose {via} is not {'' if one else 'one of '}{prev_words}"))
        f = EntityFilter(predicates=[pp], table=prev.t.name, key=inc.t.entity, ref=via)
        return f, f"the {cp} referenced (as {via}) by {prev_words}", None
    if prev.relation.table is not None:
        return None, "", None
    preds = prev.relation.predicates
    if on_child:
        f = EntityFilter(predicates=preds, table=prev.t.name, key=via, ref=prev.t.entity)
        return f, f"the {cp} whose {via} is one of {prev.relation_words}", None
    f = EntityFilter(predicates=preds, table=prev.t.name, key=inc.t.entity, ref=via)
    return f, f"the {cp} referenced (as {via}) by {prev.relation_words}", None
