"""``chronoeval compare`` shows accuracy per context mode when the runs used different modes (issue 19),
and nothing extra when every run used the same one."""

from __future__ import annotations

import json

from tests.tools.harness.test_metrics import rec, row
from tools.harness.report import compare_html, compare_runs
from tools.harness.runner import prepare_run


def _run(root, name: str, rows: list[dict]):
    prepare_run(root / name, {"agent": name, "trials": 1}, [rec("q0001"), rec("q0002", "stateless")])
    (root / name / "responses.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    return root / name


def _rows(labels: list[str], context: str) -> list[dict]:
    return [{**row("q0001", 0, labels[0]), "context": context},
            {**row("q0002", 0, labels[1], "stateless"), "context": context}]


def test_runs_with_different_context_modes_get_a_row_per_mode(tmp_path):
    a = _run(tmp_path, "a", _rows(["correct", "correct"], "both") + [
        {**r, "trial": 1} for r in _rows(["correct", "incorrect"], "none")])
    b = _run(tmp_path, "b", _rows(["incorrect", "correct"], "none"))
    table = compare_runs([a, b])
    assert "| accuracy (context none) | 50.0% | 50.0% |" in table
    assert "| accuracy (context both) | 100.0% | n/a |" in table
    assert "accuracy (context preamble)" not in table
    assert "accuracy (context none)" in compare_html([a, b])


def test_runs_with_one_and_the_same_mode_get_no_context_rows(tmp_path):
    a = _run(tmp_path, "a", _rows(["correct", "incorrect"], "both"))
    b = _run(tmp_path, "b", _rows(["incorrect", "incorrect"], "both"))
    table = compare_runs([a, b])
    assert "| accuracy | 50.0% | 0.0% |" in table and "context" not in table
