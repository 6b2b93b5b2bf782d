"""Exports of a bundle: the suite for eval platforms (one module per platform in tools/export/suites/:
Inspect AI, LangSmith, Opik, promptfoo, OpenAI evals, Genie CSV) and the tables as CSV/Parquet or into
PostgreSQL."""

from __future__ import annotations

from pathlib import Path

from tools.bundle.tables import write_tables
from tools.export.suites import suite_exporters
from tools.export.tables import load_postgres, pg_type

SUITE_FORMATS = {name: e.write for name, e in suite_exporters().items()}
FORMATS = (*SUITE_FORMATS, "csv", "parquet", "postgres")


def export_bundle(bundle: Path, out: Path, fmt: str, records: list[dict] | None = None) -> list[Path]:
    """Write ``fmt`` files of ``bundle`` into the existing directory ``out`` (postgres: use
    :func:`load_postgres`)."""
    if fmt in SUITE_FORMATS:
        if records is None:
            raise ValueError("suite exports need the qa.jsonl records")
        from tools.queries.conventions import read_preamble

        return SUITE_FORMATS[fmt](records, Path(out), preamble=read_preamble(bundle))
    if fmt in ("csv", "parquet"):
        return write_tables(Path(bundle), Path(out), fmt)
    raise ValueError(f"unknown export format {fmt!r}; use one of {', '.join(FORMATS)}")


__all__ = ["FORMATS", "SUITE_FORMATS", "export_bundle", "load_postgres", "pg_type"]
