"""Frames that read part of a partitioned bundle: some Parquet parts, some columns.

The pandas reference executor (tools/queries/reference/) reads tables through a ``Frames``. On a
partitioned bundle (``data/<table>/part-NNNNN.parquet``, ``--engine dask``) the streaming executor
(tools/queries/stream.py) hands it a :class:`SliceFrames` instead: one part of the queried table
(an entity never spans parts) or every part but only the columns the query names. Text columns get
the same ``category`` dtype as in ``Frames``.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from tools.bundle.integrity import BundleIntegrityError
from tools.bundle.layout import table_files
from tools.queries.reference.frames import Frames
from tools.queries.spec import QuerySpec


def read_frame(files: list[Path], columns: list[str] | None, where: Path) -> pd.DataFrame:
    """Parquet files (in order) as one DataFrame with text columns as categories (``Frames``' dtypes);
    ``columns`` (None: all) are read in the file's column order. ``where`` names the table in errors."""
    try:
        schema = pq.read_schema(files[0])
        cols = None if columns is None else [f.name for f in schema if f.name in set(columns)]
        text = [f.name for f in schema if (pa.types.is_string(f.type) or pa.types.is_large_string(f.type))
                and (cols is None or f.name in cols)]
        source = files[0] if len(files) == 1 else [str(f) for f in files]
        df = pq.read_table(source, columns=cols, read_dictionary=text).to_pandas(strings_to_categorical=True)
    except (pa.ArrowInvalid, OSError) as exc:
        raise BundleIntegrityError(f"{where}: not a readable Parquet file ({exc}); regenerate the bundle") from None
    return categorize(df)


def categorize(df: pd.DataFrame) -> pd.DataFrame:
    """Text columns (string or object dtype) as ``category``, as ``Frames`` gives them."""
    for c in df.columns:
        if not isinstance(df[c].dtype, pd.CategoricalDtype) and (
                pd.api.types.is_string_dtype(df[c].dtype) or df[c].dtype == object):
            df[c] = df[c].astype("category")
    return df


class SliceFrames(Frames):
    """A ``Frames`` over chosen parts and columns of some tables (the others are read whole).

    ``files[name]``: the Parquet files of table ``name`` to read (default: all of them, in part
    order); ``columns[name]``: the columns to read (default: all); ``frames[name]``: a DataFrame to
    use as the table as it is (a merged selection)."""

    def __init__(self, bundle: Path | str, files: dict[str, list[Path]] | None = None,
                 columns: dict[str, list[str]] | None = None, frames: dict[str, pd.DataFrame] | None = None):
        super().__init__(bundle)
        self._files = dict(files or {})
        self._columns = dict(columns or {})
        self._cache.update(frames or {})

    def _load(self, name: str) -> pd.DataFrame:
        if name not in self._cache:
            files = self._files.get(name) or table_files(self.bundle, name)
            self._cache[name] = read_frame(files, self._columns.get(name), self.bundle / "data" / name)
        return self._cache[name]


def _strings(x: Any) -> Iterable[str]:
    if isinstance(x, str):
        yield x
    elif isinstance(x, dict):
        for v in x.values():
            yield from _strings(v)
    elif isinstance(x, list | tuple):
        for v in x:
            yield from _strings(v)


def needed_columns(bundle: Path | str, q: QuerySpec) -> list[str]:
    """The columns of ``q.table`` a query can touch: its entity and time and every column it names
    anywhere (filters, parameters, states); reading more is harmless, reading less is a KeyError."""
    names = {f.name for f in pq.read_schema(table_files(bundle, q.table)[0])}
    return sorted(names & ({q.entity, q.time} | set(_strings(q.to_json()))))


EXPLORE_ROWS = 10_000_000  # rows of each table candidate exploration reads on a views-only world


def exploration_frames(bundle: Path | str, tables: Iterable[str], rows: int | None = None) -> SliceFrames:
    """Frames over the first parts of each partitioned table, up to about ``rows`` rows (at least one
    part): what candidate enumerators that read pandas frames (state statistics, observed transitions)
    explore on a world too big to load. Deterministic (part order); answers never come from it."""
    rows = EXPLORE_ROWS if rows is None else rows
    files: dict[str, list[Path]] = {}
    for name in tables:
        parts, total = [], 0
        for p in table_files(bundle, name):
            if parts and total >= rows:
                break
            parts.append(p)
            total += pq.ParquetFile(p).metadata.num_rows
        files[name] = parts
    return SliceFrames(bundle, files=files)
