"""The judge agent: paraphrase fidelity and answer grading.

(a) ``judge_paraphrase``: is a variant the same query as its canonical question? Offline the slot
check and rules decide (``tools.paraphrase.slot_problems``); with an LLM both the slot check and the
LLM verdict must pass. (b) ``grade_response``: grade an agent's free-text response against the
expected answer (the harness's fallback when its rules cannot decide and an LLM is configured);
offline, or when the LLM fails, the deterministic grader (``tools.grade``) decides.

``model``: a LangChain chat model, ``None`` to use ``CHRONOEVAL_MODEL`` (offline when ``none``), or
``False`` to force the deterministic path.
"""

from __future__ import annotations

import json
from typing import Any

from agents.models import LLMUnavailable, get_chat_model
from agents.structured import structured_call
from prompts.judge import (
    GRADER,
    PARAPHRASE_JUDGE,
    GradeInput,
    JudgeGrade,
    ParaphraseJudgeInput,
    ParaphraseVerdict,
)
from tools.grade import grade_response as rules_grade
from tools.paraphrase import slot_problems

__all__ = ["JudgeGrade", "JudgeUnavailable", "ParaphraseVerdict", "grade_response", "grade_undecided",
           "judge_paraphrase", "resolve_model"]


class JudgeUnavailable(RuntimeError):
    """No LLM verdict (no model configured, server unreachable, invalid output): the grade stays undecided."""


def resolve_model(model: Any = None) -> Any:
    """``None`` → the configured model (or None offline); ``False`` → None; else ``model`` itself."""
    if model is False:
        return None
    return get_chat_model() if model is None else model


def judge_paraphrase(canonical_question: str, variant: str, *, query_spec: dict | None = None,
                     gold_sql: str = "", model: Any = None, synonyms: dict[str, list[str]] | None = None,
                     notes: list[str] | None = None) -> dict[str, Any]:
    """``{"equivalent": bool, "reason": str}`` for a variant of ``canonical_question``.

    The slot check always runs first; a variant that fails it is rejected without asking the LLM.
    Raises ``agents.models.LLMUnavailable`` when a configured LLM cannot be reached."""
    problems = slot_problems(canonical_question, variant, synonyms)
    if problems:
        return {"equivalent": False, "reason": "slot check: " + "; ".join(problems)}
    llm = resolve_model(model)
    if llm is None:
        return {"equivalent": True, "reason": "slot check: every number, value, identifier, duration, date, "
                                              "time, comparison and bound is kept"}
    inp = ParaphraseJudgeInput(canonical_question=canonical_question, variant=variant,
                               query_spec=query_spec or {}, gold_sql=gold_sql)
    verdict = structured_call(llm, PARAPHRASE_JUDGE.render(inp), ParaphraseVerdict, purpose="judge_paraphrase",
                              notes=notes)
    if verdict is None:
        return {"equivalent": True, "reason": "slot check passed; the LLM judge gave no valid verdict, so the "
                                              "slot check decided"}
    if not verdict.equivalent:
        return {"equivalent": False, "reason": f"LLM judge: {verdict.reason}"}
    return {"equivalent": True, "reason": f"slot check and LLM judge agree: {verdict.reason}"}


def _rules_grade(question: str, expected: object, answer_type: str, tolerance: dict | None,
                 response: str) -> JudgeGrade:
    record = {"question": question, "answer": expected, "answer_type": answer_type,
              "tolerance": tolerance or {"rel": 0.0, "abs": 0.0}, "answer_text": "", "template": ""}
    g = rules_grade(record, response)
    verdict = "correct" if g.label == "correct" else "incorrect"
    return JudgeGrade(verdict=verdict, reason=f"rules: {g.detail or g.label}")


def grade_response(question: str, expected: object, answer_type: str, tolerance: dict | None, response: str,
                   *, model: Any = None, notes: list[str] | None = None) -> JudgeGrade:
    """Grade ``response`` against ``expected`` (canonical JSON answer of ``answer_type``).

    With an LLM: the GRADER prompt as structured output (validated, retried); when the LLM is
    unreachable or gives no valid grade, the deterministic grader decides and the reason says so."""
    llm = resolve_model(model)
    if llm is None:
        return _rules_grade(question, expected, answer_type, tolerance, response)
    inp = GradeInput(question=question, expected=json.loads(json.dumps(expected, default=str)),
                     answer_type=answer_type, tolerance=tolerance, response=response or "")
    try:
        grade = structured_call(llm, GRADER.render(inp), JudgeGrade, purpose="judge_grade", notes=notes)
    except LLMUnavailable as exc:
        if notes is not None:
            notes.append(str(exc))
        grade = None
    if grade is None:
        g = _rules_grade(question, expected, answer_type, tolerance, response)
        return JudgeGrade(verdict=g.verdict, reason=f"LLM judge unavailable; {g.reason}")
    return grade


def grade_undecided(question: str, expected: object, answer_type: str, tolerance: dict | None, response: str,
                    *, undecided_reason: str = "", model: Any = None, notes: list[str] | None = None) -> JudgeGrade:
    """The harness's judge for responses the rules left undecided: the LLM grades with the question,
    the expected answer and why the rules could not decide. Raises :class:`JudgeUnavailable` instead
    of falling back to the rules, so the grader keeps the response undecided (never a rules verdict
    presented as a judge verdict)."""
    llm = resolve_model(model)
    if llm is None:
        raise JudgeUnavailable("no LLM configured for the judge")
    inp = GradeInput(question=question, expected=json.loads(json.dumps(expected, default=str)),
                     answer_type=answer_type, tolerance=tolerance, response=response or "",
                     undecided_reason=undecided_reason)
    try:
        grade = structured_call(llm, GRADER.render(inp), JudgeGrade, purpose="judge_grade", notes=notes)
    except LLMUnavailable as exc:
        raise JudgeUnavailable(str(exc)) from None
    if grade is None:
        raise JudgeUnavailable("the LLM judge gave no valid grade")
    return grade
