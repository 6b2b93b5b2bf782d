"""The pandas reference executor on partitioned bundles (``StreamExecutor``): shard by shard, then an
exact merge, by one of the paths tools/queries/stream_paths.py describes (``how(template)``). Also the
synthesis context's helpers for worlds whose data.duckdb holds views (too big to load): its executor,
candidate exploration on a sample and answer texts from all the data.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pandas as pd

from tools.bundle.layout import is_partitioned, table_files
from tools.queries.composite import KEYED, key_column, keyed_frames, keyed_spec
from tools.queries.reference.frames import Frames, selected_rows
from tools.queries.registry import TEMPLATES, Template, load_templates
from tools.queries.spec import QuerySpec
from tools.queries.stream_entity import (
    COLUMNS_MAX_ROWS,
    ENTITY,
    ENTITY_SELECTION,
    Refusing,
    answer_key,
    entity_pass,
    keep,
)
from tools.queries.stream_extra import REWRITTEN
from tools.queries.stream_frames import SliceFrames, needed_columns
from tools.queries.stream_paths import MERGED, SELECTION, concat_parts, how

__all__ = ["COLUMNS_MAX_ROWS", "ENTITY", "MERGED", "SELECTION", "StreamExecutor", "explain", "executor",
           "explore_on_sample", "how", "views_only"]


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
        self._also: list[QuerySpec] = []  # queries riding along on the next entity pass (``prefetch``)

    def partitioned(self, q: QuerySpec) -> bool:
        """Whether the query's table is stored as several parts."""
        return is_partitioned(self.bundle, q.table) and len(table_files(self.bundle, q.table)) > 1

    def run(self, t: Template, q: QuerySpec, frames: Frames, naive: bool = False) -> Any:
        """The raw reference answer (or naive reading) of ``q``; ``frames`` serve single-file tables."""
        fn = t.naive if naive else t.reference
        key = f"{t.name}/naive" if naive else t.name
        if key in REWRITTEN:  # another template's question on another query: answered as that one
            target, rewrite = REWRITTEN[key]
            return self.run(replace(_registered(target), naive=None), rewrite(q), frames)
        if not self.partitioned(q):
            return fn(frames, q)
        src, q = q, self._keyed(t, q)
        mode = how(t.name, naive)
        if mode == "entity" and not self.entity_forms(src.table):
            mode = "columns"
        if mode == "merged":
            partial, merge = MERGED[key]
            return merge([partial(f, q) for f in self._parts(src, q)], q)
        if mode == "selection" or (mode == "entity" and key in ENTITY_SELECTION):
            sel = SELECTION.get(key, lambda x: x)(q)
            return fn(self.selection(sel, src), q.model_copy(update={"entity_filter": None}))
        if mode == "entity":
            also = [self._keyed(t, x) for x in self._also]
            done, answer = entity_pass(lambda: self._parts(src, q), t, q, naive, fn, self._naive, also)
            if done:
                return answer
        if self.entity_forms(src.table) and self._rows(src.table) > COLUMNS_MAX_ROWS:
            return fn(Refusing(self.bundle, src.table, f"{key} has no streaming form and {src.table} has more "
                                f"than {COLUMNS_MAX_ROWS:,} rows: not asked on this world"), src)
        return self._on_columns(fn, src)

    def prefetch(self, t: Template, q: QuerySpec, also: list[QuerySpec]) -> None:
        """Compute ``q``'s answer (and naive reading) with the answers of ``also`` (queries of the same
        template on the same table: its screening re-runs) in one pass over the parts, each kept for
        the ``run`` that asks it. Only where ``streams(t, q)``; the answers are those ``run`` gives."""
        if not self.streams(t, q):
            return
        self._also = also
        try:
            answer = self.run(t, q, Frames(self.bundle))
        finally:
            self._also = []
        keep(self._naive, answer_key(t.name, self._keyed(t, q)), answer)

    @staticmethod
    def _keyed(t: Template, q: QuerySpec) -> QuerySpec:
        """The query a path runs: a keyed template's on a composite key reads each part's keyed view (the
        joined key as its entity: a full key's rows are all in one part), so merges, selections and
        per-entity forms group per full key; any other query as it is."""
        return keyed_spec(q) if q.entity_parts and t.name in KEYED else q

    def streams(self, t: Template, q: QuerySpec) -> bool:
        """Whether ``q``'s answer comes from a per-entity form, one pass over the parts."""
        if t.name in REWRITTEN:
            target, rewrite = REWRITTEN[t.name]
            return self.streams(_registered(target), rewrite(q))
        if not self.partitioned(q) or how(t.name) != "entity" or t.name in ENTITY_SELECTION:
            return False
        if not self.entity_forms(q.table):
            return False
        return ENTITY[t.name][0](t.reference, self._keyed(t, q)) is not None

    def _rows(self, table: str) -> int:
        """The table's row count from the parts' footers, read once per table (asked on every answer)."""
        if table not in self._row_counts:
            import pyarrow.parquet as pq

            self._row_counts[table] = sum(pq.ParquetFile(p).metadata.num_rows for p in table_files(self.bundle, table))
        return self._row_counts[table]

    def _parts(self, src: QuerySpec, q: QuerySpec | None = None):
        """One ``SliceFrames`` per part of ``src``'s table, with the needed columns (other tables whole);
        with the keyed view of each part too when ``q`` reads it (``_keyed``)."""
        cols = needed_columns(self.bundle, src)
        for part in table_files(self.bundle, src.table):
            f = SliceFrames(self.bundle, files={src.table: [part]}, columns={src.table: cols})
            yield keyed_frames(f, src) if q is not None and q.table != src.table else f

    def selection(self, q: QuerySpec, src: QuerySpec | None = None) -> SliceFrames:
        """Frames whose ``q.table`` is the concatenation of every part's selected rows (needed columns);
        ``src``: the query whose table's parts hold them, when ``q`` reads their keyed view."""
        src = q if src is None else src
        cols = needed_columns(self.bundle, src) + ([key_column(src)] if q.table != src.table else [])
        rows = [selected_rows(f, q)[cols] for f in self._parts(src, q)]
        merged = concat_parts(rows) if rows else pd.DataFrame(columns=cols)
        out = SliceFrames(self.bundle, frames={q.table: merged})
        return keyed_frames(out, src) if q.table != src.table else out  # the static table's keyed view

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


def _registered(name: str) -> Template:
    """A registered template (the registry is loaded once, not on every answer)."""
    return TEMPLATES.get(name) or load_templates()[name]


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
