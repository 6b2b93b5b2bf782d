"""Composite entity keys (issue 19): an entity identified by two or more columns (a transport link is
``Device_ID`` + ``Interface_ID``; one router carries several interfaces). ``QuerySpec.entity_parts``
names the columns after ``entity``. Every template in ``COMPOSITE_OK`` counts, orders and names per full
key in both executors; any other template refuses such a spec (ValueError: "not expressible") rather than
answer per ``entity`` alone.

Two ways a template takes a composite key:

- **native** (``NATIVE``): its executors group on every key column themselves (``key_columns``,
  ``key_sql``; ``entity_numbers`` and ``in_entity_time_order`` for streams in the pandas reference).
- **keyed** (``KEYED``): the registry wraps its executors (``keyed_template``). Both executors read the
  table through a view that adds one key column joined from the parts with ``SEPARATOR``
  (``"RTR_001/eth2"``, column ``Device_ID__Interface_ID``) and run the template unchanged with that column
  as the entity: per-entity streams (sorting, ``PARTITION BY``, episodes, pairings), distinct counts,
  rankings and groups then follow the full key, and an answer naming an entity names it
  ``<Device_ID>/<Interface_ID>``: the documented format (suite.json ``tables.<t>.key_format``).
  The pandas view is built from the Parquet frame (``str.cat``), the SQL one in a CTE (``||``): the two
  stay independent.

Templates that keep refusing a composite key, and why:

- ``forecast_*``: they read the held-back rows (``holdout/``) through their own selection; their
  candidates carry no ``entity_parts`` (an entity filter on a composite table selects by ``entity``).
- ``parent_sequence_count``: counts distinct parents through a foreign key; the parent has a single id.
- ``detect_*``, ``shape_*``, ``claim_check``, ``false_premise``, ``unanswerable``, ``incident_*``: they
  read ``incidents.json``, whose affected entities the generator names by the ``entity`` column alone (a
  router, not a link), so the full key of an affected entity is not known to the question.
- any keyed template whose group is read from a static table by ``entity`` alone (``group_via``,
  ``group_table``: one router's links share its id there, so the lookup is ambiguous), or whose entity
  filter matches ``entity`` to another column of another table: ``keyed_spec`` raises, and synthesis drops
  the candidate as not expressible. An entity filter through the entity's own static table (one row per
  link, every key column on it) reads a keyed view of that table and matches the full key.
"""

from __future__ import annotations

import dataclasses
import functools
import re

import numpy as np
import pandas as pd

from tools.queries.spec import QuerySpec

NATIVE = frozenset({"entity_count_threshold", "entity_count_streak"})
KEYED = frozenset({
    "state_duration", "avg_time_between", "first_passage_time", "sequence_match", "count_after_trigger",
    "conversion_rate", "count_in_state", "state_reached", "revisit_count", "state_occupancy",
    "transition_counts", "common_paths", "alternating_count", "threshold_without_outcome", "cross_window_delta",
    "transition_count_by", "occupancy_by", "reached_by", "top_transitions",
    "distinct_count", "top_k_by_aggregate", "group_aggregate", "attribute_extreme",
    # per row, but an entity filter on the rows' own columns ("links that ever lost packets") selects entities
    "event_count", "event_rate", "attribute_mean", "attribute_std", "attribute_percentile",
    "conditional_aggregate", "exists",
})
COMPOSITE_OK = NATIVE | KEYED
SEPARATOR = "/"  # "RTR_001/eth2": the parts in key order, joined (a part may itself contain "/")


def key_columns(q: QuerySpec) -> list[str]:
    """The entity's id columns: ``entity`` then ``entity_parts``."""
    if q.entity_parts and q.template not in COMPOSITE_OK:
        raise ValueError(f"{q.template} does not take a composite entity key")
    return [q.entity, *q.entity_parts]


def key_format(entity: str, parts: list[str] | tuple[str, ...]) -> str:
    """How an answer names one entity of a composite key: ``Device_ID/Interface_ID``."""
    return SEPARATOR.join([entity, *parts])


def key_sql(q: QuerySpec, alias: str = "") -> str:
    """The id columns as a SQL list (``"Device_ID", "Interface_ID"``)."""
    from tools.queries.sql.common import ident  # the SQL side only: the pandas executor never quotes

    pre = f"{alias}." if alias else ""
    return ", ".join(pre + ident(c) for c in key_columns(q))


def entity_numbers(df: pd.DataFrame, q: QuerySpec) -> np.ndarray:
    """Per row, the number of its entity (full key; rows with a null key part get -1)."""
    cols = key_columns(q)
    if len(cols) == 1:
        ent = df[cols[0]]
        codes = ent.cat.codes.to_numpy() if isinstance(ent.dtype, pd.CategoricalDtype) else pd.factorize(ent)[0]
        return codes.astype(np.int64)
    return df.groupby(cols, observed=True, sort=False, dropna=False).ngroup().to_numpy().astype(np.int64)


