"""Candidate enumerators that search the data: ``incident_exists`` (a threshold between the incident's
hourly extreme and every other hour's) and ``incident_affected_count`` (a deviation rule whose
data-derived set of entities is exactly the manifest's affected entities: the alignment check).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator
from datetime import timedelta
from typing import Any

from tools.queries.context import SynthContext, iso
from tools.queries.registry import Candidate
from tools.queries.spec import EntityFilter, Window
from tools.queries.sql import incident as sql
from tools.queries.templates.incident_cands import base_note, cand, populations
from tools.queries.templates.incident_explore import col, entity_table, hour_extremes
from tools.queries.templates.incident_facts import incidents, overlaps
from tools.queries.templates.incident_model import DAY, Inc, Measure
from tools.queries.templates.incident_words import during, explicit, pop_noun

N_SIGMAS = (2, 3, 4, 5, 6, 8, 10)
COUNT = {"agg": "rows"}  # how an integer count is rendered (whole number, no unit)


def nice_between(lo: float, hi: float) -> float | int | None:
    """A round number in the middle half of ``(lo, hi)``."""
    span = hi - lo
    if not span > 0 or not math.isfinite(span):
        return None
    top = math.floor(math.log10(span))
    for e in range(top, top - 6, -1):
        for mult in (5, 2, 1):
            step = mult * 10.0 ** e
            v = round((lo + hi) / 2 / step) * step
            if lo + span / 4 <= v <= hi - span / 4:
                return int(round(v)) if e >= 0 else round(v, -e + 1)
    return None


def _shift(w: Window, d: timedelta) -> Window:
    return Window(start=iso(w.start_dt + d), end=iso(w.end_dt + d))


def _inside(inc: Inc, w: Window) -> bool:
    return w.start_dt >= inc.t.start and w.end_dt <= inc.t.end


def search_windows(ctx: SynthContext, inc: Inc) -> list[tuple[Window, Window]]:
    """(search window, disjoint contrast window): the whole UTC days around the incident, its hours
    padded by 3 hours, its hours; the contrast is the same span one day (or its length) earlier or later."""
    s, e = inc.window.start_dt, inc.window.end_dt
    if e - s > DAY:  # a long drift has no hour that only it explains, and the scan would be the whole table
        return []
    day0 = s.replace(hour=0, minute=0, second=0, microsecond=0)
    h0 = s.replace(minute=0, second=0, microsecond=0)
    hours = timedelta(hours=math.ceil((e - h0) / timedelta(hours=1)))
    pad = timedelta(hours=3)
    out = []
    for start, length in ((day0, math.ceil((e - day0) / DAY) * DAY), (h0 - pad, hours + 2 * pad), (h0, hours)):
        S = Window(start=iso(start), end=iso(start + length))
        if not _inside(inc, S):
            continue
        for d in (-max(length, DAY), max(length, DAY)):
            C = _shift(S, d)
            if _inside(inc, C) and not overlaps(ctx, inc, C):
                out.append((S, C))
                break
    return out


def _hourly(inc: Inc, m: Measure) -> dict:
    if m.agg in ("mean", "max", "min", "sum"):
        return {"key": m.key, "agg": "sum" if inc.t.key(m.key).integer else "mean"}
    return m.params()


def _threshold(inc: Inc, hp: dict, up: bool, ie, be) -> tuple[str, float | int] | None:
    """(op, value) that the incident's extreme passes and no other hour does; whole numbers for counts."""
    if ie is None or be is None:
        return None
    if hp["agg"] == "range":
        return ("<=", 0) if ie == 0 and be > 0 else None
    v = nice_between(be, ie) if up else nice_between(ie, be)
    if v is None:
        return None
    whole = hp["agg"] in ("rows", "nulls", "entities") or (hp["agg"] == "sum" and inc.t.key(hp["key"]).integer)
    if whole and v != int(v):
        return (">=", math.ceil(v)) if up else ("<=", math.floor(v))
    return (">" if up else "<", v)


