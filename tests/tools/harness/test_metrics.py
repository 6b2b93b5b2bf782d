"""Metrics and reports from hand-made responses."""

from __future__ import annotations

from math import comb

import pytest

from tools.harness import pass_at_k, summarize, write_report
from tools.harness.report import compare_runs
from tools.harness.runner import prepare_run


def rec(qid, family="stateful", variant_of=None, persona=None, naive=None):
    return {"id": qid, "question": f"question {qid}?", "family": family, "template": f"t_{family}",
            "variant_of": variant_of, "persona": persona, "answer": 1, "answer_type": "integer",
            "answer_text": "1", "naive_answer": naive}


def row(qid, trial, label, family="stateful", naive_match=None, latency=1.0, cost=None, persona=None):
    return {"id": qid, "trial": trial, "label": label, "family": family, "template": f"t_{family}",
            "persona": persona, "naive_match": naive_match, "latency_s": latency, "cost": cost, "tokens": None,
            "decided": True, "detail": "", "response": "1", "error": None}


def test_pass_at_k_is_the_unbiased_estimator():
    assert pass_at_k(5, 2, 1) == pytest.approx(2 / 5)
    assert pass_at_k(5, 2, 2) == pytest.approx(1 - comb(3, 2) / comb(5, 2))
    assert pass_at_k(3, 0, 3) == 0.0 and pass_at_k(3, 1, 3) == 1.0


def test_summary_metrics():
    records = [rec("q0001", naive=5), rec("q0002", "stateless"), rec("q0001.p1", variant_of="q0001", persona="ops")]
    rows = [row("q0001", 0, "correct"), row("q0001", 1, "incorrect", naive_match=True),
            row("q0001", 2, "correct", latency=4.0, cost=0.5),
            row("q0002", 0, "incorrect", "stateless"), row("q0002", 1, "incorrect", "stateless", latency=2.0),
            row("q0002", 2, "runtime_error", "stateless"),
            row("q0001.p1", 0, "incorrect", persona="ops", naive_match=False), row("q0001.p1", 1, "incorrect", persona="ops"),
            row("q0001.p1", 2, "incorrect", persona="ops")]
    s = summarize(records, rows)
    assert s["accuracy"] == pytest.approx(2 / 9)
    assert s["by_family"]["stateful"] == {"accuracy": pytest.approx(2 / 6), "n": 6}
    assert s["by_persona"]["ops"]["accuracy"] == 0 and s["by_persona"]["canonical"]["n"] == 6
    assert s["pass_at_k"]["1"] == pytest.approx((2 / 3 + 0 + 0) / 3)
    assert s["pass_at_k"]["3"] == pytest.approx(1 / 3)
    assert s["self_consistency"] == pytest.approx((2 / 3 + 2 / 3 + 1) / 3)
    assert s["paraphrase_consistency"] == 0.0  # canonical majority correct, paraphrase majority incorrect
    assert s["naive_trap_rate"] == 0.5 and s["naive_trap_n"] == 2
    assert s["runtime_error_rate"] == pytest.approx(1 / 9)
    assert s["latency_s"]["mean"] == pytest.approx(((1 + 1 + 4) / 3 + 4 / 3 + 1) / 3)
    assert s["cost"]["total"] == 0.5 and s["cost"]["per_question"] == pytest.approx(0.5 / 3)


def test_report_writes_markdown_html_and_figures_and_compare_puts_runs_side_by_side(tmp_path):
    import json

    records = [rec("q0001"), rec("q0002", "stateless")]
    for name, labels in (("a", ["correct", "incorrect"]), ("b", ["incorrect", "incorrect"])):
        prepare_run(tmp_path / name, {"agent": name, "trials": 1}, records)
        rows = [row("q0001", 0, labels[0]), row("q0002", 0, labels[1], "stateless")]
        (tmp_path / name / "responses.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
        s = write_report(tmp_path / name)
    assert s["accuracy"] == 0.0
    md = (tmp_path / "a" / "report.md").read_text()
    assert "| accuracy | 50.0% |" in md and "## Worst templates" in md and "`t_stateless`" in md
    html = (tmp_path / "a" / "report.html").read_text()
    assert "<table>" in html and 'src="figures/heatmap.png"' in html
    for fig in ("heatmap", "accuracy_by_family", "pass_at_k", "self_consistency"):
        assert (tmp_path / "a" / "figures" / f"{fig}.png").read_bytes()[:4] == b"\x89PNG"
    assert json.loads((tmp_path / "a" / "summary.json").read_text())["accuracy"] == 0.5
    table = compare_runs([tmp_path / "a", tmp_path / "b"])
    assert "| accuracy | 50.0% | 0.0% |" in table and "a (a)" in table
