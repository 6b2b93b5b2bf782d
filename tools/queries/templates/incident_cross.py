"""``incident_cross_table``: a conjunction across related tables ("did core CPU also rise during the link
incident?"). The window is an incident's, found on its own table; the answer counts the entities of
another table whose mean moved beyond their own baseline in that window (semantics and naive reading in
``tools/queries/reference/incident_cross.py``).

Per root incident of a metric table with a baseline window, and per other metric table:

- main: a key an overlapping incident on that table moved, over all its entities, with the number of
  standard deviations chosen so that the data's deviants are exactly the manifest's affected entities
  (the alignment check of ``incident_affected_count``);
- contrasts whose honest answer is 0 (so an agent that always says "yes, it rose too" fails): a key no
  incident on that table moved (``calm_key``), and the entities *not* related to the incident's through
  the spec's foreign keys (``other_pop``: cells behind other links, core nodes no affected cell uses).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime

import pandas as pd

from tools.queries.catalog import TableView
from tools.queries.context import SynthContext
from tools.queries.natural.incident import compact, short_names
from tools.queries.natural.words import clean
from tools.queries.reference import incident_cross as ref
from tools.queries.registry import Candidate, Template, register
from tools.queries.render import fmt_num, plural
from tools.queries.spec import EntityFilter, Predicate, QuerySpec
from tools.queries.sql import incident_cross as sql
from tools.queries.sql.common import ident, ts, where_clause
from tools.queries.templates.incident import balanced
from tools.queries.templates.incident_facts import incidents
from tools.queries.templates.incident_model import Inc, key_name

NAME = "incident_cross_table"
N_SIGMAS = (2, 3, 4, 5, 6, 8)
CALM_N = 3  # the rule's width for a table no incident moved (no manifest to align with)


@dataclass(frozen=True)
class Related:
    """The entities of table ``b`` related to the incident's entities, as a filter, with its words."""

    filter: EntityFilter
    ids: tuple[str, ...]  # the related entities (from the data)
    not_words: str  # the others: '... whose Transport_Device_ID is not the affected transport link'


def _fks(ctx: SynthContext, etype: str) -> dict[str, str]:
    """Foreign-key columns written on an entity type's rows → the entity type they point to."""
    e = ctx.spec.entity(etype)
    return {a.name: a.dist.entity for a in e.attributes if a.dist.kind == "foreign_key" and a.in_rows}


def _relation(ctx: SynthContext, inc: Inc, b: TableView) -> tuple[EntityFilter, str] | None:
    """(filter, words of the unrelated ones): how table ``b``'s entities relate to the incident's, through
    a foreign key on ``b``'s rows, on the incident table's rows, or on a third table pointing at both
    (cells → link and cells → core node)."""
    a, ids = inc.t, list(inc.ids)
    an = f"the affected {a.noun}" if len(ids) == 1 else f"one of the affected {plural(a.noun)}"
    on_a = Predicate(column=a.entity, op="in", value=ids)
    for col, target in _fks(ctx, b.entity_type).items():
        if target == a.entity_type:
            return (EntityFilter(predicates=[Predicate(column=col, op="in", value=ids)]), f"whose {col} is not {an}")
    for col, target in _fks(ctx, a.entity_type).items():
        if target == b.entity_type:
            return (EntityFilter(predicates=[on_a], table=a.name, key=b.entity, ref=col),
                    f"that {an} does not point to as its {col}")
    for c in sorted(ctx.catalog.tables.values(), key=lambda t: t.name):
        if c.name in (a.name, b.name):
            continue
        fk = _fks(ctx, c.entity_type)
        ca = next((k for k, v in fk.items() if v == a.entity_type), None)
        cb = next((k for k, v in fk.items() if v == b.entity_type), None)
        if ca and cb:
            return (EntityFilter(predicates=[Predicate(column=ca, op="in", value=ids)], table=c.name, key=b.entity,
                                 ref=cb),
                    f"not used (as {cb}) by any {c.noun} whose {ca} is {an}")
    return None


def related(ctx: SynthContext, inc: Inc, b: TableView) -> Related | None:
    """The related entities of ``b`` (None without a relation)."""
    rel = _relation(ctx, inc, b)
    if rel is None:
        return None
    q = QuerySpec(template=NAME, table=b.name, entity=b.entity, time=b.time, entity_filter=rel[0])
    rows = ctx.con.execute(f"SELECT DISTINCT CAST({ident(b.entity)} AS VARCHAR) FROM {ident(b.name)} "
                           f"WHERE {where_clause(q)} ORDER BY 1").fetchall()
    return Related(rel[0], tuple(r[0] for r in rows), rel[1])


