"""OpenAI evals: chat samples with the ideal answer."""

from __future__ import annotations

from pathlib import Path

from tools.export.suites import SuiteExporter
from tools.export.suites._common import jsonl, system, user


def export_openai_evals(records: list[dict], out: Path, preamble: str = "") -> list[Path]:
    """OpenAI evals samples: chat ``input`` (system: the preamble; user: evidence + question), ``ideal``."""
    rows = [{"input": [{"role": "system", "content": system(preamble)}, {"role": "user", "content": user(r)}],
             "ideal": r["answer_text"], "metadata": {"id": r["id"], "template": r["template"]}} for r in records]
    (out / "openai_evals.jsonl").write_text(jsonl(rows))
    return [out / "openai_evals.jsonl"]


EXPORTER = SuiteExporter("openai-evals", 50, "OpenAI evals samples", export_openai_evals)
