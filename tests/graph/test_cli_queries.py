"""`chronoeval queries OUT`: writes qa.jsonl and the report section; bad input exits 2."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from graph.cli import app
from knowledge.packs import load_pack
from tools.generate import generate_bundle


def run(*args):
    return CliRunner().invoke(app, [str(a) for a in args])


@pytest.fixture(scope="module")
def small_iot(tmp_path_factory):
    d = tmp_path_factory.mktemp("q") / "iot"
    generate_bundle(load_pack("iot"), d, scale=0.3, force=True)
    return d


def test_queries_writes_suite_report_and_manifest(small_iot):
    r = run("queries", small_iot, "--n", "9", "--seed", "3")
    assert r.exit_code == 0, r.output
    lines = (small_iot / "qa.jsonl").read_text().splitlines()
    assert len(lines) == 9
    first = json.loads(lines[0])
    assert first["id"] == "q0001" and first["gold_sql"].startswith("WITH")
    assert "## Questions" in (small_iot / "report.md").read_text()
    assert "qa.jsonl" in json.loads((small_iot / "manifest.json").read_text())["files"]
    assert "questions" in r.output


def test_queries_on_a_directory_that_is_not_a_bundle_is_a_user_error(tmp_path):
    r = run("queries", tmp_path)
    assert r.exit_code == 2
    assert "not a chronoeval bundle" in r.output and "Traceback" not in r.output


def test_queries_rejects_a_bad_count(small_iot):
    r = run("queries", small_iot, "--n", "0")
    assert r.exit_code == 2


def test_rechecking_keeps_the_questions_figure_and_section(small_iot):
    assert run("queries", small_iot, "--n", "6").exit_code == 0
    assert (small_iot / "figures" / "questions.png").is_file()
    r = run("check", small_iot)
    assert r.exit_code in (0, 3), r.output
    assert (small_iot / "figures" / "questions.png").is_file()
    assert "## Questions" in (small_iot / "report.md").read_text()
    assert "figures/questions.png" in json.loads((small_iot / "manifest.json").read_text())["files"]


def test_an_executor_disagreement_is_dropped_reported_and_exits_4(small_iot, monkeypatch):
    import tools.queries.evaluate as ev

    real = ev.run_reference

    def off_by_one(ctx, t, q):  # a deliberately broken pandas executor for one template
        a = real(ctx, t, q)
        return a + 1 if t.name == "attribute_mean" and isinstance(a, float) else a

    monkeypatch.setattr(ev, "run_reference", off_by_one)
    r = run("queries", small_iot, "--n", "12")
    assert r.exit_code == 4, r.output
    assert "a chronoeval bug" in r.output
    report = (small_iot / "report.md").read_text()
    section = report[report.index("### Executor disagreements"):]
    assert "`attribute_mean`" in section and "executors disagree" in section
    assert all(json.loads(x)["template"] != "attribute_mean" for x in (small_iot / "qa.jsonl").read_text().splitlines())
