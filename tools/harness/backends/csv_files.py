"""Backend ``csv``: the agent gets read-only CSV files (from ``--data-dir``, or written from the bundle)."""

from __future__ import annotations

from pathlib import Path

from tools.bundle.files import DATA_DIR
from tools.harness.backends import BackendKind
from tools.harness.backends._copying import read_only, reference_files, table_files
from tools.harness.backends._sql import duckdb_views


def _workspace(bundle: Path, root: Path, data_dir: Path | None, dsn: str | None) -> dict:
    if data_dir:
        return table_files("csv", bundle, root, data_dir)
    from tools.bundle.tables import write_tables

    (root / DATA_DIR).mkdir()
    write_tables(bundle, root / DATA_DIR, "csv")
    read_only(root / DATA_DIR)
    return {"data_dir": str(root / DATA_DIR)}


BACKEND = BackendKind(
    name="csv", order=30, help="CSV files",
    where=lambda c: f"CSV files in {c.data_dir}",
    reference=lambda bundle, data_dir, dsn: reference_files("csv", bundle, data_dir),
    workspace=_workspace,
    connect=duckdb_views("csv", "read_csv_auto"))
