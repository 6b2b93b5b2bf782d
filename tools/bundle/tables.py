"""A bundle's tables as plain files: every table of data.duckdb copied to ``<table>.csv`` or
``<table>.parquet`` (for ``chronoeval export --format csv|parquet`` and the harness's CSV backend)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tools.bundle.files import DATA_DB
from tools.bundle.opened import BundleError, bundle_schema, connect
from tools.bundle.paths import child_path
from tools.sqlsafe import quote_ident, quote_path


def connect_tables(bundle: Path) -> Any:
    """A read-only connection to the bundle's data.duckdb (UTC), or ``BundleError`` without one."""
    if not (Path(bundle) / DATA_DB).is_file():
        raise BundleError(f"{bundle} has no data.duckdb; is it a chronoeval bundle?")
    return connect(Path(bundle))


def write_tables(bundle: Path, out: Path, fmt: str) -> list[Path]:
    """Every table as ``out/<table>.csv`` (header, ISO timestamps) or ``out/<table>.parquet``."""
    con = connect_tables(bundle)
    paths = []
    try:
        for t in sorted(bundle_schema(bundle)):
            p = child_path(out, t, f".{fmt}")
            opts = "(FORMAT CSV, HEADER)" if fmt == "csv" else "(FORMAT PARQUET)"
            con.execute(f"COPY (SELECT * FROM {quote_ident(t)}) TO {quote_path(p)} {opts}")
            paths.append(p)
    finally:
        con.close()
    return paths
