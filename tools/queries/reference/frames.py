"""The pandas executor's data access: Parquet tables and the filters every template shares.

This is the reference implementation, written independently of the SQL compiler: it reads the
bundle's Parquet files (not data.duckdb) and applies filters with pandas, so a bug in either
path shows up as a disagreement.
"""

from __future__ import annotations

import threading
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from tools.bundle.files import DATA_DIR
from tools.bundle.integrity import BundleIntegrityError
from tools.bundle.layout import table_files
from tools.bundle.paths import child_path
from tools.queries.spec import Predicate, QuerySpec


class Frames:
    """Loads ``data/<table>.parquet`` once per table.

    Text columns become pandas ``category`` columns whatever the file's encoding (dictionary in
    generated bundles, plain in hand-made ones), so templates see one dtype; comparisons, ``isin``
    and groupby work on the codes, which keeps 10M-row tables fast. Category order is not
    alphabetical: never rely on it for ordering answers.
    """

    def __init__(self, bundle: Path | str):
        self.bundle = Path(bundle)
        self._cache: dict[str, pd.DataFrame] = {}
        self._sorted: dict[tuple[str, str, str], pd.DataFrame] = {}
        self._lock = threading.RLock()  # one load per table even when threads ask at once

    def table(self, name: str) -> pd.DataFrame:
        with self._lock:
            return self._load(name)

    def derived(self, name: str, build) -> pd.DataFrame:
        """The table ``name`` served from memory, built once by ``build()`` (a view of other tables, or a
        table passed in rather than read from Parquet)."""
        with self._lock:
            if name not in self._cache:
                self._cache[name] = build()
            return self._cache[name]

    def _load(self, name: str) -> pd.DataFrame:
        if name not in self._cache:
            files = table_files(self.bundle, name)  # one file, or the parts of --engine dask in part order
            path = files[0] if len(files) == 1 else child_path(self.bundle / DATA_DIR, name)
            try:
                text = [f.name for f in pq.read_schema(files[0]) if pa.types.is_string(f.type) or pa.types.is_large_string(f.type)]
                source = files[0] if len(files) == 1 else [str(f) for f in files]
                df = pq.read_table(source, read_dictionary=text).to_pandas(strings_to_categorical=True)
            except (pa.ArrowInvalid, OSError) as exc:
                raise BundleIntegrityError(f"{path}: not a readable Parquet file ({exc}); regenerate the bundle "
                                           f"(`chronoeval generate SPEC -o {self.bundle} --force`)") from None
            for c in df.columns:
                if not isinstance(df[c].dtype, pd.CategoricalDtype) and (
                        pd.api.types.is_string_dtype(df[c].dtype) or df[c].dtype == object):
                    df[c] = df[c].astype("category")
            self._cache[name] = df
        return self._cache[name]

    def ordered(self, name: str, entity: str, time: str) -> pd.DataFrame:
        """The table in (entity, time) order with a fresh index (sorted once, then cached)."""
        k = (name, entity, time)
        with self._lock:
            return self._order(k)

    def _order(self, k: tuple[str, str, str]) -> pd.DataFrame:
        name, entity, time = k
        if k not in self._sorted:
            df = self.table(name)
            codes = df[entity].cat.codes.to_numpy() if isinstance(df[entity].dtype, pd.CategoricalDtype) \
                else pd.factorize(df[entity])[0]
            tv = df[time].dt.tz_convert("UTC").dt.tz_localize(None).to_numpy("datetime64[us]").astype(np.int64)
            if not _grouped_in_time_order(codes, tv):
                df = df.iloc[np.lexsort((tv, codes))].reset_index(drop=True)
            self._sorted[k] = df
        return self._sorted[k]


def _grouped_in_time_order(codes: np.ndarray, t: np.ndarray) -> bool:
    """True when each entity's rows are contiguous and in increasing time order (the generator's
    layout), so no sort is needed."""
    if codes.size < 2:
        return True
    change = codes[1:] != codes[:-1]
    if not np.all(change | (t[1:] > t[:-1])):
        return False
    return np.unique(codes[np.r_[True, change]]).size == int(change.sum()) + 1


def mask(df: pd.DataFrame, p: Predicate) -> np.ndarray:
    """Rows satisfying one predicate; nulls never do."""
    col = df[p.column]
    v = p.value
    if p.op == "in":
        out = col.isin(v)
    elif p.op == "not_in":
        out = ~col.isin(v) & col.notna()
    else:
        out = {"==": col.__eq__, "!=": col.__ne__, ">": col.__gt__, ">=": col.__ge__,
               "<": col.__lt__, "<=": col.__le__}[p.op](v)
    return np.asarray(out.fillna(False), dtype=bool) & np.asarray(col.notna(), dtype=bool)


def all_of(df: pd.DataFrame, preds: list[Predicate]) -> np.ndarray:
    """Rows satisfying every predicate."""
    m = np.ones(len(df), dtype=bool)
    for p in preds:
        m &= mask(df, p)
    return m


def entity_mask(frames: Frames, q: QuerySpec, df: pd.DataFrame) -> np.ndarray:
    """Rows of ``df`` (the ordered main table) whose entity the entity filter selects."""
    f = q.entity_filter
    if f is None:
        return np.ones(len(df), dtype=bool)
    if f.table is None:
        ids = df.loc[all_of(df, f.predicates), q.entity].unique()
        return np.asarray(df[q.entity].isin(ids), dtype=bool)
    ref = frames.table(f.table)
    ok = ref.loc[all_of(ref, f.predicates), f.ref].unique()
    return np.asarray(df[f.key].isin(ok), dtype=bool)


def entity_rows(frames: Frames, q: QuerySpec) -> pd.DataFrame:
    """The main table restricted to the entities the entity filter selects, in (entity, time) order."""
    df = frames.ordered(q.table, q.entity, q.time)
    return df if q.entity_filter is None else df[entity_mask(frames, q, df)]


def in_window(df: pd.DataFrame, q: QuerySpec) -> np.ndarray:
    """Rows whose timestamp is in ``[start, end)`` (all rows without a window)."""
    if q.window is None:
        return np.ones(len(df), dtype=bool)
    t = df[q.time]
    end = pd.Timestamp(q.window.end)
    before_end = (t <= end) if q.window.closed else (t < end)
    return ((t >= pd.Timestamp(q.window.start)) & before_end).to_numpy(dtype=bool, copy=True)


def selected_rows(frames: Frames, q: QuerySpec, *, events: bool = True) -> pd.DataFrame:
    """Entity filter, window, ``while`` predicate and (if ``events``) the event filter applied."""
    df = frames.ordered(q.table, q.entity, q.time)
    m = in_window(df, q)
    if q.entity_filter is not None:
        m &= entity_mask(frames, q, df)
    if q.while_ is not None:
        m &= mask(df, q.while_)
    if events:
        m &= all_of(df, q.event_filter)
    return df[m]


def state_labels(df: pd.DataFrame, state: dict) -> pd.Series:
    """Per-row state: the column's value, or ``"in"``/``"out"`` for a predicated state."""
    if "column" in state:
        return df[state["column"]].astype("string")
    m = mask(df, Predicate.model_validate(state["predicate"]))
    return pd.Series(np.where(m, "in", "out"), index=df.index, dtype="string")
