"""Composite entity keys (issue 19): an entity identified by two or more columns (a transport link is
``Device_ID`` + ``Interface_ID``; one router carries several interfaces). ``QuerySpec.entity_parts``
names the columns after ``entity``; the templates in ``COMPOSITE_OK`` count and order per full key in
both executors, and every other template refuses such a spec (ValueError: "not expressible") rather than
answer per ``entity`` alone. Helpers for both executors live here."""

from __future__ import annotations

import numpy as np
import pandas as pd

from tools.queries.spec import QuerySpec

COMPOSITE_OK = frozenset({"entity_count_threshold", "entity_count_streak"})


def key_columns(q: QuerySpec) -> list[str]:
    """The entity's id columns: ``entity`` then ``entity_parts``."""
    if q.entity_parts and q.template not in COMPOSITE_OK:
        raise ValueError(f"{q.template} does not take a composite entity key")
    return [q.entity, *q.entity_parts]


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
