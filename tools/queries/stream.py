"""The pandas reference executor on partitioned bundles: shard by shard, then an exact merge.

A partitioned bundle (``--engine dask``) stores every table as ``data/<table>/part-NNNNN.parquet``,
one part per generator shard; an entity never spans parts. Instead of loading a table whole, a
template's reference answer is computed in one of four ways (``how(template)`` says which):

- **merged** (``MERGED``): the template's own reference function runs on one part at a time (an
  entity-local answer: its rows are all there) and the per-part results merge exactly: counts and
  entity counts add, ``exists`` is any, max/min of maxima/minima, distinct values unite, top-k ranks
  the union of exact per-entity aggregates. Peak memory: one part's needed columns.
- **selection** (``SELECTION``): aggregates whose float result depends on the order of summation
  (mean, std, sum, percentiles, per-group aggregates). Each part contributes its selected rows
  (entity filter, window, ``while`` and event filter applied) restricted to the needed columns; the
  original reference then runs once on their concatenation, which is the whole table's selection in
  the same order, so the answer is bit for bit the single-file one. Peak memory: one part plus the
  selected values (a few bytes per selected row, not the table).
- **entity** (``ENTITY``, tools/queries/stream_entity.py: the stateful and incident templates) on
  worlds whose data.duckdb holds views (``entity_forms``): per-entity forms, one part at a time, whose
  fold does the template's cross-entity reduction once (counts add, means over the parts' values
  concatenated in order), bit for bit the whole table's answer; the naive reading rides along on
  the same pass. Peak memory: one part plus per-entity/per-episode values.
- **columns** (everything else, and the entity templates on smaller worlds, where pandas screens
  them many times): the original reference on every part but only the columns the query names. Above
  ``COLUMNS_MAX_ROWS`` rows a template without a streaming form is not asked (``NotStreamed``).

A bundle with one Parquet file per table takes none of these paths: the reference runs on the
context's frames exactly as before, so single-file bundles' suites are unchanged.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from tools.bundle.layout import is_partitioned, table_files
from tools.queries.composite import KEYED
from tools.queries.reference import stateless, thresholds
from tools.queries.reference.frames import Frames, selected_rows
from tools.queries.reference.stateless_rank import per_entity
from tools.queries.registry import Template, load_templates
from tools.queries.spec import QuerySpec
from tools.queries.stream_entity import (
    COLUMNS_MAX_ROWS,
    ENTITY,
    ENTITY_SELECTION,
    Refusing,
    entity_pass,
)
from tools.queries.stream_extra import EXTRA_SELECTION, REWRITTEN
from tools.queries.stream_frames import SliceFrames, categorize, needed_columns


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


class StreamExecutor:
    """Runs reference answers and naive readings on one bundle (one per synthesis context)."""

    def __init__(self, bundle: Path | str, entity_forms: Callable[[str], bool] | None = None):
        """``entity_forms(table)``: whether the per-entity forms stream that table (default: always);
        otherwise its stateful and incident templates read the needed columns whole (faster when
        pandas screens them many times, as it does on worlds whose data.duckdb holds a copy)."""
        self.bundle = Path(bundle)
        self.entity_forms = entity_forms or (lambda table: True)
        self._columns: tuple[tuple, SliceFrames] | None = None  # the last column-pruned frames, reused once
        self._naive: dict[tuple, Any] = {}  # the naive reading computed along with the last entity-form answer
        self._row_counts: dict[str, int] = {}

    def partitioned(self, q: QuerySpec) -> bool:
        """Whether the query's table is stored as several parts."""
        return is_partitioned(self.bundle, q.table) and len(table_files(self.bundle, q.table)) > 1

    def run(self, t: Template, q: QuerySpec, frames: Frames, naive: bool = False) -> Any:
        """The raw reference answer (or naive reading) of ``q``; ``frames`` serve single-file tables."""
        fn = t.naive if naive else t.reference
        key = f"{t.name}/naive" if naive else t.name
        if key in REWRITTEN:  # another template's question on another query: answered as that one
            target, rewrite = REWRITTEN[key]
            return self.run(replace(load_templates()[target], naive=None), rewrite(q), frames)
        if not self.partitioned(q):
            return fn(frames, q)
        mode = how(t.name, naive)
        if q.entity_parts and t.name in KEYED:  # the merges group by ``entity`` alone: read the columns whole
            mode = "columns"
        if mode == "entity" and not self.entity_forms(q.table):
            mode = "columns"
        if mode == "merged":
            partial, merge = MERGED[key]
            return merge([partial(f, q) for f in self._parts(q)], q)
        if mode == "selection" or (mode == "entity" and key in ENTITY_SELECTION):
            sel = SELECTION.get(key, lambda x: x)(q)
            return fn(self.selection(sel), q.model_copy(update={"entity_filter": None}))
        if mode == "entity":
            done, answer = entity_pass(lambda: self._parts(q), t, q, naive, fn, self._naive)
            if done:
                return answer
        if self.entity_forms(q.table) and self._rows(q.table) > COLUMNS_MAX_ROWS:
            return fn(Refusing(self.bundle, q.table, f"{key} has no streaming form and {q.table} has more "
                                f"than {COLUMNS_MAX_ROWS:,} rows: not asked on this world"), q)
        return self._on_columns(fn, q)

    def streams(self, t: Template, q: QuerySpec) -> bool:
        """Whether ``q``'s answer comes from a per-entity form, one pass over the parts."""
        if t.name in REWRITTEN:
            target, rewrite = REWRITTEN[t.name]
            return self.streams(load_templates()[target], rewrite(q))
        if not self.partitioned(q) or how(t.name) != "entity" or t.name in ENTITY_SELECTION:
            return False
        if (q.entity_parts and t.name in KEYED) or not self.entity_forms(q.table):
            return False
        return ENTITY[t.name][0](t.reference, q) is not None

    def _rows(self, table: str) -> int:
        """The table's row count from the parts' footers, read once per table (asked on every answer)."""
        if table not in self._row_counts:
            import pyarrow.parquet as pq

            self._row_counts[table] = sum(pq.ParquetFile(p).metadata.num_rows for p in table_files(self.bundle, table))
        return self._row_counts[table]

    def _parts(self, q: QuerySpec):
        """One ``SliceFrames`` per part of the query's table, with the needed columns (other tables whole)."""
        cols = needed_columns(self.bundle, q)
        for part in table_files(self.bundle, q.table):
            yield SliceFrames(self.bundle, files={q.table: [part]}, columns={q.table: cols})

    def selection(self, q: QuerySpec) -> SliceFrames:
        """Frames whose ``q.table`` is the concatenation of every part's selected rows (needed columns)."""
        cols = needed_columns(self.bundle, q)
        rows = [selected_rows(f, q)[cols] for f in self._parts(q)]
        merged = concat_parts(rows) if rows else pd.DataFrame(columns=cols)
        return SliceFrames(self.bundle, frames={q.table: merged})

    def _on_columns(self, fn: Callable[[Frames, QuerySpec], Any], q: QuerySpec) -> Any:
        key = (q.table, tuple(needed_columns(self.bundle, q)))
        if self._columns is None or self._columns[0] != key:
            self._columns = None  # let the previous frames go before reading the next
            self._columns = (key, SliceFrames(self.bundle, columns={q.table: list(key[1])}))
        try:
            return fn(self._columns[1], q)
        except KeyError:  # the template reads a column the query does not name: read them all
            self._columns = None
            return fn(SliceFrames(self.bundle), q)

    def release(self) -> None:
        """Drop the cached column-pruned frames."""
        self._columns = None