def in_entity_time_order(df: pd.DataFrame, gid: np.ndarray, time: str) -> tuple[pd.DataFrame, np.ndarray]:
    """The rows and entity numbers reordered by (entity number, time) (a composite key's rows are
    interleaved in the (first column, time) order the frames keep)."""
    t = df[time].to_numpy(dtype="datetime64[ns]").astype(np.int64)
    order = np.lexsort((t, gid))
    return df.iloc[order], gid[order]


# -- keyed templates: one joined key column ----------------------------------------------------------

def key_column(q: QuerySpec) -> str:
    """The joined key column's name (``Device_ID__Interface_ID``: a plain name in every SQL dialect)."""
    return "__".join([q.entity, *q.entity_parts])


def view_name(q: QuerySpec) -> str:
    """The keyed view's name, as the rewritten spec's ``table`` (``transport_link__keyed``)."""
    return f"{q.table}__keyed"


def keyed_spec(q: QuerySpec) -> QuerySpec:
    """The spec a keyed template's executors run: the view as its table, the joined key as its entity."""
    f = q.entity_filter
    if f is not None and f.table is not None and f.key == q.entity and f.ref != q.entity:
        raise ValueError(f"{q.template}: an entity filter through {f.table}.{f.ref} (one column) does not "
                         "select single entities of a composite key")
    key = key_column(q)
    if static_view(q):  # the entity's static table, one row per entity: matched on the joined key too
        f = f.model_copy(update={"table": static_view(q), "key": key, "ref": key})
    via = q.p("group_via") or {}
    if (q.p("group_table") and q.p("group_key") == q.entity) or via.get("key") == q.entity:
        raise ValueError(f"{q.template}: a group read from a static table keyed by {q.entity} alone "
                         "(one router's links share its rows there)")
    if q.group_by is not None and q.group_by in q.entity_parts:
        raise ValueError(f"{q.template}: grouping by a part of the entity's key")
    params = dict(q.params)
    if params.get("of") == q.entity:
        params["of"] = key
    return q.model_copy(update={"table": view_name(q), "entity": key, "entity_parts": [], "params": params,
                                "entity_filter": f, "group_by": key if q.group_by == q.entity else q.group_by})


def static_view(q: QuerySpec) -> str | None:
    """The keyed view of the static table an entity filter reads (by the entity's own id), if any: the
    static table of a composite entity holds every key column (``composite_parts``: attributes on the rows)."""
    f = q.entity_filter
    if f is None or f.table is None or f.key != q.entity or f.ref != q.entity:
        return None
    return f"{f.table}__keyed"


def keyed_frame(df: pd.DataFrame, q: QuerySpec) -> pd.DataFrame:
    """``df`` with the joined key column (null when any part is null), a category like every text column."""
    parts = [df[c].astype("string") for c in key_columns(q)]
    joined = parts[0].str.cat(parts[1:], sep=SEPARATOR)
    return df.assign(**{key_column(q): joined.astype("category")})


def keyed_frames(frames, q: QuerySpec):
    """``frames`` (a ``Frames``) also serving the keyed view of ``q.table`` under ``view_name(q)``."""
    views = {view_name(q): q.table}
    if static_view(q):
        views[static_view(q)] = q.entity_filter.table
    with frames._lock:
        for name, table in views.items():
            if name not in frames._cache:
                frames._cache[name] = keyed_frame(frames.table(table), q)
    return frames


def keyed_sql(q: QuerySpec, body: str) -> str:
    """A keyed template's SQL (written against ``keyed_spec(q)``) with the views as its first CTEs."""
    from tools.queries.sql.common import ident, lit

    joined = f" || {lit(SEPARATOR)} || ".join(f"CAST({ident(c)} AS VARCHAR)" for c in key_columns(q))
    views = {view_name(q): q.table}
    if static_view(q):
        views[static_view(q)] = q.entity_filter.table
    view = ", ".join(f"{ident(name)} AS (SELECT *, {joined} AS {ident(key_column(q))} FROM {ident(table)})"
                     for name, table in views.items())
    m = re.match(r"\s*WITH\s+", body, re.IGNORECASE)
    if m and re.match(r"\s*WITH\s+RECURSIVE\b", body, re.IGNORECASE):
        raise ValueError("a recursive query cannot take the keyed view")
    return f"WITH {view}, {body[m.end():]}" if m else f"WITH {view} {body}"


def keyed_template(t):
    """``t`` (a registry ``Template``) with executors that take a composite key through the keyed view;
    a spec without ``entity_parts`` runs the original executors unchanged."""

    def on_frames(fn):
        @functools.wraps(fn)
        def run(frames, q: QuerySpec):
            if not q.entity_parts:
                return fn(frames, q)
            return fn(keyed_frames(frames, q), keyed_spec(q))
        return run

    @functools.wraps(t.sql)
    def sql(q: QuerySpec) -> str:
        return keyed_sql(q, t.sql(keyed_spec(q))) if q.entity_parts else t.sql(q)

    return dataclasses.replace(t, reference=on_frames(t.reference), sql=sql,
                               naive=None if t.naive is None else on_frames(t.naive))
