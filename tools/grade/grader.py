"""Grade one agent response against a qa.jsonl record.

Labels: ``correct``, ``incorrect`` or ``runtime_error`` (exception, timeout, empty output, garbage,
refusal), each with a reason code (tools.grade.reasons). When the rules cannot choose between rival
candidates the grade is ``decided=False``; an injected judge (any callable with the signature of
``agents.judge.grade_undecided``) then decides and the grade says ``graded_by="judge"``; without a
judge the response counts as incorrect and is listed as undecided.
"""

from __future__ import annotations

import inspect
import json
import re
from collections.abc import Callable
from typing import Any, Literal

from pydantic import BaseModel

from tools.grade import ids, scalars, structured, table_answers
from tools.grade.premise import PREMISE_FAMILIES, match_premise
from tools.grade.tables import split_code
from tools.grade.text import is_garbage, is_refusal, strip_markup

Label = Literal["correct", "incorrect", "runtime_error"]
# judge(question, expected, answer_type, tolerance, response[, undecided_reason=...]) -> object with
# .verdict/.reason, or a (verdict, reason) tuple; verdict is "correct" or "incorrect".
Judge = Callable[..., Any]

_DURATION_TEMPLATES = {"state_duration", "avg_time_between", "first_passage_time"}
_CLARIFY = re.compile(r"^\W*(?:do|does|did|should|would|could|can|shall|which|what|by|are|is|how)\b[^.!\n]{3,200}\?",
                      re.I)
_CHART = re.compile(r"!\[[^\]]*\]\([^)]*\)|\[(?:chart|plotly figure|figure|image)[^\]]*\]|\b(?:chart|plot|graph)\b",
                    re.I)
_CAVEAT = re.compile(r"\b(?:could not|couldn't|cannot|can't|unable to) (?:compute|calculate|get|find|access|include)|"
                     r"\bfor \w+ only\b|\bpartial (?:result|data|answer)|\bincomplete\b|\bnot all (?:of )?the\b|\bno data\b|"
                     r"\bdata (?:is|was|are|were) missing\b|\bmissing data\b", re.I)
_MAX_CHARS = 100_000  # grading stays bounded in time (≈1 s worst case) on huge replies; no answer is longer


class Grade(BaseModel):
    """The grade of one response: label, reason code, Genie-style detail, parsed value, set F1, and who
    decided."""

    label: Label
    detail: str = ""
    reason: str = ""
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
    q = record.get("question", "")
    if t in ("number", "integer"):
        return scalars.match_number(text, record)
    if t == "duration":
        return scalars.match_duration(text, record)
    if t == "boolean":
        return scalars.match_boolean(text, record)
    if t == "timestamp":
        return ids.match_timestamp(text, exp, tol)
    if t == "entity":
        return ids.match_entity(text, exp, question=q)
    if t == "label":
        return ids.match_label(text, exp, question=q)
    if t == "entity_list":
        return structured.match_entity_list(text, exp, question=q)
    if t == "mapping":
        return structured.match_mapping(text, exp, tol, durations_=record.get("template") in _DURATION_TEMPLATES,
                                        question=q)
    if t == "ranking":
        return structured.match_ranking(text, exp, tol, question=q)
    if t == "table":
        return table_answers.match_table(text, exp, tol)
    raise ValueError(f"unknown answer_type {t!r} in record {record.get('id')}")


def _non_answer(raw: str, text: str, v: scalars.Verdict) -> Grade | None:
    """A question back, or a chart with no readable answer, is incorrect (not undecided)."""
    if _CLARIFY.match(raw.strip()) and "answer" not in raw.lower()[:40]:
        return Grade(label="incorrect", detail="asks a clarifying question instead of answering",
                     reason="clarifying_question")
    if v.reason in ("no_answer", "no_candidate", "not_a_yes_no") and _CHART.search(raw):
        return Grade(label="incorrect", detail="only a chart, no answer stated", reason="chart_only")
    return None


