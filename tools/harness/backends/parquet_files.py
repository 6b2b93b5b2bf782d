"""Backend ``parquet``: the agent gets read-only copies of the tables as Parquet files."""

from __future__ import annotations

from tools.harness.backends import BackendKind
from tools.harness.backends._copying import reference_files, table_files
from tools.harness.backends._sql import duckdb_views

BACKEND = BackendKind(
    name="parquet", order=20, help="Parquet files",
    where=lambda c: f"Parquet files in {c.data_dir}",
    reference=lambda bundle, data_dir, dsn: reference_files("parquet", bundle, data_dir),
    workspace=lambda bundle, root, data_dir, dsn: table_files("parquet", bundle, root, data_dir),
    connect=duckdb_views("parquet", "read_parquet"))