def executor(ctx: Any) -> StreamExecutor:
    """The context's streaming executor (kept in its memo, created on first use)."""
    key = ("stream-executor",)
    if key not in ctx.memo:  # the per-entity forms where pandas answers once per candidate (views-only worlds)
        ctx.memo[key] = StreamExecutor(ctx.bundle, lambda table: views_only(ctx, table))
    return ctx.memo[key]


def views_only(ctx: Any, table: str) -> bool:
    """Whether the context's data.duckdb holds ``table`` as a view over Parquet parts (a world above
    the copy threshold, tools/generate/duck_views.py) rather than a copied table."""
    key = ("stream-views-only", table)
    if key not in ctx.memo:
        row = ctx.con.execute("SELECT table_type FROM information_schema.tables WHERE table_schema = 'main' "
                              "AND table_name = ?", [table]).fetchone()
        ctx.memo[key] = row is not None and row[0] == "VIEW"
    return ctx.memo[key]


def explore_on_sample(ctx: Any) -> None:
    """On a world whose data.duckdb only holds views (too big to load), candidate enumerators that read
    ``ctx.frames`` explore the first parts only (``exploration_frames``); every answer still comes from
    both executors on all the data, and ``explain`` reads the full needed columns."""
    from tools.bundle.layout import is_partitioned
    from tools.queries.stream_frames import exploration_frames

    big = [n for n in ctx.catalog.tables if is_partitioned(ctx.bundle, n) and views_only(ctx, n)]
    if big:
        ctx.frames = exploration_frames(ctx.bundle, big)
        ctx.memo[("stream-sampled",)] = True


def explain(ctx: Any, t: Template, c: Any, answer: Any) -> str:
    """``t.explain`` (the answer_text a template words itself), on all the data even when candidate
    exploration reads a sample (``explore_on_sample``): the selected rows of a selection template
    (its entity filter already applied), else the query's columns whole."""
    if not ctx.memo.get(("stream-sampled",)):
        return t.explain(ctx, c, answer)
    sampled, ex = ctx.frames, executor(ctx)
    if t.name in SELECTION and ex.partitioned(c.spec):
        ctx.frames = ex.selection(SELECTION[t.name](c.spec))
        c = replace(c, spec=c.spec.model_copy(update={"entity_filter": None}))
    else:
        ctx.frames = SliceFrames(ctx.bundle, columns={c.spec.table: needed_columns(ctx.bundle, c.spec)})
    try:
        return t.explain(ctx, c, answer)
    finally:
        ctx.frames = sampled
