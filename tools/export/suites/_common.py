"""What every suite exporter shares: the system prompt, the record metadata, the user turn (the
question as an agent reads it) and JSONL text."""

from __future__ import annotations

import json

SYSTEM_PROMPT = ("You answer questions about time-series telemetry tables. Reply with the answer first "
                 "(numbers with their unit), then at most one sentence of justification.")


def meta(r: dict) -> dict:
    """The record fields a platform keeps beside a sample (for grading with chronoeval and for slicing)."""
    return {"id": r["id"], "family": r["family"], "template": r["template"], "answer": r["answer"],
            "answer_type": r["answer_type"], "answer_text": r["answer_text"], "tolerance": r["tolerance"],
            "naive_answer": r.get("naive_answer"), "persona": r.get("persona"), "variant_of": r.get("variant_of"),
            "incident_id": r.get("incident_id"), "contrast": r.get("contrast"), "difficulty": r.get("difficulty"),
            "tables": r.get("tables"), "question": r["question"], "evidence": r.get("evidence", ""),
            "precise_question": r.get("precise_question", "")}


def system(preamble: str) -> str:
    """The system prompt with the suite's conventions (suite.json preamble) when there are any."""
    return f"{SYSTEM_PROMPT}\n\n{preamble}" if preamble else SYSTEM_PROMPT


def user(r: dict) -> str:
    """The user turn: the question's evidence (definitions of its terms), then the question."""
    from tools.harness.prompting import asked_text

    return asked_text(r, "evidence", "")


def jsonl(rows) -> str:
    """One JSON object a line (UTF-8 text kept as is)."""
    return "".join(json.dumps(x, ensure_ascii=False) + "\n" for x in rows)