def stats(ctx: SynthContext, inc: Inc, b: TableView) -> pd.DataFrame:
    """Per entity of ``b`` (index, text): ``(key, "w")`` its mean in the incident window, ``(key, "b")``
    and ``(key, "s")`` its mean and sample standard deviation in the baseline window. Selection only."""
    tc = ident(b.time)
    inw = f"{tc} >= {ts(inc.window.start)} AND {tc} < {ts(inc.window.end)}"
    inb = f"{tc} >= {ts(inc.baseline.start)} AND {tc} < {ts(inc.baseline.end)}"
    cols, names = [], []
    for k in b.keys:
        c = ident(k.name)
        cols += [f"avg({c}) FILTER (WHERE {inw})", f"avg({c}) FILTER (WHERE {inb})",
                 f"stddev_samp({c}) FILTER (WHERE {inb})"]
        names += [(k.name, "w"), (k.name, "b"), (k.name, "s")]
    rows = ctx.con.execute(f"SELECT CAST({ident(b.entity)} AS VARCHAR), {', '.join(cols)} FROM {ident(b.name)} "
                           f"WHERE ({inw}) OR ({inb}) GROUP BY 1 ORDER BY 1").fetchall()
    df = pd.DataFrame([r[1:] for r in rows], index=[r[0] for r in rows], dtype=float)
    df.columns = pd.MultiIndex.from_tuples(names)
    return df


def deviants(df: pd.DataFrame, key: str, up: bool, n: float, among: tuple[str, ...] | None = None) -> set[str]:
    """Entities whose in-window mean is beyond ``n`` own baseline SDs (the rule, on the selection table)."""
    d, lim = df[(key, "w")] - df[(key, "b")], n * df[(key, "s")]
    hit = set(df.index[(d > lim) if up else (d < -lim)])
    return hit if among is None else hit & set(among)


def _overlapping(ctx: SynthContext, inc: Inc, b: TableView) -> list[dict]:
    """Incidents on table ``b`` whose window overlaps the incident's."""
    out = []
    for r in ctx.incidents:
        if r.get("table") == b.name and datetime.fromisoformat(r["start"]) < inc.window.end_dt and \
                inc.window.start_dt < datetime.fromisoformat(r["end"]):
            out.append(r)
    return out


def _expected(ctx: SynthContext, inc: Inc, b: TableView) -> tuple[dict[tuple[str, str], set[str]], set[str]]:
    """((key, direction) → the manifest's affected entities of ``b``, every key moved on ``b`` then)."""
    exp: dict[tuple[str, str], set[str]] = {}
    moved: set[str] = set()
    for r in _overlapping(ctx, inc, b):
        moved |= set(r.get("keys", [])) | set(r.get("injected_keys", [])) | set(r.get("derived_keys", []))
        for k in r.get("keys", []):
            d = r.get("signature", {}).get(k, {}).get("direction")
            if d in ("up", "down") and any(x.name == k for x in b.keys):
                exp.setdefault((k, d), set()).update(map(str, r.get("entities", [])))
    return exp, moved


def _source(inc: Inc) -> dict | None:
    m = next((m for m in inc.measures if m.agg == "mean" and m.direction in ("up", "down")), None)
    if m is None:
        return None
    return {"table": inc.t.name, "entity": inc.t.entity, "time": inc.t.time, "key": m.key, "direction": m.direction}


def _cand(inc: Inc, b: TableView, key: str, direction: str, n: float, src: dict, variant: str,
          f: EntityFilter | None = None, pop: str = "") -> Candidate:
    q = QuerySpec(template=NAME, table=b.name, entity=b.entity, time=b.time, entity_filter=f, window=inc.window,
                  params={"key": key, "direction": direction, "n": n, "baseline": {"start": inc.baseline.start,
                                                                                    "end": inc.baseline.end},
                          "source": src})
    contrast = variant != "main"
    return Candidate(q, hints={"variant": variant, "difficulty": "medium" if contrast else "hard", "pop": pop},
                     incident_id=inc.id, contrast=contrast, decimals=0)


