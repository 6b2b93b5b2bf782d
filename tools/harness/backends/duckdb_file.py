"""Backend ``duckdb``: the agent gets a read-only copy of the bundle's data.duckdb."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from tools.bundle.files import DATA_DB, DATA_DIR
from tools.harness.backends import BackendKind
from tools.harness.backends._copying import read_only
from tools.harness.backends._sql import duckdb_file


def _workspace(bundle: Path, root: Path, data_dir: Path | None, dsn: str | None) -> dict:
    shutil.copyfile(bundle / DATA_DB, root / DATA_DB)
    read_only(root / DATA_DB)
    if any((bundle / DATA_DIR).glob("*/part-*.parquet")):  # a big world's views read data/<table>/*
        os.symlink((bundle / DATA_DIR).resolve(), root / DATA_DIR, target_is_directory=True)
    return {"db_path": str(root / DATA_DB)}


BACKEND = BackendKind(
    name="duckdb", order=10, help="a DuckDB database file",
    where=lambda c: f"DuckDB database {c.db_path}",
    reference=lambda bundle, data_dir, dsn: {"db_path": str((bundle / DATA_DB).resolve())},
    workspace=_workspace,
    connect=duckdb_file)
