"""Opik: dataset items."""

from __future__ import annotations

from pathlib import Path

from tools.export.suites import SuiteExporter
from tools.export.suites._common import jsonl, meta, user


def export_opik(records: list[dict], out: Path, preamble: str = "") -> list[Path]:
    """Opik dataset items (input: evidence + question; preamble; expected_output plus metadata)."""
    rows = [{"input": user(r), "preamble": preamble, "expected_output": r["answer_text"], "question_id": r["id"],
             "metadata": meta(r)} for r in records]
    (out / "opik_items.jsonl").write_text(jsonl(rows))
    return [out / "opik_items.jsonl"]


EXPORTER = SuiteExporter("opik", 30, "Opik dataset items", export_opik)
