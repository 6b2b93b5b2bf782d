"""LangSmith: examples to upload to a dataset."""

from __future__ import annotations

from pathlib import Path

from tools.export.suites import SuiteExporter
from tools.export.suites._common import jsonl, meta


def export_langsmith(records: list[dict], out: Path, preamble: str = "") -> list[Path]:
    """LangSmith examples (inputs: question, evidence, preamble; outputs; metadata), one per line."""
    rows = [{"inputs": {"question": r["question"], "evidence": r.get("evidence", ""), "preamble": preamble}, "outputs": {"answer": r["answer"], "answer_text": r["answer_text"]},
             "metadata": meta(r)} for r in records]
    (out / "langsmith_examples.jsonl").write_text(jsonl(rows))
    return [out / "langsmith_examples.jsonl"]


EXPORTER = SuiteExporter("langsmith", 20, "LangSmith examples", export_langsmith)