def _within(f: EntityFilter, pop: EntityFilter | None) -> bool:
    """Whether population ``f`` is a part of ``pop`` (so the threshold was calibrated on it)."""
    return pop is None or (f.table, f.key, f.ref) == (pop.table, pop.key, pop.ref) and \
        all(p in f.predicates for p in pop.predicates)


def exists_candidates(ctx: SynthContext) -> Iterator[Candidate]:
    """'Did any ... over a whole clock hour exceed X between ...?' with a threshold only the incident crosses."""
    for inc in incidents(ctx):
        # Metric series: every entity (a narrower population could only agree: rule 9). Event logs: the
        # sub-population, as a row condition when it is written on the rows.
        pop, rowcond = (None, ()) if inc.per_entity else (inc.subpop, ())
        if pop is not None and pop.table is None:
            pop, rowcond = None, tuple(inc.subpop.predicates)
        todo: list[tuple[dict, tuple, bool]] = []
        for m in inc.measures:
            hp, ef = _hourly(inc, m), rowcond + m.event_filter
            up = m.direction == "up" and hp["agg"] != "range"
            if (pop is not None and up) or any((hp, ef) == (x[0], x[1]) for x in todo):
                continue  # (a count over a superset would pass the threshold too)
            todo.append((hp, ef, up))
        pairs = search_windows(ctx, inc)
        if not todo or not pairs:
            continue
        ext = hour_extremes(ctx, inc, pop, [(hp, ef) for hp, ef, _ in todo], pairs, [u for *_, u in todo])
        for (hp, ef, up), *per_pair in zip(todo, *ext, strict=True):
            for (S, C), (ie, be) in zip(pairs, per_pair, strict=True):
                thr = _threshold(inc, hp, up, ie, be)
                if thr is not None:
                    yield from _exists_variants(inc, pop, hp, ef, thr, S, C, rowcond)
                    break


def _exists_variants(inc: Inc, pop, hp: dict, ef: tuple, thr: tuple, S: Window, C: Window,
                     rowcond: tuple) -> Iterator[Candidate]:
    params = {**hp, "op": thr[0], "value": thr[1], "per": "entity" if inc.per_entity else "all"}
    q = inc.spec("incident_exists", entity_filter=pop, event_filter=list(ef), window=S, params=params)
    h = {"pop": pop_noun(inc, inc.subpop if rowcond else pop), "pop_conds": len(rowcond)}
    yield cand(inc, q, hp, contrast=False, variant="main", when=explicit(S, inc), **h)
    yield cand(inc, q.model_copy(update={"window": C}), hp, contrast=True, variant="baseline_window",
               when=explicit(C, inc), **h)
    for f in [f for f in inc.others if _within(f, pop)][:1]:
        words = pop_noun(inc, f).replace("not affected by it", f"not affected by {inc.phrase}")
        if rowcond:  # a sibling sub-population, also as a row condition
            oq = q.model_copy(update={"event_filter": list(f.predicates) + list(ef[len(rowcond):])})
        else:
            oq = q.model_copy(update={"entity_filter": f})
        yield cand(inc, oq, hp, contrast=True, variant="other_pop", when=explicit(S, inc), pop=words,
                   pop_conds=len(f.predicates) if rowcond else 0)


def per_moved_key(ctx: SynthContext, takes: Callable[[Measure], bool],
                  make: Callable[[SynthContext, Inc, Measure, Any], Iterable[Candidate]]) -> Iterator[Candidate]:
    """For each per-entity incident and each moved key ``takes`` accepts (once per key), the candidates of
    the widest population (``populations``) for which ``make`` gives any."""
    for inc in incidents(ctx):
        if not inc.per_entity:
            continue
        done = set()
        for m in inc.measures:
            if not takes(m) or m.key in done:
                continue
            done.add(m.key)
            for pop in populations(inc):
                got = list(make(ctx, inc, m, pop))
                yield from got
                if got:
                    break


