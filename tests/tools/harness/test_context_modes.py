"""Issue 19: what an agent reads per context mode (none | preamble | evidence | both), recorded per
answer, summarized per mode in summary.json and the run report, and chosen with `chronoeval eval
--context`."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from graph.cli import app
from tools.harness import build_context, load_responses, run_suite, write_report
from tools.harness.context import HarnessError
from tools.harness.prompting import asked_text, check_modes, question_of
from tools.harness.reference import render_answer
from tools.queries.conventions import read_preamble

REC = {"question": "How many cell sites entered availability below 99?", "evidence": "Entering: the first reading."}


def test_each_mode_sends_what_it_names_and_the_question_comes_last():
    assert asked_text(REC, "none", "PRE") == REC["question"]
    assert asked_text(REC, "preamble", "PRE") == f"PRE\n\nQuestion: {REC['question']}"
    assert asked_text(REC, "evidence", "PRE") == f"Evidence: {REC['evidence']}\n\nQuestion: {REC['question']}"
    both = asked_text(REC, "both", "PRE")
    assert both.startswith("PRE\n\nEvidence: ") and question_of(both) == REC["question"]
    assert asked_text({**REC, "evidence": ""}, "evidence", "") == REC["question"]  # nothing to add
    assert check_modes(None) == ("both",) and check_modes(["none", "both", "none"]) == ("none", "both")
    with pytest.raises(ValueError, match="--context 'all' is not one of none, preamble, evidence, both"):
        check_modes(["all"])


def test_a_run_in_two_modes_reports_accuracy_per_mode(iot_bundle, iot_records, tmp_path):
    """An agent that only gets the answer right when it is told the definitions (the evidence) shows
    the gap between the modes; every answer row records its mode; the preamble reached the agent."""
    preamble = read_preamble(iot_bundle)
    by_q = {r["question"]: r for r in iot_records}
    seen: list[str] = []

    def reads_definitions(text, context):
        seen.append(text)
        r = by_q[question_of(text)]
        return render_answer(r["answer"], r["answer_type"]) if "Evidence: " in text else "no idea"

    run = tmp_path / "r"
    res = run_suite(iot_records, reads_definitions, build_context(iot_bundle), run, trials=1, concurrency=2,
                    contexts=("none", "both"), preamble=preamble, meta={"agent": "stub"})
    assert res.total == 2 * len(iot_records) == res.asked
    rows = load_responses(run)
    assert {r["context"] for r in rows} == {"none", "both"}
    assert sum(t.startswith(preamble) for t in seen) == len(iot_records)  # 'both' carries the preamble
    s = write_report(run)
    assert s["context_modes"] == ["none", "both"]
    assert s["by_context"]["none"]["accuracy"] == 0.0
    with_ev = sum(bool(r["evidence"]) for r in iot_records) / len(iot_records)
    assert s["by_context"]["both"]["accuracy"] == pytest.approx(with_ev) and with_ev > 0.9
    md = (run / "report.md").read_text()
    assert "## Accuracy by context mode" in md and "| none | 0.0% |" in md
    saved = json.loads((run / "summary.json").read_text())
    assert saved["by_context"] == s["by_context"]
    # resuming with one more mode asks only that mode's questions
    again = run_suite(iot_records, reads_definitions, build_context(iot_bundle), run, trials=1, concurrency=2,
                      contexts=("none", "both", "evidence"), preamble=preamble, meta={"agent": "stub"})
    assert again.asked == len(iot_records)
    with pytest.raises(HarnessError, match="--context"):
        run_suite(iot_records, reads_definitions, build_context(iot_bundle), run, contexts=("everything",))


def test_eval_cli_context_option(iot_bundle, tmp_path):
    runner = CliRunner()
    r = runner.invoke(app, ["eval", str(iot_bundle), "--agent", "oracle", "--trials", "1", "--context", "none",
                            "--context", "both", "-o", str(tmp_path / "o")])
    assert r.exit_code == 0, r.output
    s = json.loads((tmp_path / "o" / "summary.json").read_text())
    assert s["context_modes"] == ["none", "both"] and all(g["accuracy"] == 1.0 for g in s["by_context"].values())
    assert json.loads((tmp_path / "o" / "run.json").read_text())["contexts"] == ["none", "both"]
    r = runner.invoke(app, ["eval", str(iot_bundle), "--agent", "oracle", "-o", str(tmp_path / "d")])
    assert r.exit_code == 0, r.output
    assert json.loads((tmp_path / "d" / "summary.json").read_text())["context_modes"] == ["both"]
    assert "Every question was asked with context mode `both`" in (tmp_path / "d" / "report.md").read_text()
    r = runner.invoke(app, ["eval", str(iot_bundle), "--agent", "oracle", "--context", "full", "-o",
                            str(tmp_path / "x")])
    assert r.exit_code == 2 and "--context 'full' is not one of" in r.output
