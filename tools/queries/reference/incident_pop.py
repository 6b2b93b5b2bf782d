"""pandas reference of issue 19's incident variants: a baseline over another population, and affected
counts by a stated numeric threshold (SQL: ``tools/queries/sql/incident_pop.py``, written apart).

``incident_vs_baseline`` with ``params.baseline_entities``: the in-window aggregate of the question's
population (entity filter, event filter, window) against the same aggregate over the rows of *another*
population in the window ``params.baseline`` (``{"start", "end"}``; the incident window itself for
"the other cells at the same time"). ``baseline_entities`` is ``"all"`` (every entity of the table, the
window's own included) or an entity filter (JSON), e.g. every entity but the affected ones.

``incident_affected_count`` with ``rule: threshold``: the entities of the population with at least one
reading in the window whose ``key`` is ``op`` ``value`` (``op``: ``<``, ``<=``, ``>``, ``>=``; nulls never
pass). The naive reading counts over the whole data (a global threshold, the window ignored).
"""

from __future__ import annotations

import operator

from tools.queries.reference.frames import Frames
from tools.queries.reference.incident import aggregate, rows
from tools.queries.spec import EntityFilter, QuerySpec, Window

_OPS = {">": operator.gt, ">=": operator.ge, "<": operator.lt, "<=": operator.le}


def baseline_query(q: QuerySpec, entities=None) -> QuerySpec:
    """The query whose rows make the baseline: ``baseline_entities`` (or ``entities``) in ``params.baseline``."""
    be = q.p("baseline_entities") if entities is None else entities
    f = None if be == "all" else EntityFilter.model_validate(be)
    b = q.p("baseline")
    return q.model_copy(update={"entity_filter": f, "window": Window(start=b["start"], end=b["end"])})


def verdict(vi, vb, q: QuerySpec) -> dict:
    """``{"value": vi above (direction up) / below vb, "ratio" | "difference": ...}`` (None when undefined)."""
    both = vi is not None and vb is not None
    value = both and (vi > vb if q.p("direction", "up") == "up" else vi < vb)
    if q.p("figure", "ratio") == "ratio":
        return {"value": bool(value), "ratio": (vi / vb) if both and vb != 0 else None}
    return {"value": bool(value), "difference": (vi - vb) if both else None}


def vs_population(frames: Frames, q: QuerySpec, entities=None) -> dict:
    """The in-window aggregate against another population's aggregate over the baseline window."""
    return verdict(aggregate(rows(frames, q), q), aggregate(rows(frames, baseline_query(q, entities)), q), q)


def naive_population_query(q: QuerySpec) -> QuerySpec | None:
    """The misread baseline's query (its window the question's own; population: every entity), or None
    when the question has no other population."""
    if q.p("baseline_entities") is None or q.window is None:
        return None
    w = {"start": q.window.start, "end": q.window.end}
    return q.model_copy(update={"params": {**q.params, "baseline": w}})


def vs_population_naive(frames: Frames, q: QuerySpec) -> dict | None:
    """The misread baseline: every entity (the window's own included) over the question's own window, i.e.
    the affected entities counted in their peers' baseline, or the fleet's reference period ignored."""
    nq = naive_population_query(q)
    return None if nq is None else vs_population(frames, nq, "all")


def threshold_count(frames: Frames, q: QuerySpec, *, window: bool = True) -> int:
    """Entities of the population with at least one reading in the window passing ``key op value``."""
    df = rows(frames, q if window else q.model_copy(update={"window": None}))
    v = df[q.p("key")]
    hit = _OPS[q.p("op")](v, q.p("value")).fillna(False).to_numpy(dtype=bool)
    return int(df.loc[hit, q.entity].nunique())


def threshold_count_naive(frames: Frames, q: QuerySpec) -> int | None:
    """The global reading: the same count over the whole data."""
    return threshold_count(frames, q, window=False) if q.p("rule") == "threshold" else None
