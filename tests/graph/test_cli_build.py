"""``chronoeval build`` through the real CLI: offline with --yes, a review that pauses in one
process and resumes in another (SqliteSaver), edits at review, and a full build over real HTTP
against the scripted OpenAI-compatible server where the resumed process repeats no LLM call."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

from tests.tools.describe.cases import CASES

ROOT = Path(__file__).resolve().parents[2]
PODS = CASES[1][0]


def _cli(args: list[str], env: dict, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "graph.cli", *args], cwd=ROOT, env=env, text=True,
                          input=stdin if stdin is not None else "", capture_output=True, timeout=300)


def _env(tmp_path: Path, **extra: str) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "CHRONOEVAL_"))}
    env.update({"CHRONOEVAL_HOME": str(tmp_path / "home"), "CHRONOEVAL_MODEL": "none",
                "CHRONOEVAL_MEMORY_DIR": str(tmp_path / "memory"),
                "CHRONOEVAL_CACHE_DIR": str(tmp_path / "cache"), "COLUMNS": "120", **extra})
    return env


def test_offline_build_with_yes_writes_a_bundle(tmp_path):
    r = _cli(["build", CASES[0][0] + " over 2 days", "-o", str(tmp_path / "wind"), "--yes", "--n", "12"],
             _env(tmp_path))
    assert r.returncode == 0, r.stderr
    assert "built" in r.stdout and "12 questions" in r.stdout
    qa = [json.loads(x) for x in (tmp_path / "wind" / "qa.jsonl").read_text().splitlines()]
    canon = [q for q in qa if not q["variant_of"]]
    variants = len(qa) - len(canon)
    assert f"{variants} paraphrases" in r.stdout
    # two persona variants per question; a short natural question may get fewer distinct rewrites
    # (the paraphrase engine's contract: at most 10% short)
    assert len(canon) == 12 and 0.9 * 24 <= variants <= 24 and any("turbine" in q["question"] for q in canon)
    report = (tmp_path / "wind" / "report.md").read_text()
    assert re.search(r"retrieved from memory: pack \w+; patterns \w+", report)  # the real offline model


def test_review_pauses_resumes_in_a_new_process_and_applies_an_edit(tmp_path):
    env = _env(tmp_path)
    out = tmp_path / "pods"
    first = _cli(["build", PODS, "-o", str(out), "--thread", "t1", "--n", "12", "--no-memory"], env)  # stdin closed: pause
    assert first.returncode == 0, first.stderr
    assert "paused for review" in first.stderr and "kubernetes_pod" in first.stdout and not out.exists()
    edit = _cli(["build", "--thread", "t1", "--no-memory", "--answer", "make it 8 pods every 10 minutes over 2 days"], env)
    assert edit.returncode == 0 and "paused for review" in edit.stderr  # the edited draft is shown again
    assert re.search(r"kubernetes_pod\s*│\s*8\s*│\s*10m\s*│", edit.stdout), edit.stdout
    done = _cli(["build", "--thread", "t1", "--no-memory", "--answer", "ok"], env)
    assert done.returncode == 0, done.stderr
    manifest = json.loads((out / "manifest.json").read_text())
    metrics = manifest["tables"]["kubernetes_pod_metrics"]
    assert metrics["entities"] == 8 and metrics["rows"] <= 8 * 2 * 144
    report = (out / "report.md").read_text()
    assert "edit: make it 8 pods every 10 minutes over 2 days" in report and "count → 8" in report
    again = _cli(["build", "--thread", "t1"], env)
    assert again.returncode == 2 and "already finished" in again.stderr


def test_build_needs_an_output_and_refuses_an_existing_bundle(tmp_path):
    env = _env(tmp_path)
    r = _cli(["build", PODS], env)
    assert r.returncode == 2 and "-o OUT" in r.stderr and "Traceback" not in r.stderr
    (tmp_path / "taken").mkdir()
    (tmp_path / "taken" / "x").write_text("keep me")
    r = _cli(["build", PODS, "-o", str(tmp_path / "taken"), "--yes", "--no-memory"], env)
    assert r.returncode == 2 and "already exists" in r.stderr
    assert (tmp_path / "taken" / "x").read_text() == "keep me"


def _scripted(body: dict) -> dict:
    """The 'model': a DomainDraft for schema inference, the planner's next step for the supervisor."""
    system = body["messages"][0]["content"]
    if "rewrite a question" in system:  # the paraphraser: a variant that fails the judge's slot check
        return {"variants": ["tell me something else"]}
    if "simulate realistic telemetry" in system:
        return {"measurements": [{"name": "restarts", "typical": 0.5, "low": 0, "integer": True},
                                 {"name": "cpu_throttling", "unit": "%", "typical": 12, "low": 0, "high": 100}]}
    if "Choose 2 to 4 realistic incidents" in system:
        return {"incidents": [{"kind": "spike", "key": "cpu_throttling", "entities": 2, "day": 2, "start_hour": 9},
                              {"kind": "data_outage", "entities": 2, "day": 1, "start_hour": 14, "hours": 2}]}
    if "Pick up to 6 question templates" in system:
        return {"prefer": ["state_duration"], "reason": "pods restart"}
    if "draft the data it" in system:
        return {"name": "k8s", "description": PODS,
                "entity": {"name": "pod", "plural": "pods", "count": 6, "cadence": "10m",
                           "measurements": [{"name": "restarts", "words": "restarts"},
                                            {"name": "oom_kills", "words": "OOM kills"},
                                            {"name": "cpu_throttling", "words": "CPU throttling"}]},
                "horizon": "2d", "evidence": {"count": "llm"}}
    status = json.loads(body["messages"][-1]["content"])
    nxt = ("schema_inference" if not status["has_draft"] else "spec_writer" if not status["has_spec"] else
           "review" if not status["approved"] else "pattern_injector" if not status["bundle_ready"] else
           "query_synthesizer" if not status["questions"] else "finish")
    return {"next": nxt, "reason": f"scripted: {nxt}"}


