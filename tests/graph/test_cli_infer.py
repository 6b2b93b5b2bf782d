"""`chronoeval infer FILE... [--ddl schema.sql] -o spec.yaml [--report OUT.md]`: roles table, a spec
that loads back, a report with the fidelity table; bad input exits 2 with one message, no traceback."""

from __future__ import annotations

import re

import pytest
from typer.testing import CliRunner

from graph.cli import app
from tests.reference_data import reference_dir
from tools.infer.fidelity import entity_for_table
from tools.spec import load_spec

REF = reference_dir()


def run(*args):
    return CliRunner().invoke(app, [str(a) for a in args])


def _bad(result, *words):
    assert result.exit_code == 2, result.stdout + result.stderr
    assert result.stderr.startswith("error: ") and "Traceback" not in result.stderr + result.stdout
    for w in words:
        assert w in result.stderr


def test_infer_writes_spec_and_report(tmp_path):
    out, report = tmp_path / "spec.yaml", tmp_path / "report.md"
    result = run("infer", REF / "ecommerce_users_data.csv", REF / "ecommerce_sessions_data.csv",
                 "-o", out, "--report", report, "--name", "shop")
    assert result.exit_code == 0, result.stdout + result.stderr
    assert "detected roles" in result.stdout and "relation: ecommerce_sessions_data.user_id" in result.stdout
    # 2 x (entities, rows), 9 columns, cadence, transitions, children per user; per-referrer transition rows
    # and dwell, session lengths and durations, and the question-level checks: every one passes
    passed = re.search(r"fidelity: (\d+) of (\d+) checks pass", result.stdout)
    assert passed and passed.group(1) == passed.group(2) and int(passed.group(2)) >= 25, result.stdout
    spec = load_spec(out)
    assert spec.name == "shop" and [e.name for e in spec.entities] == ["user", "session"]  # named from the id columns
    text = report.read_text()
    assert "## Detected column roles" in text and "## Fidelity" in text and "| transition distance |" in text
    assert out.read_text().startswith("# Spec fitted by `chronoeval infer`")


def test_infer_is_deterministic(tmp_path):
    a, b = tmp_path / "a.yaml", tmp_path / "b.yaml"
    for out in (a, b):
        assert run("infer", REF / "transport_link_data.csv", "-o", out, "--no-fidelity", "--seed", "3").exit_code == 0
    assert a.read_bytes() == b.read_bytes()


def test_existing_output_needs_force(tmp_path):
    out = tmp_path / "spec.yaml"
    out.write_text("keep me")
    _bad(run("infer", REF / "ecommerce_users_data.csv", "-o", out), "spec.yaml", "--force")
    assert out.read_text() == "keep me"
    assert run("infer", REF / "ecommerce_users_data.csv", "-o", out, "--force").exit_code == 0
    assert load_spec(out).entities[0].count == 100


@pytest.mark.parametrize("content, words", [
    ("", ["empty.csv", "the file is empty"]),
    ("color,size\nred,1\nred,1\n", ["not a time-series table"]),
    ("h_id,ts,v\nA,2026-01-01T00:00:00Z,1\nA,yesterday,2\n", ["'ts'", "line 3", "'yesterday'"]),
    ("h_id,ts,v\nA,2026-01-01T00:00:00Z,1\nA,2026-01-01T01:00:00,2\n", ["mixes timestamps with and without"]),
])
def test_bad_input_exits_2(tmp_path, content, words):
    p = tmp_path / "empty.csv"
    p.write_text(content)
    out = tmp_path / "spec.yaml"
    _bad(run("infer", p, "-o", out), *words)
    assert not out.exists()


def test_ddl_only(tmp_path):
    ddl = tmp_path / "schema.sql"
    ddl.write_text("CREATE TABLE hosts (host_id TEXT PRIMARY KEY, ts TIMESTAMP, cpu_pct DOUBLE, req_count INT);")
    out, report = tmp_path / "spec.yaml", tmp_path / "r.md"
    result = run("infer", "--ddl", ddl, "-o", out, "--report", report)
    assert result.exit_code == 0, result.stdout + result.stderr
    assert "guesses from the DDL" in result.stdout
    m = {x.name: x for x in entity_for_table(load_spec(out), "hosts").measurements}
    assert m["cpu_pct"].bounds == (0, 100) and m["req_count"].noise.kind == "poisson"
    assert "## Guesses" in report.read_text()


def test_nothing_to_infer(tmp_path):
    _bad(run("infer", "-o", tmp_path / "s.yaml"), "nothing to infer from")
