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
- ``detect_*``, ``shape_*``, ``claim_check``, ``false_premise``, ``unanswerable``: not ported to the keyed view
  yet (their candidates get ``entity_parts`` from ``Inc.spec`` and evaluation drops them as not expressible).
- ``incident_cross_table`` from a composite source: the related table refers to a link by one column.

The ``incident_*`` templates (but ``incident_cross_table``) are keyed: incidents.json names a composite
entity by its label (``RTR_001/eth2``; the record's ``key_parts`` lists the columns after ``id_column``),
synthesis reads the table through ``keyed_table`` (a temp view ``keyed_view_ddl`` on every synthesis
cursor) and the candidates' filters name the joined key column, which the executors' keyed view adds.
- any keyed template whose entity filter or group matches ``entity`` to a single column of another table
  (one router's links share that id): ``keyed_spec`` raises, and synthesis drops the candidate as not
  expressible. An entity filter or a group (``group_via``, ``group_table``) through the entity's own
  static table (one row per link, every key column on it) reads a keyed view of that table and matches
  the full key.
"""

from __future__ import annotations

import dataclasses
import functools
import re

import numpy as np
import pandas as pd

from tools.queries.spec import QuerySpec
from tools.spec.entity import KEY_SEPARATOR

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
    # incidents.json names a composite entity by its label (RTR_001/eth2, ``key_parts`` in the record); their
    # candidates come from ``keyed_table`` and filter on the joined key column (``key_column``)
    "incident_exists", "incident_kpi", "incident_affected_count", "incident_top_k", "incident_worst_entity",
    "incident_vs_baseline", "incident_cross_entity",
})
COMPOSITE_OK = NATIVE | KEYED
SEPARATOR = KEY_SEPARATOR  # "RTR_001/eth2": the parts in key order, joined (a part may itself contain "/")


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
    """The spec a keyed template's executors run: the view as its table, the joined key as its entity; an
    entity filter or a group read from the entity's own static table goes through that table's keyed view."""
    key = key_column(q)
    f, params = q.entity_filter, dict(q.params)
    if f is not None and f.table is not None and f.key == q.entity:
        if f.ref != q.entity:
            raise ValueError(f"{q.template}: an entity filter through {f.table}.{f.ref} (one column) does not "
                             "select single entities of a composite key")
        f = f.model_copy(update={"table": _static(f.table), "key": key, "ref": key})
    via = params.get("group_via") or {}
    if via.get("key") == q.entity:
        if via.get("ref") != q.entity:
            raise ValueError(f"{q.template}: a group read from {via.get('table')} by one column of the key")
        params["group_via"] = {**via, "table": _static(via["table"]), "key": key, "ref": key}
    if params.get("group_table") and params.get("group_key") == q.entity:
        if params.get("group_ref") != q.entity:
            raise ValueError(f"{q.template}: a group read from {params['group_table']} by one column of the key")
        params.update(group_table=_static(params["group_table"]), group_key=key, group_ref=key)
    if q.group_by is not None and q.group_by in q.entity_parts:
        raise ValueError(f"{q.template}: grouping by a part of the entity's key")
    if params.get("of") == q.entity:
        params["of"] = key
    return q.model_copy(update={"table": view_name(q), "entity": key, "entity_parts": [], "params": params,
                                "entity_filter": f, "group_by": key if q.group_by == q.entity else q.group_by})


def keyed_table(t):
    """The synthesis view of a composite table ``t`` (a catalog ``TableView``): the keyed view
    (``keyed_view_ddl``, a temp view on every synthesis cursor) with the joined key as its entity. A static
    attribute read by the entity's id from another table is left out (its filter would match one column)."""
    q = QuerySpec(template="x", table=t.name, entity=t.entity, time=t.time, entity_parts=list(t.entity_parts))
    attrs = tuple(a for a in t.attrs if a.table is None or a.key != t.entity)
    return dataclasses.replace(t, name=view_name(q), entity=key_column(q), entity_parts=(), attrs=attrs)


def keyed_view_ddl(t) -> str:
    """``CREATE TEMP VIEW`` of a composite table's keyed view (the ``keyed_sql`` view, for synthesis queries)."""
    from tools.queries.sql.common import ident

    q = QuerySpec(template="x", table=t.name, entity=t.entity, time=t.time, entity_parts=list(t.entity_parts))
    return (f"CREATE OR REPLACE TEMP VIEW {ident(view_name(q))} AS SELECT *, "
            f"{_joined_sql([t.entity, *t.entity_parts])} AS {ident(key_column(q))} FROM {ident(t.name)}")


def _joined_sql(columns: list[str]) -> str:
    """The SQL expression of the joined key (``RTR_001/eth2``) from its columns."""
    from tools.queries.sql.common import ident, lit

    return f" || {lit(SEPARATOR)} || ".join(f"CAST({ident(c)} AS VARCHAR)" for c in columns)


def _static(table: str) -> str:
    return f"{table}__keyed"


def views(q: QuerySpec) -> dict[str, str]:
    """The keyed views a spec reads, {view: table}: its table, and the entity's static table when an entity
    filter or a group reads it by the entity's id (a composite entity's static table has one row per
    entity and every key column: ``composite_parts`` are attributes on the rows)."""
    out = {view_name(q): q.table}
    k = keyed_spec(q)
    for was, now in ((q.entity_filter and q.entity_filter.table, k.entity_filter and k.entity_filter.table),
                     ((q.p("group_via") or {}).get("table"), (k.p("group_via") or {}).get("table")),
                     (q.p("group_table"), k.p("group_table"))):
        if was and now != was:
            out[now] = was
    return out


def keyed_frame(df: pd.DataFrame, q: QuerySpec) -> pd.DataFrame:
    """``df`` with the joined key column (null when any part is null), a category like every text column."""
    parts = [df[c].astype("string") for c in key_columns(q)]
    joined = parts[0].str.cat(parts[1:], sep=SEPARATOR)
    return df.assign(**{key_column(q): joined.astype("category")})


def keyed_frames(frames, q: QuerySpec):
    """``frames`` (a ``Frames``) also serving the keyed view of ``q.table`` under ``view_name(q)``."""
    for name, table in views(q).items():
        frames.derived(name, lambda table=table: keyed_frame(frames.table(table), q))
    return frames


def keyed_sql(q: QuerySpec, body: str) -> str:
    """A keyed template's SQL (written against ``keyed_spec(q)``) with the views as its first CTEs."""
    from tools.queries.sql.common import ident

    joined = _joined_sql(key_columns(q))
    view = ", ".join(f"{ident(name)} AS (SELECT *, {joined} AS {ident(key_column(q))} FROM {ident(table)})"
                     for name, table in views(q).items())
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
