"""Databricks Genie: a benchmark CSV of questions and Spark SQL."""

from __future__ import annotations

import csv
import io
from pathlib import Path

from tools.export.suites import SuiteExporter


def export_genie(records: list[dict], out: Path, preamble: str = "") -> list[Path]:
    """A Genie-style benchmark CSV: question and the gold SQL that answers it, in Databricks' Spark SQL
    (the record's ``gold_sql_dialects["spark"]``; transpiled here for suites made before that field)."""
    from tools.queries.dialects import transpile

    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["id", "question", "sql", "answer_text"])
    for r in records:
        sql = (r.get("gold_sql_dialects") or {}).get("spark") or transpile(r["gold_sql"], "spark")
        w.writerow([r["id"], r["question"], sql, r["answer_text"]])
    (out / "genie_benchmark.csv").write_text(buf.getvalue())
    return [out / "genie_benchmark.csv"]


EXPORTER = SuiteExporter("genie", 60, "Genie benchmark CSV (Spark SQL)", export_genie)
