"""data.duckdb of a partitioned bundle: a copy of the Parquet parts, or views over them for big worlds."""

from __future__ import annotations

from pathlib import Path

import duckdb

from tools.bundle.files import DATA_DB, DATA_DIR
from tools.bundle.layout import PART_GLOB
from tools.generate.writers import _duck_name
from tools.sqlsafe import quote_ident, quote_literal, quote_qualified

COPY_MEMORY_LIMIT = "1GB"


def part_glob(data_url: str, out_dir: Path, name: str) -> str:
    """The glob of table ``name``'s parts as a view should name it: relative to the bundle (which may
    move; readers put the bundle on DuckDB's file_search_path) when the data is inside it, else the URL."""
    local = Path(data_url)
    if "://" not in data_url and local.resolve() == (out_dir / DATA_DIR).resolve():
        return f"data/{name}/{PART_GLOB}"
    return f"{data_url.rstrip('/')}/{name}/{PART_GLOB}"


def write_duckdb(out_dir: Path, data_url: str, names: list[str], *, views: bool) -> None:
    """Create ``out_dir/data.duckdb`` with one table (``views=False``) or view per Parquet table;
    ``x__baseline`` goes to ``baseline.x`` as with the local engine. Parts are read in file order, so a
    copied table has the local engine's row order."""
    con = duckdb.connect(str(out_dir / DATA_DB))
    try:
        con.execute("SET enable_progress_bar = false")
        con.execute(f"SET memory_limit = {quote_literal(COPY_MEMORY_LIMIT)}")
        con.execute("SET preserve_insertion_order = true")
        con.execute(f"SET file_search_path = {quote_literal(str(out_dir.resolve()))}")
        remote = "://" in data_url
        if remote:  # an object store: DuckDB reads it through fsspec (no httpfs extension needed)
            from tools.generate.remote import url_filesystem

            con.register_filesystem(url_filesystem(data_url)[0])
        for name in names:
            duck = _duck_name(name)
            if "." in duck:
                con.execute(f"CREATE SCHEMA IF NOT EXISTS {quote_ident(duck.split('.')[0])}")
            target = quote_qualified(*duck.split(".", 1))
            glob = part_glob(data_url, out_dir, name)
            staged = None
            if remote and views:  # views relative to the bundle, bound on a local copy of the first part
                from tools.generate.remote import stage_first_part

                staged, glob = stage_first_part(data_url, out_dir, name), f"{DATA_DIR}/{name}/{PART_GLOB}"
            source = f"read_parquet({quote_literal(glob)})"
            kind = "VIEW" if views else "TABLE"
            con.execute(f"CREATE {kind} {target} AS SELECT * FROM {source}")
            if staged is not None:
                staged.unlink()
    finally:
        con.close()
