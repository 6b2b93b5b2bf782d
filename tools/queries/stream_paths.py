"""The pandas reference executor on partitioned bundles: shard by shard, then an exact merge.

A partitioned bundle (``--engine dask``) stores every table as ``data/<table>/part-NNNNN.parquet``,
one part per generator shard; an entity never spans parts. Instead of loading a table whole, a
template's reference answer is computed in one of these ways (``how(template)`` says which):

- **merged** (``MERGED``): the template's own reference function runs on one part at a time (an
  entity-local answer: its rows are all there) and the per-part results merge exactly: counts and
  entity counts add, ``exists`` is any, max/min of maxima/minima, distinct values unite, top-k ranks
  the union of exact per-entity aggregates. Peak memory: one part's needed columns.
- **selection** (``SELECTION``): aggregates whose float result depends on the order of summation
  (mean, std, sum, percentiles, per-group aggregates). Each part contributes its selected rows
  (entity filter, window, ``while`` and event filter applied) restricted to the needed columns; the
  original reference then runs once on their concatenation, which is the whole table's selection in
  the same order, so the answer is bit for bit the single-file one. Peak memory: one part plus the
  selected values (a few bytes per selected row, not the table). Shapes, detections and claims
  (tools/queries/stream_extra.py) read their window's rows this way too.
- **entity** (``ENTITY``, tools/queries/stream_entity.py: the stateful and incident templates, premises
  and the naive readings of the other families) on
  worlds whose data.duckdb holds views (``entity_forms``): per-entity forms, one part at a time, whose
  fold does the template's cross-entity reduction once (counts add, means over the parts' values
  concatenated in order), bit for bit the whole table's answer; the naive reading rides along on
  the same pass. Peak memory: one part plus per-entity/per-episode values.
- **rewritten** (``REWRITTEN``): ``incident_cross_table`` is ``incident_affected_count`` on another table.
- **columns** (the entity templates on smaller worlds, where pandas screens them many times, and the
  templates that read no table): the original reference on every part but only the columns the query
  names. Above ``COLUMNS_MAX_ROWS`` rows a template without a streaming form is not asked (``NotStreamed``).

A keyed template asked on a composite key runs every path on each part's keyed view (tools/queries/stream.py).

A bundle with one Parquet file per table takes none of these paths: the reference runs on the
context's frames exactly as before, so single-file bundles' suites are unchanged.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd

from tools.queries.reference import stateless, thresholds
from tools.queries.reference.frames import Frames, selected_rows
from tools.queries.reference.stateless_rank import per_entity
from tools.queries.spec import QuerySpec
from tools.queries.stream_entity import ENTITY, ENTITY_SELECTION
from tools.queries.stream_extra import EXTRA_SELECTION, REWRITTEN
from tools.queries.stream_frames import categorize


def _sum(parts: list, q: QuerySpec) -> int:
    return int(sum(parts))


def _any(parts: list, q: QuerySpec) -> bool:
    return bool(any(parts))


def _extreme(parts: list, q: QuerySpec) -> float | None:
    vals = [p for p in parts if p is not None]
    if not vals:
        return None
    return float(max(vals) if q.p("agg", "max") == "max" else min(vals))


def _distinct_partial(frames: Frames, q: QuerySpec) -> Any:
    of = q.p("of", q.entity)
    if of == q.entity:  # an entity's rows are all in one part: per-part counts add
        return stateless.distinct_count(frames, q)
    return set(selected_rows(frames, q)[of].dropna().unique().tolist())


def _distinct_merge(parts: list, q: QuerySpec) -> int:
    if q.p("of", q.entity) == q.entity:
        return int(sum(parts))
    return len(set().union(*parts))


def _rank(parts: list, q: QuerySpec) -> list | None:
    """``top_k_by_aggregate`` on the union of the parts' exact per-entity aggregates: the ranking of
    ``tools/queries/reference/stateless_rank.top_k_by_aggregate`` after its ``per_entity``."""
    k = int(q.p("k"))
    desc = q.p("order", "desc") == "desc"
    labels = np.array([str(x) for p in parts for x in p.index], dtype=object)
    vals = np.concatenate([p.to_numpy(dtype=float) for p in parts]) if parts else np.zeros(0)
    if len(vals) < k:
        return None
    order = np.lexsort((labels.astype(str), -vals if desc else vals))
    head = vals[order[:k + 1]]
    if np.any(np.abs(np.diff(head)) < 10.0 ** -int(q.p("decimals", 2))):
        return None
    cast = int if q.p("agg", "mean") == "count" else float
    return [[str(labels[i]), cast(vals[i])] for i in order[:k]]


Partial = Callable[[Frames, QuerySpec], Any]
Merge = Callable[[list, QuerySpec], Any]
# template → (partial on one part, exact merge); ``naive`` forms keyed "<template>/naive"
MERGED: dict[str, tuple[Partial, Merge]] = {
    "event_count": (stateless.event_count, _sum),
    "exists": (stateless.exists, _any),
    "distinct_count": (_distinct_partial, _distinct_merge),
    "attribute_extreme": (stateless.attribute_extreme, _extreme),
    "top_k_by_aggregate": (per_entity, _rank),
    "entity_count_threshold": (thresholds.entity_count_threshold, _sum),
    "entity_count_threshold/naive": (thresholds.entity_count_threshold_naive, _sum),
}
# template → the query whose selected rows the reference (or naive reading) needs
SELECTION: dict[str, Callable[[QuerySpec], QuerySpec]] = {
    "attribute_mean": lambda q: q, "attribute_std": lambda q: q, "attribute_percentile": lambda q: q,
    "event_rate": lambda q: q, "group_aggregate": lambda q: q, "conditional_aggregate": lambda q: q,
    "conditional_aggregate/naive": lambda q: q.model_copy(update={"while_": None}),
    **EXTRA_SELECTION,
}


def how(template: str, naive: bool = False) -> str:
    """How a template's reference answer (or naive reading) is computed on a partitioned bundle:
    ``merged``, ``selection``, ``entity`` (big worlds; ``columns`` otherwise) or ``columns`` (see the
    module docstring)."""
    key = f"{template}/naive" if naive else template
    if key in REWRITTEN:
        return how(REWRITTEN[key][0])
    if key in MERGED:
        return "merged"
    if key in SELECTION:
        return "selection"
    return "entity" if key in ENTITY or key in ENTITY_SELECTION else "columns"


def concat_parts(rows: list[pd.DataFrame]) -> pd.DataFrame:
    """The parts' rows one after the other; a text column stays a ``category`` (its categories the
    union of the parts'), never a column of Python strings (pd.concat's result for differing categories)."""
    from pandas.api.types import union_categoricals

    out = {}
    for c in rows[0].columns:
        cols = [r[c] for r in rows]
        if all(isinstance(x.dtype, pd.CategoricalDtype) for x in cols):
            out[c] = pd.Series(union_categoricals(cols, ignore_order=True), name=c)
        else:
            out[c] = pd.concat(cols, ignore_index=True)
    return categorize(pd.DataFrame(out))
