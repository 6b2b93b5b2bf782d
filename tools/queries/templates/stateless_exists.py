"""``exists``: did at least one row of the selected entities satisfy a predicate in a window?

Candidates are designed to split: one DuckDB exploration query per (window, attribute) gives each
sub-population's extreme key values and rare-state counts; thresholds are placed between the
sub-populations' extremes, so some answers are yes and others no. A "no" is an intended negative
control (``Candidate.negative``); the exploration only decides that flag, both executors still
compute every answer.
"""

from __future__ import annotations

import numpy as np

from tools.queries.catalog import StaticAttr, TableView
from tools.queries.context import SynthContext
from tools.queries.reference import stateless as ref
from tools.queries.registry import Candidate, Template, register
from tools.queries.render import entity_filter_words, row_noun, window_words
from tools.queries.spec import EntityFilter, Predicate, Window
from tools.queries.sql import stateless as sql
from tools.queries.sql.common import ident, pred, ts
from tools.queries.templates.common import base_spec, round_to
from tools.queries.templates.stateless import conds, fit_hours

PER_TABLE = 6  # at most this many "yes" candidates per table, and as many "no" (at least 2)


def _rare_states(ctx: SynthContext, t: TableView) -> list[Predicate]:
    """The two least frequent values of each state/event column."""
    return [Predicate(column=s.name, op="==", value=str(v))
            for s in t.states for v, _n in ctx.frequent(t.name, s.name, 50)[-2:]]


def _explore(ctx: SynthContext, t: TableView, windows: list[Window], attrs: list[StaticAttr],
             stats: list[str]) -> list[tuple]:
    """One scan: rows (window index, attribute index or None, value, *stats) for every window, over
    all entities (attribute None) and per value of each attribute."""
    wid = " ".join(f"WHEN b.{ident(t.time)} >= {ts(w.start)} AND b.{ident(t.time)} < {ts(w.end)} THEN {i}"
                   for i, w in enumerate(windows))
    src, cols = f"{ident(t.name)} b", []
    for i, a in enumerate(attrs):
        if a.table is None:
            cols.append(f"CAST(b.{ident(a.name)} AS VARCHAR) AS __a{i}")
        else:
            src += f" LEFT JOIN {ident(a.table)} g{i} ON b.{ident(a.key)} = g{i}.{ident(a.ref)}"
            cols.append(f"CAST(g{i}.{ident(a.name)} AS VARCHAR) AS __a{i}")
    inner = f"SELECT CASE {wid} END AS __w, {', '.join(cols + ['b.*'])} FROM {src}"
    sets = ", ".join(["(__w)", *[f"(__w, __a{i})" for i in range(len(attrs))]])
    flags = "".join(f"grouping(__a{i}), __a{i}, " for i in range(len(attrs)))
    rows = ctx.con.execute(f"SELECT __w, {flags}{', '.join(stats)} FROM ({inner}) WHERE __w IS NOT NULL "
                           f"GROUP BY GROUPING SETS ({sets}) ORDER BY ALL").fetchall()
    out = []
    for r in rows:
        grouped = [i for i in range(len(attrs)) if r[1 + 2 * i] == 0]
        ai = grouped[0] if grouped else None
        out.append((r[0], ai, None if ai is None else r[2 + 2 * ai], r[1 + 2 * len(attrs):]))
    return out


def _groups(ctx: SynthContext, t: TableView, windows: list[Window], stats: list[str]) -> dict[int, list]:
    """Per window index: (EntityFilter or None, stats) for all entities and each attribute value."""
    attrs = ctx.pick(list(t.attrs), 2)
    out: dict[int, list] = {i: [] for i in range(len(windows))}
    for wi, ai, value, st in _explore(ctx, t, windows, attrs, stats):
        if ai is None:
            out[wi].insert(0, (None, st))
        elif value in attrs[ai].values:
            a = attrs[ai]
            out[wi].append((EntityFilter(predicates=[Predicate(column=a.name, op="==", value=value)],
                                         table=a.table, key=a.key, ref=a.ref), st))
    return out


def _split_threshold(vals: list[float], key, op: str) -> float | None:
    """A rounded threshold between the groups' extremes (about half of them beyond it)."""
    if len(vals) < 3:
        return None
    x = round_to(float(np.median(vals)), key)
    beyond = [v > x if op == ">" else v < x for v in vals]
    return x if any(beyond) and not all(beyond) else None


def _exists_candidates(ctx: SynthContext):
    for t in ctx.catalog.tables.values():
        keys = ctx.pick(list(t.keys), 3)
        states = _rare_states(ctx, t)
        stats = ([f"max({ident(k.name)})" for k in keys] + [f"min({ident(k.name)})" for k in keys]
                 + [f"count(*) FILTER (WHERE {pred(p)})" for p in states])
        if not stats:
            continue
        yes: list = []
        no: list = []
        windows = ctx.windows(t, fit_hours(ctx, t, 150, (0.5, 1, 3, 6)), 2)
        per_window = _groups(ctx, t, windows, stats) if windows else {}
        for wi, groups in per_window.items():
            w = windows[wi]
            for i, k in enumerate(keys):
                op = ctx.pick([">", "<"], 1)[0]
                col = i if op == ">" else len(keys) + i
                vals = [st[col] for ef, st in groups if ef is not None and st[col] is not None]
                x = _split_threshold(vals, k, op)
                if x is None:
                    continue
                p = Predicate(column=k.name, op=op, value=x)
                for ef, st in groups:
                    hit = st[col] is not None and (st[col] > x if op == ">" else st[col] < x)
                    _sort(yes, no, hit, base_spec("exists", t, event_filter=[p], window=w, entity_filter=ef))
            for j, p in enumerate(states):
                for ef, st in groups:
                    hit = (st[2 * len(keys) + j] or 0) > 0
                    _sort(yes, no, hit, base_spec("exists", t, event_filter=[p], window=w, entity_filter=ef))
        yes = ctx.pick(yes, PER_TABLE)
        for q in yes:
            yield Candidate(q, decimals=0)
        for q in ctx.pick(no, max(len(yes), 2)):
            yield Candidate(q, negative=True, decimals=0)


def _sort(yes: list, no: list, hit: bool, q) -> None:
    """File a candidate by its explored answer. A "yes" with an entity filter is not asked: the
    filter would change nothing (the whole population has the row too; QUESTION-STYLE rule 9)."""
    if not hit:
        no.append(q)
    elif q.entity_filter is None:
        yes.append(q)


def _render_exists(c: Candidate, ctx: SynthContext) -> str:
    t = ctx.catalog[c.spec.table]
    q = c.spec
    ef = entity_filter_words(q.entity_filter, t)
    return (f"Did any {t.noun}{' ' + ef if ef else ''} have at least one {row_noun(t)[:-1]} with "
            f"{conds(q.event_filter, t)}, {window_words(q.window)}? Answer yes or no.")


register(Template("exists", "stateless", "boolean", ref.exists, sql.exists, _render_exists, _exists_candidates,
                  difficulty="easy"))
