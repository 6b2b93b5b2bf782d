"""Streaming forms of the incident templates on partitioned bundles (tools/queries/stream.py).

- ``incident_kpi``, ``incident_cross_entity``, ``incident_top_k``, ``incident_exists`` read only the
  selected rows (population, event filter, window): they take the **selection** path (each part's
  selected rows, concatenated in part order, then the reference once).
- ``incident_affected_count`` counts entities by a per-entity rule: per-part counts add.
- ``incident_worst_entity`` ranks exact per-entity figures: each part gives its entities' figures,
  the ranking runs once on all of them.
- ``incident_vs_baseline`` compares the window's aggregate with the baseline's (by default every
  other row of the population; or another population's rows, ``baseline_entities``, whose naive reading
  takes every entity over the question's window): each part gives the values (or counts) of both sides;
  the aggregate (``np.mean`` etc.) runs once on the concatenation, bit for bit the whole table's.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np
import pandas as pd

from tools.queries.reference import incident as inc
from tools.queries.reference import incident_pop as pop
from tools.queries.reference.frames import Frames
from tools.queries.spec import QuerySpec
from tools.queries.stream_states import fixed, own, sum_ints

INCIDENT_SELECTION = ("incident_kpi", "incident_cross_entity", "incident_top_k", "incident_exists")


def _worst_part(frames: Frames, q: QuerySpec) -> pd.Series:
    df, inw, inb = inc.split_rows(frames, q)
    s = inc._per_entity(df, inw, q)
    if q.p("baseline") is not None:
        s = s - inc._per_entity(df, inb, q)
    return pd.Series(s.to_numpy(dtype=float), index=[str(x) for x in s.index])


def _worst_fold(parts: Iterable, q: QuerySpec) -> str | None:
    parts = [p for p in parts if len(p)]
    if not parts:
        return None
    f = inc._ranked(pd.concat(parts), q.p("order", "desc"))
    return None if f.empty else str(f["e"].iloc[0])


def _side(df: pd.DataFrame, q: QuerySpec) -> Any:
    """What ``incident.aggregate`` needs of one part's rows: a count, or the non-null values."""
    agg, key = q.p("agg", "mean"), q.p("key")
    if agg == "rows":
        return int(len(df))
    if agg == "entities":  # an entity's rows are all in one part: distinct counts add
        return int(df[q.entity].nunique())
    if agg == "nulls":
        return int(df[key].isna().sum())
    return df[key].dropna().to_numpy(dtype=float)


def _aggregate(sides: list, q: QuerySpec):
    """``incident.aggregate`` over the parts' sides (the same values in the same order)."""
    agg = q.p("agg", "mean")
    if agg in inc.COUNT_AGGS:
        return int(sum(sides))
    return inc.aggregate_values(np.concatenate(sides) if sides else np.zeros(0), agg)


def _baseline_part(frames: Frames, q: QuerySpec) -> tuple[Any, Any]:
    df, inw, inb = inc.split_rows(frames, q)
    return _side(df[inw], q), _side(df[inb], q)


def _baseline_fold(parts: Iterable, q: QuerySpec) -> dict:
    ins, bases = [], []
    for a, b in parts:
        ins.append(a)
        bases.append(b)
    return pop.verdict(_aggregate(ins, q), _aggregate(bases, q), q)


def _population_part(frames: Frames, q: QuerySpec, entities=None) -> tuple[Any, Any]:
    """Another population's baseline (``baseline_entities``): both sides' rows are selected rows of one
    part (the baseline population's filter is entity-local, or reads the static table)."""
    return _side(inc.rows(frames, q), q), _side(inc.rows(frames, pop.baseline_query(q, entities)), q)


def _baseline_form(fn, q: QuerySpec):
    """Rows outside the window (or a baseline window) of the same population, or another population's."""
    return _baseline_part if q.p("baseline_entities") is None else _population_part


def _baseline_naive_form(fn, q: QuerySpec):
    """The misread baseline (every entity, the question's window); nothing to read without one."""
    nq = pop.naive_population_query(q)
    if nq is None:
        return lambda frames, q: None  # reads nothing: the parts stay unread
    return lambda frames, q: _population_part(frames, nq, "all")


def _baseline_naive_fold(parts: Iterable, q: QuerySpec) -> dict | None:
    return None if pop.naive_population_query(q) is None else _baseline_fold(parts, q)


# template (or "<template>/naive") → (partial's maker, fold): see tools/queries/stream_states.STATEFUL
INCIDENT = {
    "incident_affected_count": (own, sum_ints),  # every rule counts entities by their own rows
    "incident_affected_count/naive": (own, sum_ints),
    "incident_worst_entity": (fixed(_worst_part), _worst_fold),
    "incident_vs_baseline": (_baseline_form, _baseline_fold),
    "incident_vs_baseline/naive": (_baseline_naive_form, _baseline_naive_fold),
}