def grade_response(record: dict, response: Any, *, error: str | None = None, judge: Judge | None = None) -> Grade:
    """Grade ``response`` (text, dict or None) to ``record``; ``error`` is the adapter's error
    (exception, timeout) and makes the grade a runtime_error."""
    if error:
        return Grade(label="runtime_error", detail=error, reason="adapter_error")
    raw = response_text(response)[:_MAX_CHARS]
    if not raw.strip():
        return Grade(label="runtime_error", detail="empty response", reason="empty")
    if is_garbage(raw):
        return Grade(label="runtime_error", detail="garbage output (no readable answer)", reason="garbage")
    if record.get("family") in PREMISE_FAMILIES:  # rejecting the premise / naming missing data is the answer
        v = match_premise(strip_markup(split_code(raw)[0]), record)
        return Grade(label="correct" if v.correct else "incorrect", detail=v.detail, reason=v.reason)
    if is_refusal(raw):
        return Grade(label="runtime_error", detail="refusal", reason="refusal")
    if record.get("answer") is None:
        return Grade(label="incorrect", detail="the record has no answer", reason="no_answer")
    text, _ = split_code(raw)
    text = strip_markup(text)
    v = _match(record, text)
    early = _non_answer(raw, text, v)
    if early is not None and not (v.decided and v.correct):
        return early
    if v.decided and v.correct and _CAVEAT.search(text):
        v = scalars.Verdict(False, False, "the value matches but the response says its scope is partial", v.parsed,
                            reason="caveat")
    other = _other_scope(record.get("question", ""), text) if v.decided and v.correct else None
    if other:
        v = scalars.Verdict(False, False, f"the value matches but the response names another scope ({other})",
                            v.parsed, reason="scope_mismatch")
    if v.decided:
        return Grade(label="correct" if v.correct else "incorrect", detail=v.detail, reason=v.reason,
                     parsed=_jsonable(v.parsed), f1=v.f1)
    if judge is not None:
        try:
            verdict, reason = _ask_judge(judge, record, raw, f"{v.reason}: {v.detail}")
        except Exception as exc:  # a failing judge leaves the case undecided, never crashes a run
            return Grade(label="incorrect", detail=f"undecided: {v.detail}; judge failed: {exc}", reason="judge_failed",
                         decided=False, graded_by="none", parsed=_jsonable(v.parsed))
        label: Label = "correct" if verdict == "correct" else "incorrect"
        return Grade(label=label, detail=f"judge: {reason} (rules undecided: {v.detail})", reason=f"judge_{label}",
                     graded_by="judge", parsed=_jsonable(v.parsed))
    return Grade(label="incorrect", detail=f"undecided: {v.detail}", reason=v.reason or "several_candidates",
                 decided=False, graded_by="none", parsed=_jsonable(v.parsed))


_SCOPE_STOP = {"the", "this", "that", "each", "same", "whole", "per", "all", "every", "one", "a", "an", "its", "their",
               "any", "which", "whose", "given", "requested", "selected", "other", "of", "by", "in", "for", "and"}


def _other_scope(question: str, text: str) -> str | None:
    """'(south site)' where the question says site is 'north': the response answers another scope."""
    from tools.grade.question import analyse

    low = text.lower()
    for attr, value in analyse(question).scopes:
        for m in re.finditer(rf"\b([a-z][\w-]*)\s+{re.escape(attr)}s?\b|\b{re.escape(attr)}s?\s*[:=]\s*'?([a-z][\w-]*)", low):
            word = m.group(1) or m.group(2)
            if word and word != value.split()[0] and word not in _SCOPE_STOP and value not in low:
                return f"{attr} {word}"
    return None


def _ask_judge(judge: Judge, record: dict, text: str, why: str) -> tuple[str, str]:
    args = (record["question"], record["answer"], record["answer_type"], record.get("tolerance"), text)
    try:
        takes_reason = "undecided_reason" in inspect.signature(judge).parameters
    except (TypeError, ValueError):
        takes_reason = False
    out = judge(*args, undecided_reason=why) if takes_reason else judge(*args)
    if isinstance(out, tuple):
        return str(out[0]), str(out[1])
    return str(out.verdict), str(getattr(out, "reason", ""))


def _jsonable(v: Any) -> Any:
    return json.loads(json.dumps(v, default=str))