def test_full_build_over_http_and_resume_repeats_no_llm_call(tmp_path, openai_server):
    openai_server.respond_with(_scripted)
    llm = {"CHRONOEVAL_MODEL": "openai:scripted", "OPENAI_BASE_URL": openai_server.base_url,
           "OPENAI_API_KEY": "test-key", "CHRONOEVAL_LLM_RETRIES": "0"}
    out = tmp_path / "k8s"
    first = _cli(["build", PODS, "-o", str(out), "--thread", "h1", "--n", "12", "--no-memory"],
                 _env(tmp_path, **llm, CHRONOEVAL_CACHE_DIR=str(tmp_path / "c1")))
    assert first.returncode == 0 and "paused for review" in first.stderr, first.stderr
    before = len(openai_server.requests)
    systems = [r["messages"][0]["content"] for r in openai_server.requests]
    assert sum("draft the data it" in x for x in systems) == 1
    assert sum("You orchestrate" in x for x in systems) == 3  # → schema_inference, spec_writer, review
    assert sum("simulate realistic telemetry" in x for x in systems) == 1
    done = _cli(["build", "--thread", "h1", "--no-memory", "--answer", "ok"],
                _env(tmp_path, **llm, CHRONOEVAL_CACHE_DIR=str(tmp_path / "c2")))  # a cold cache: repeats would show
    assert done.returncode == 0, done.stderr
    later = openai_server.requests[before:]
    assert not any(m in r["messages"][0]["content"] for r in later
                   for m in ("draft the data it", "simulate realistic telemetry"))  # nothing done twice
    routes = [r for r in later if "You orchestrate" in r["messages"][0]["content"]]
    assert len(routes) == 4  # pattern_injector, query_synthesizer, paraphraser, finish: nothing repeated
    m = json.loads((out / "manifest.json").read_text())["tables"]["kubernetes_pod_metrics"]  # the text's name
    assert m["entities"] == 6
    report = (out / "report.md").read_text()
    assert "LLM draft merged into the offline reading" in report and "measurement levels from the LLM" in report
    assert "count 6 (LLM; the rules read none)" in report
    assert "incident plan from the LLM: spike, data_outage" in report


def test_a_description_with_nothing_to_model_exits_2_and_says_what_is_needed(tmp_path):
    env = _env(tmp_path)
    for text in ("banana", "   "):
        r = _cli(["build", text, "-o", str(tmp_path / "b"), "--yes", "--no-memory"], env)
        assert r.returncode == 2, r.stderr
        assert "what a description needs" in r.stderr and "Traceback" not in r.stderr
        assert not (tmp_path / "b").exists()


def test_what_the_text_names_but_the_catalog_lacks_is_warned_and_reported(tmp_path):
    out = tmp_path / "bees"
    r = _cli(["build", "40 beehives reporting hive weight in kg and wingbeat harmonics every hour over 2 days",
              "-o", str(out), "--yes", "--no-memory", "--world-only"], _env(tmp_path))
    assert r.returncode == 0, r.stderr
    assert "warning: not understood: 'wingbeat harmonics'" in r.stderr
    report = (out / "report.md").read_text()
    assert "### Not understood" in report and "wingbeat harmonics" in report
    checks = json.loads((out / "checks.json").read_text())
    assert any(c["name"] == "plausibility" and c["passed"] for c in checks)


def test_a_suite_short_of_its_plan_says_so_on_the_console(tmp_path, capsys):
    """Issue 29: a build whose suite kept fewer questions than its plan warns on the console, not only in
    report.md; a build that met its plan says nothing of the kind."""
    from graph.cli_build import print_result

    print_result({"out": str(tmp_path), "questions": 42, "shortfall": {"incident": 18, "stateful": 0}})
    said = capsys.readouterr().err
    assert "warning: 18 question(s) short of the plan: 18 incident" in said
    print_result({"out": str(tmp_path), "questions": 60, "shortfall": {}})
    assert "short of the plan" not in capsys.readouterr().err