def affected_candidates(ctx: SynthContext) -> Iterator[Candidate]:
    """How many entities deviate by a stated rule; kept only where the rule finds exactly the manifest's."""
    yield from per_moved_key(ctx, lambda m: m.agg in ("mean", "range"), _affected_for)


def _deviants(table, key: str, base: str, up: bool, n: float) -> set[str]:
    """Entities whose in-window mean is beyond ``n`` baseline standard deviations (exploration table)."""
    if col("mean", key, "w") not in table:
        return set()
    d = table[col("mean", key, "w")] - table[col("mean", key, base)]
    lim = n * table[col("std", key, base)]
    return set(table.index[(d > lim) if up else (d < -lim)].astype(str))


def _count(ctx: SynthContext, q) -> int:
    if q.entity_parts:  # a composite key: the gold SQL reads the keyed view
        from tools.queries.composite import keyed_spec, keyed_sql

        return int(ctx.con.execute(keyed_sql(q, sql.incident_affected_count(keyed_spec(q)))).fetchone()[0])
    return int(ctx.con.execute(sql.incident_affected_count(q)).fetchone()[0])


def _affected_for(ctx: SynthContext, inc: Inc, m: Measure, pop: EntityFilter | None) -> Iterator[Candidate]:
    ids, table = set(inc.ids), entity_table(ctx, inc, pop)
    h = {"pop": pop_noun(inc, pop)}
    t = "incident_affected_count"
    if m.agg == "range":
        c = col("range", m.key, "w")
        flat = set(table.index[table[c] == 0].astype(str)) if c in table else set()
        q = inc.spec(t, window=inc.window, entity_filter=pop, params={"key": m.key, "agg": "mean", "rule": "flat"})
        if flat == ids and _count(ctx, q) == len(ids):
            yield cand(inc, q, COUNT, contrast=False, variant="main", when=during(inc), **h)
            if inc.baseline is not None:
                yield cand(inc, q.model_copy(update={"window": inc.baseline}), COUNT, contrast=True,
                           variant="baseline_window", when=explicit(inc.baseline, inc, base_note(inc)), **h)
        return
    base = "b" if inc.baseline is not None else "rest"
    good = [n for n in N_SIGMAS if _deviants(table, m.key, base, m.direction == "up", n) == ids]
    if not good:
        return
    b = {"start": inc.baseline.start, "end": inc.baseline.end} if inc.baseline is not None else None
    params = {"key": m.key, "agg": "mean", "rule": "shift", "direction": m.direction, "baseline": b,
              "n": good[(len(good) - 1) // 2]}
    q = inc.spec(t, window=inc.window, entity_filter=pop, params=params)
    if _count(ctx, q) != len(ids):  # the alignment check, on the gold SQL itself
        return
    words = inc.baseline_rel if b else ""
    yield cand(inc, q, COUNT, contrast=False, variant="main", when=during(inc), base=words, **h)
    if b is not None:
        b2 = _shift(inc.baseline, inc.baseline.start_dt - inc.window.start_dt)
        b2 = b2 if _inside(inc, b2) and not overlaps(ctx, inc, b2) else None
        cq = q.model_copy(update={"window": inc.baseline, "params": {
            **params, "baseline": {"start": b2.start, "end": b2.end} if b2 else None}})
        yield cand(inc, cq, COUNT, contrast=True, variant="baseline_window",
                   when=explicit(inc.baseline, inc, base_note(inc)), base=f"the period {explicit(b2)}" if b2 else "", **h)
    for c in inc.calm[:1]:
        cq = q.model_copy(update={"params": {**params, "key": c.key, "direction": "up"}})
        yield cand(inc, cq, COUNT, contrast=True, variant="calm_key", when=during(inc), base=words, **h)
