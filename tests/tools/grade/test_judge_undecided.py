"""Undecided responses go to the LLM judge (scripted OpenAI-compatible server over real HTTP on
127.0.0.1) with the question, the expected answer and why the rules could not decide; the judge's
verdicts are marked as such in summary.json and report.md."""

from __future__ import annotations

import json
from functools import partial

from agents.judge import grade_undecided
from tests.llm_server import last_user_message
from tools.grade import grade_response
from tools.harness.adapters import Reply
from tools.harness.report import write_report
from tools.harness.runner import RESPONSES, answer_row, prepare_run

MEAN = {"id": "q0001", "question": "What was the mean latency (ms) over all readings of links? Round to 2 decimal "
        "places.", "answer_type": "number", "answer": 19.6912, "answer_text": "19.69 ms",
        "tolerance": {"rel": 0.0, "abs": 0.005}, "template": "attribute_mean", "family": "stateless",
        "naive_answer": None}
COUNT = {**MEAN, "id": "q0002", "question": "How many sessions reached 'cart' at least 3 times?",
         "answer_type": "integer", "answer": 63, "answer_text": "63", "template": "revisit_count",
         "tolerance": {"rel": 0.0, "abs": 0.0}}
UNDECIDED = "Mean latency was 19.69 ms for the first link and 21.30 ms for the second."


def test_undecided_goes_to_the_judge_with_the_reason_and_is_marked_in_summary_and_report(llm_env, tmp_path):
    llm_env.script({"verdict": "incorrect", "reason": "two per-link means, no overall mean"})
    judge = partial(grade_undecided, model=None)
    run = tmp_path / "run"
    records = [MEAN, COUNT]
    prepare_run(run, {"agent": "t", "bundle": "b", "backend": "duckdb", "trials": 1}, records)
    rows = [answer_row(MEAN, 0, Reply(output=UNDECIDED), 0.1, judge), answer_row(COUNT, 0, Reply(output="63"), 0.1, judge)]
    (run / RESPONSES).write_text("".join(json.dumps(r) + "\n" for r in rows))
    assert len(llm_env.requests) == 1  # the decided answer never reached the judge
    sent = json.loads(last_user_message(llm_env.requests[0]))
    assert sent["expected"] == 19.6912 and sent["question"] == MEAN["question"] and sent["response"] == UNDECIDED
    assert sent["undecided_reason"].startswith("several_candidates")
    assert rows[0]["graded_by"] == "judge" and rows[0]["label"] == "incorrect" and rows[0]["reason"] == "judge_incorrect"
    summary = write_report(run)
    g = summary["grading"]
    assert g["graded_by"] == {"judge": 1, "rules": 1}
    assert g["judge_verdicts"] == [{"id": "q0001", "trial": 0, "label": "incorrect", "detail": rows[0]["detail"]}]
    assert g["reasons"]["correct"] == {"stated_value": 1} and g["reasons"]["incorrect"] == {"judge_incorrect": 1}
    report = (run / "report.md").read_text()
    assert "## Grading" in report and "(judge verdict)" in report and "| correct | stated_value | 1 |" in report


def test_an_unreachable_judge_leaves_the_response_undecided_never_a_rules_verdict(monkeypatch):
    monkeypatch.setenv("CHRONOEVAL_MODEL", "openai:scripted")
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("CHRONOEVAL_LLM_RETRIES", "0")
    g = grade_response(MEAN, UNDECIDED, judge=partial(grade_undecided, model=None))
    assert not g.decided and g.graded_by == "none" and g.reason == "judge_failed"


def test_offline_the_judge_is_not_asked_and_undecided_stays_undecided():
    g = grade_response(MEAN, UNDECIDED, judge=partial(grade_undecided, model=False))
    assert not g.decided and "no LLM configured" in g.detail