def candidates(ctx: SynthContext) -> Iterator[Candidate]:
    """Main questions (a related table's moved key) and their zero-answer contrasts, per root incident and
    related table: every main and as many contrasts (at least one), other populations first."""
    for inc in incidents(ctx):
        src = _source(inc) if inc.per_entity and not inc.rec.get("root") else None
        if src is None or inc.baseline is None or inc.real is not None:
            continue
        for b in sorted(ctx.catalog.tables.values(), key=lambda t: t.name):
            if b.name == inc.table or not b.periodic or not b.keys or b.entity_parts:
                continue
            group = list(_for_table(ctx, inc, b, src))
            yield from balanced(lambda _ctx, g=group: g)(ctx)  # per related table: mains, as many contrasts


def _for_table(ctx: SynthContext, inc: Inc, b: TableView, src: dict) -> Iterator[Candidate]:
    df = stats(ctx, inc, b)
    exp, moved = _expected(ctx, inc, b)
    rel = related(ctx, inc, b)
    others = tuple(sorted(set(df.index) - set(rel.ids))) if rel is not None and rel.ids else ()
    ns = []
    for (key, d), ids in sorted(exp.items()):
        good = [n for n in N_SIGMAS if deviants(df, key, d == "up", n) == ids]
        if not good:
            continue
        n = good[(len(good) - 1) // 2]
        ns.append(n)
        yield _cand(inc, b, key, d, n, src, "main")
        if others and not deviants(df, key, d == "up", n, others):
            f = EntityFilter(predicates=[Predicate(column=b.entity, op="not_in", value=list(rel.ids))])
            yield _cand(inc, b, key, d, n, src, "other_pop", f, rel.not_words)
    n = min(ns) if ns else CALM_N
    calm = [k.name for k in b.keys if k.name not in moved and not deviants(df, k.name, True, n)]
    for key in calm[:2]:
        yield _cand(inc, b, key, "up", n, src, "calm_key")


def _inc(ctx: SynthContext, c: Candidate) -> Inc:
    return next(i for i in incidents(ctx) if i.id == c.incident_id)


def _words(c: Candidate, ctx: SynthContext) -> tuple[Inc, TableView, str, str, str, str]:
    inc, q = _inc(ctx, c), c.spec
    b = ctx.catalog[q.table]
    side = "above" if q.p("direction") == "up" else "below"
    pop = plural(b.noun) + (" " + c.hints["pop"] if c.hints.get("pop") else "")
    return inc, b, side, pop, fmt_num(q.p("n")), inc.baseline_rel


def render(c: Candidate, ctx: SynthContext) -> str:
    """The precise wording: the rule, the baseline and the population spelled out."""
    inc, b, side, pop, n, base = _words(c, ctx)
    key = c.spec.p("key")
    kw = key if key_name(key) == key else f"{key_name(key)} ({key})"
    return (f"During {inc.phrase}, how many {pop} had a mean {kw} over their readings in that "
            f"period more than {n} standard deviations {side} their own mean over {base}? For each {b.noun}, use "
            f"the mean and the sample standard deviation of its own readings over {base}.")


def natural(c: Candidate, ctx: SynthContext) -> tuple[str, str]:
    """'During the 2 January transport link incident, on how many core nodes did CPU load also rise?'."""
    inc, b, side, pop, n, base = _words(c, ctx)
    key, base = c.spec.p("key"), compact(base)
    name = short_names(ctx)[inc.phrase]
    up = c.spec.p("direction") == "up"
    short_pop = f"{plural(b.noun)} not linked to it" if c.hints.get("pop") else plural(b.noun)
    question = clean(f"During {name}, on how many {short_pop} did {key_name(key)} also {'rise' if up else 'drop'}?")
    ev = [f"{name[0].upper()}{name[1:]} is {inc.phrase}."]
    if c.hints.get("pop"):
        ev.append(f"Not linked to it: {pop}.")
    ev.append(f"A {b.noun} counts when its mean {key} over its readings during the incident is more than {n} "
              f"standard deviations {side} its own mean over {base} (mean and sample standard deviation of its "
              f"readings then). Answer with a whole number (zero if none).")
    return question, " ".join(ev)


register(Template(NAME, "incident", "integer", ref.incident_cross_table, sql.incident_cross_table, render,
                  candidates, naive=ref.incident_cross_table_naive, difficulty="hard", natural=natural))
