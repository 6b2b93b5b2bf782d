"""Messages a newcomer meets first (issue 17): help without type noise, did-you-mean for packs,
agents, formats and backends, a clear --scale message, a missing cmd: program, an eval whose every
answer is a runtime error, categorical weights explained."""

from __future__ import annotations

import re

import pytest
from typer.testing import CliRunner

from graph.cli import app

SAMPLE_SPEC = "tests/tools/spec/sample_iot.yaml"


def run(*args):
    return CliRunner().invoke(app, [str(a) for a in args], env={"COLUMNS": "200"})


@pytest.fixture(scope="module")
def bundle(small_bundle):
    return small_bundle("iot", 12, 4)


@pytest.mark.parametrize("command", [[], ["build"], ["eval"], ["generate"], ["chat"], ["paraphrase"], ["memory", "search"],
                                     ["export"], ["queries"], ["infer"], ["verify"]])
def test_help_shows_no_type_after_flags(command):
    r = run(*command, "--help")
    assert r.exit_code == 0, r.output
    assert "<bool>" not in r.output and "--help" in r.output


@pytest.mark.parametrize("args, hint", [
    (["generate", "iott", "-o", "OUT"], "did you mean 'iot'?"),
    (["init", "--pack", "telecon", "-o", "OUT.yaml"], "did you mean 'telecom'?"),
])
def test_mistyped_pack_names_get_a_suggestion(tmp_path, args, hint):
    r = run(*[str(tmp_path / a) if a.startswith("OUT") else a for a in args])
    assert r.exit_code == 2 and hint in r.output and "available packs" in r.output, r.output


@pytest.mark.parametrize("args, hint", [
    (["--agent", "orcale"], "did you mean 'oracle'?"),
    (["--agent", "oracle", "--backend", "duckbd"], "did you mean 'duckdb'?"),
])
def test_mistyped_agent_and_backend_get_a_suggestion(bundle, tmp_path, args, hint):
    r = run("eval", bundle, *args, "-o", tmp_path / "run")
    assert r.exit_code == 2 and hint in r.output, r.output


def test_mistyped_export_format_gets_a_suggestion(bundle, tmp_path):
    r = run("export", bundle, "--format", "promptfo", "-o", tmp_path / "x")
    assert r.exit_code == 2 and "did you mean 'promptfoo'?" in r.output, r.output


def test_a_scale_too_small_for_an_incident_says_what_scale_works(tmp_path):
    r = run("generate", "iot", "-o", tmp_path / "tiny", "--scale", "0.001")
    assert r.exit_code == 2, r.output
    text = " ".join(r.output.split())
    assert "--scale 0.001 leaves 1 sensor entity" in text and re.search(r"use --scale 0\.0\d+ or more", text)
    assert not (tmp_path / "tiny").exists()


def test_a_cmd_agent_whose_program_does_not_exist_is_a_clear_error(bundle, tmp_path):
    r = run("eval", bundle, "--agent", 'cmd:"no-such-agent-binary-x --fast"', "-o", tmp_path / "run")
    assert r.exit_code == 2, r.output
    assert "'no-such-agent-binary-x' does not exist" in " ".join(r.output.split())
    assert not (tmp_path / "run" / "report.md").exists()


def test_an_eval_where_every_answer_is_a_runtime_error_exits_5_with_the_first_error(bundle, tmp_path):
    crash = tmp_path / "crash.py"
    crash.write_text("import sys\nsys.stdin.read()\nsys.stderr.write('KeyError: db_path\\n')\nsys.exit(3)\n")
    r = run("eval", bundle, "--agent", f'cmd:"python3 {crash}"', "--trials", "1", "-o", tmp_path / "run")
    assert r.exit_code == 5, r.output
    text = " ".join(r.output.split())
    assert "every answer was a runtime error" in text and "KeyError: db_path" in text
    assert "experience note(s)" not in text  # crashes teach nothing about the questions


def test_categorical_weights_that_do_not_sum_to_one_are_explained(tmp_path):
    spec = tmp_path / "w.yaml"
    assert run("init", "--pack", "iot", "-o", spec).exit_code == 0
    spec.write_text(spec.read_text().replace("EN-100: 0.6, EN-200: 0.4", "EN-100: 0.95, EN-200: 0.4"))
    r = run("validate", spec)
    assert r.exit_code == 0, r.output
    text = " ".join(r.output.split())
    assert "categorical weights sum to 1.35; they are relative weights" in text and "EN-100 70.4%" in text
    schema = run("schema").output
    assert "relative weight" in schema and "must sum to 1" in schema


def test_the_decision_logs_row_estimate_matches_the_generated_rows(tmp_path):
    import json

    from knowledge.catalog import load_catalog
    from tools.describe.compose_world import compose_world
    from tools.describe.understand import understand
    from tools.generate import generate_bundle

    catalog = load_catalog()
    draft = understand("pumps reporting pressure and flow every 30 minutes over 2 days", catalog, None)
    spec, decisions, _ = compose_world(draft, catalog, 0)
    said = next((d for d in decisions if "rows)" in d), None)
    m = re.search(r"count (\d+) (\w+): default \(about ([\d,]+) rows\)", said or "")
    assert m, decisions
    generate_bundle(spec, tmp_path / "b", force=True)
    tables = json.loads((tmp_path / "b" / "manifest.json").read_text())["tables"]
    rows = max(t["rows"] for t in tables.values())
    assert abs(rows - int(m.group(3).replace(",", ""))) <= 0.02 * rows, (said, tables)
