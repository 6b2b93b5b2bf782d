"""Where a bundle's tables live: ``data/<table>.parquet`` (local engine) or the partitioned layout
``data/<table>/part-NNNNN.parquet`` (``--engine dask``). Every reader goes through these helpers so
both layouts read the same way; parts are always read in part order, which is shard order, so the
rows come out in the same order as the local engine's single file.
"""

from __future__ import annotations

import os
import re
import tempfile
from pathlib import Path

import duckdb

from tools.bundle.files import DATA_DIR
from tools.bundle.paths import child_path
from tools.sqlsafe import quote_ident, quote_literal

PART_GLOB = "part-*.parquet"


def part_name(n: int) -> str:
    """File name of part ``n`` of a partitioned table."""
    return f"part-{n:05d}.parquet"


def is_partitioned(bundle: Path | str, name: str) -> bool:
    """Whether table ``name`` is stored as a directory of parts."""
    return child_path(Path(bundle) / DATA_DIR, name).is_dir()


def table_files(bundle: Path | str, name: str) -> list[Path]:
    """The Parquet files of table ``name`` in row order (one file, or the parts in part order).
    A missing table gives ``[data/<name>.parquet]`` so the caller's error names the expected file."""
    data = Path(bundle) / DATA_DIR
    folder = child_path(data, name)
    if folder.is_dir():
        return sorted(folder.glob(PART_GLOB))
    return [child_path(data, name, ".parquet")]


def table_names(bundle: Path | str) -> list[str]:
    """Names of every table in ``data/`` (files and partitioned directories), sorted."""
    data = Path(bundle) / DATA_DIR
    if not data.is_dir():
        return []
    names = {p.stem for p in data.glob("*.parquet") if p.is_file()}
    names |= {p.name for p in data.iterdir() if p.is_dir() and any(p.glob(PART_GLOB))}
    return sorted(names)


def parquet_source(bundle: Path | str, name: str) -> str:
    """A DuckDB ``read_parquet(...)`` expression over table ``name`` (absolute paths)."""
    files = [str(p.resolve()) for p in table_files(bundle, name)]
    return "read_parquet([" + ", ".join(quote_literal(f) for f in files) + "])"


_SETTINGS: dict[str, str | None] = {"memory_limit": None}


def set_memory_limit(limit: str | None) -> None:
    """The DuckDB memory limit of every bundle connection opened from now on in this process (``'4GB'``;
    None: DuckDB's default, 80% of RAM). ``chronoeval check/queries --memory-limit`` set it."""
    if limit is not None and not re.fullmatch(r"\d+(\.\d+)?\s*[KMGT]i?B", limit.strip(), re.IGNORECASE):
        raise ValueError(f"memory limit {limit!r}: give a size such as 4GB or 512MB")
    _SETTINGS["memory_limit"] = limit


def connect_bundle(db_path: Path | str, *, read_only: bool = True,
                   memory_limit: str | None = None) -> duckdb.DuckDBPyConnection:
    """Open a bundle's ``data.duckdb``. Large worlds hold views over ``data/<table>/*.parquet`` with
    paths relative to the bundle, so the bundle directory is put on DuckDB's file search path (the
    bundle can move); ``memory_limit`` (e.g. ``'4GB'``, default: ``set_memory_limit``'s) makes DuckDB
    spill to its temp directory instead of growing."""
    db_path = Path(db_path)
    con = duckdb.connect(str(db_path), read_only=read_only)
    con.execute(f"SET GLOBAL file_search_path = {quote_literal(str(db_path.resolve().parent))}")  # cursors too
    memory_limit = memory_limit or _SETTINGS["memory_limit"]
    if memory_limit:  # spill outside the bundle (its files are hashed in manifest.json)
        spill = Path(tempfile.gettempdir()) / f"chronoeval-duckdb-spill-{os.getpid()}"
        con.execute(f"SET temp_directory = {quote_literal(str(spill))}")
        con.execute(f"SET memory_limit = {quote_literal(memory_limit)}")
    return con


def add_rowid_views(con: duckdb.DuckDBPyConnection, bundle: Path | str) -> list[str]:
    """For every table of ``bundle`` that data.duckdb only holds as a view over Parquet parts, a
    connection-local TEMP view of the same name that also has ``rowid``: the row's position in file
    order (part offsets + ``file_row_number``), as a copied table's ``rowid`` is. The checks order
    ties and test storage order with ``rowid``; views over Parquet have none. Returns the tables."""
    views = [r[0] for r in con.execute("SELECT table_name FROM information_schema.tables WHERE table_schema = 'main' "
                                       "AND table_type = 'VIEW' AND table_catalog <> 'temp'").fetchall()]
    done = []
    for name in views:
        if not is_partitioned(bundle, name):
            continue
        import pyarrow.parquet as pq

        files = [str(p.resolve()) for p in table_files(bundle, name)]
        offsets, total = [], 0
        for f in files:
            offsets.append(total)
            total += pq.ParquetFile(f).metadata.num_rows
        case = " ".join(f"WHEN {quote_literal(f)} THEN {o}" for f, o in zip(files, offsets, strict=True))
        source = "read_parquet([" + ", ".join(quote_literal(f) for f in files) + "], filename = true, file_row_number = true)"
        con.execute(f"CREATE OR REPLACE TEMP VIEW {quote_ident(name)} AS SELECT * EXCLUDE (filename, file_row_number), "
                    f"(CASE filename {case} END) + file_row_number AS rowid FROM {source}")
        done.append(name)
    return done
