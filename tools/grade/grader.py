"""Grade one agent response against a qa.jsonl record.

Labels: ``correct``, ``incorrect`` or ``runtime_error`` (exception, timeout, empty output, garbage,
refusal). When the rules cannot choose between rival candidates the grade is ``decided=False``;
an injected judge (any callable with the signature of ``agents.judge.grade_response``) then
decides, else the response counts as incorrect and is listed as undecided.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, Literal

from pydantic import BaseModel

from tools.grade import scalars, structured
from tools.grade.text import is_garbage, is_refusal, strip_markup

Label = Literal["correct", "incorrect", "runtime_error"]
# judge(question, expected, answer_type, tolerance, response) -> object with .verdict/.reason,
# or a (verdict, reason) tuple; verdict is "correct" or "incorrect".
Judge = Callable[..., Any]

_DURATION_TEMPLATES = {"state_duration", "avg_time_between", "first_passage_time"}


class Grade(BaseModel):
    """The grade of one response: label, Genie-style detail, parsed value, set F1, and who decided."""

    label: Label
    detail: str = ""
    decided: bool = True
    graded_by: Literal["rules", "judge", "none"] = "rules"
    parsed: Any = None
    f1: float | None = None


def response_text(response: Any) -> str:
    """The text to grade: strings as-is; a dict's ``answer`` (or ``output``/``content``) field;
    other JSON values serialised."""
    if response is None:
        return ""
    if isinstance(response, str):
        return response
    if isinstance(response, dict):
        for key in ("answer", "output", "content", "text", "response"):
            if key in response:
                v = response[key]
                return v if isinstance(v, str) else json.dumps(v, default=str)
    return json.dumps(response, default=str)


def _match(record: dict, text: str) -> scalars.Verdict:
    t, exp, tol = record["answer_type"], record["answer"], dict(record.get("tolerance") or {})
    q, naive = record.get("question", ""), record.get("naive_answer")
    if exp is None:
        return scalars.Verdict(False, False, "the record has no answer")
    if t == "number":
        return scalars.match_number(text, exp, tol, answer_text=record.get("answer_text", ""), question=q, naive=naive)
    if t == "integer":
        return scalars.match_number(text, exp, {"abs": max(tol.get("abs", 0.0), 0.0), "rel": tol.get("rel", 0.0)},
                                    question=q, naive=naive)
    if t == "duration":
        return scalars.match_duration(text, exp, tol, question=q, naive=naive)
    if t == "boolean":
        return scalars.match_boolean(text, exp, tol, question=q)
    if t == "timestamp":
        return scalars.match_timestamp(text, exp, tol)
    if t == "entity":
        return scalars.match_entity(text, exp, question=q)
    if t == "label":
        return scalars.match_label(text, exp)
    if t == "entity_list":
        return structured.match_entity_list(text, exp, question=q)
    if t == "mapping":
        return structured.match_mapping(text, exp, tol, durations_=record.get("template") in _DURATION_TEMPLATES)
    if t == "ranking":
        return structured.match_ranking(text, exp, tol, question=q)
    if t == "table":
        return structured.match_table(text, exp, tol)
    raise ValueError(f"unknown answer_type {t!r} in record {record.get('id')}")


def _ask_judge(judge: Judge, record: dict, text: str) -> tuple[str, str]:
    out = judge(record["question"], record["answer"], record["answer_type"], record.get("tolerance"), text)
    if isinstance(out, tuple):
        return str(out[0]), str(out[1])
    return str(out.verdict), str(getattr(out, "reason", ""))


def grade_response(record: dict, response: Any, *, error: str | None = None, judge: Judge | None = None) -> Grade:
    """Grade ``response`` (text, dict or None) to ``record``; ``error`` is the adapter's error
    (exception, timeout) and makes the grade a runtime_error."""
    if error:
        return Grade(label="runtime_error", detail=error)
    raw = response_text(response)
    if not raw.strip():
        return Grade(label="runtime_error", detail="empty response")
    if is_garbage(raw):
        return Grade(label="runtime_error", detail="garbage output (no readable answer)")
    if is_refusal(raw):
        return Grade(label="runtime_error", detail="refusal")
    v = _match(record, strip_markup(raw) if record["answer_type"] != "table" else raw)
    if v.decided:
        return Grade(label="correct" if v.correct else "incorrect", detail=v.detail, parsed=_jsonable(v.parsed), f1=v.f1)
    if judge is not None:
        try:
            verdict, reason = _ask_judge(judge, record, raw)
        except Exception as exc:  # a failing judge leaves the case undecided, never crashes a run
            return Grade(label="incorrect", detail=f"undecided: {v.detail}; judge failed: {exc}", decided=False,
                         graded_by="none", parsed=_jsonable(v.parsed))
        label: Label = "correct" if verdict == "correct" else "incorrect"
        return Grade(label=label, detail=f"judge: {reason}", graded_by="judge", parsed=_jsonable(v.parsed))
    return Grade(label="incorrect", detail=f"undecided: {v.detail}", decided=False, graded_by="none",
                 parsed=_jsonable(v.parsed))


def _jsonable(v: Any) -> Any:
    return json.loads(json.dumps(v, default=str))
