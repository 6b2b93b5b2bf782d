"""The trial runner: reference agents, misbehaving agents, resumption after SIGKILL, concurrency."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from collections import Counter

import pytest

from tools.harness import build_context, load_responses, reference_agents, run_suite, summarize, write_report
from tools.harness.context import HarnessError
from tools.harness.prompting import question_of


def test_oracle_scores_one_and_naive_falls_for_the_stateful_traps(iot_bundle, iot_records, tmp_path):
    ctx = build_context(iot_bundle)
    agents = reference_agents(iot_records, iot_bundle)
    out = {}
    for name in ("oracle", "naive"):
        run = tmp_path / name
        res = run_suite(iot_records, agents[name](), ctx, run, trials=2, concurrency=4, meta={"agent": name})
        assert res.asked == res.total == 2 * len(iot_records)
        out[name] = write_report(run)
    assert out["oracle"]["accuracy"] == 1.0 and out["oracle"]["pass_at_k"] == {"1": 1.0, "2": 1.0}
    naive = out["naive"]
    assert naive["by_family"]["stateful"]["accuracy"] < naive["by_family"]["stateless"]["accuracy"]
    assert naive["naive_trap_rate"] == 1.0 and naive["naive_trap_n"] > 0
    assert "naive-trap rate | 100.0%" in (tmp_path / "naive" / "report.md").read_text()


def _misbehaving(records):
    """Answers right, raises, hangs, prints garbage or refuses, by question index."""
    from tools.harness.reference import render_answer

    by_q = {r["question"]: (i, r) for i, r in enumerate(records)}

    def agent(question, context):
        i, r = by_q[question_of(question)]  # the text asked carries the preamble and evidence first
        kind = i % 5
        if kind == 1:
            raise RuntimeError("agent crashed")
        if kind == 2:
            time.sleep(3)
        if kind == 3:
            return "#$%^&*(){}[]<>~~||"
        if kind == 4:
            return "I'm sorry, I cannot help with that."
        return render_answer(r["answer"], r["answer_type"])
    return agent


def test_raising_hanging_garbage_and_refusing_agents_are_runtime_errors_and_the_run_goes_on(
        iot_bundle, iot_records, tmp_path):
    t0 = time.perf_counter()
    run_suite(iot_records, _misbehaving(iot_records), build_context(iot_bundle), tmp_path / "r", trials=1,
              concurrency=8, timeout=0.5)
    assert time.perf_counter() - t0 < 3.0  # hung calls are abandoned at the timeout
    rows = {r["id"]: r for r in load_responses(tmp_path / "r")}
    assert len(rows) == len(iot_records)
    for i, rec in enumerate(iot_records):
        r = rows[rec["id"]]
        assert r["label"] == ("correct" if i % 5 == 0 else "runtime_error"), (i, r)
    details = [rows[rec["id"]]["detail"] for rec in iot_records[:5]]
    assert details[1] == "RuntimeError: agent crashed" and details[2].startswith("timeout")
    assert details[3].startswith("garbage") and details[4] == "refusal"


AGENT_MODULE = textwrap.dedent('''
    import json, os, time
    RECORDS = {}
    def answer(question, context):
        if not RECORDS:
            for line in open(os.environ["SUITE"]):
                r = json.loads(line)
                RECORDS[r["question"]] = r
        time.sleep(float(os.environ.get("DELAY", "0")))
        return str(RECORDS[question.rsplit("Question: ", 1)[-1]]["answer"])
''')

RUNNER = textwrap.dedent('''
    import json, os, sys
    from pathlib import Path
    from tools.harness import build_context, resolve_agent, run_suite
    bundle, run = Path(sys.argv[1]), Path(sys.argv[2])
    records = [json.loads(x) for x in (bundle / "qa.jsonl").read_text().splitlines()]
    # this stub cheats on purpose (it reads the suite): it needs SUITE passed explicitly
    agent, timed = resolve_agent("python:" + sys.argv[3] + ":answer", timeout=10,
                                 env={k: os.environ[k] for k in ("SUITE", "DELAY", "PATH")})
    run_suite(records, agent, build_context(bundle), run, trials=3, concurrency=2, self_timed=timed,
              meta={"agent": "python:stub"})
''')


@pytest.mark.slow
def test_a_run_killed_with_sigkill_resumes_with_every_question_exactly_once(iot_bundle, iot_records, tmp_path):
    mod = tmp_path / "stub_agent.py"
    mod.write_text(AGENT_MODULE)
    script = tmp_path / "run.py"
    script.write_text(RUNNER)
    run = tmp_path / "run"
    env = {**os.environ, "SUITE": str(iot_bundle / "qa.jsonl"), "DELAY": "0.05",
           "PYTHONPATH": os.getcwd() + os.pathsep + os.environ.get("PYTHONPATH", "")}
    proc = subprocess.Popen([sys.executable, str(script), str(iot_bundle), str(run), str(mod)], env=env)
    total = 3 * len(iot_records)
    deadline = time.time() + 60
    while time.time() < deadline:
        n = len(load_responses(run)) if (run / "responses.jsonl").exists() else 0
        if n >= 6:
            break
        time.sleep(0.02)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    before = load_responses(run)
    assert 6 <= len(before) < total, "the kill must land mid-run"
    with open(run / "responses.jsonl", "a") as f:  # a torn line, as a crash mid-write leaves it
        f.write('{"id": "q0001", "tri')
    env["DELAY"] = "0"
    subprocess.run([sys.executable, str(script), str(iot_bundle), str(run), str(mod)], env=env, check=True)
    rows = load_responses(run)
    counts = Counter((r["id"], r["trial"]) for r in rows)
    assert len(rows) == total and set(counts.values()) == {1}
    assert {r["id"] for r in rows} == {r["id"] for r in iot_records}
    assert rows[: len(before)] == before  # nothing already recorded was rewritten
    assert summarize(iot_records, rows)["accuracy"] == 1.0


def test_resuming_with_another_agent_is_refused_and_force_starts_over(iot_bundle, iot_records, tmp_path):
    ctx = build_context(iot_bundle)
    agents = reference_agents(iot_records, iot_bundle)
    run_suite(iot_records, agents["oracle"](), ctx, tmp_path, trials=1, meta={"agent": "oracle"})
    with pytest.raises(HarnessError, match="another agent"):
        run_suite(iot_records, agents["naive"](), ctx, tmp_path, trials=1, meta={"agent": "naive"})
    res = run_suite(iot_records, agents["naive"](), ctx, tmp_path, trials=1, meta={"agent": "naive"}, force=True)
    assert res.asked == len(iot_records)
    again = run_suite(iot_records, agents["naive"](), ctx, tmp_path, trials=2, meta={"agent": "naive"})
    assert again.kept == len(iot_records) and again.asked == len(iot_records)
    assert json.loads((tmp_path / "run.json").read_text())["trials"] == 2


def test_a_directory_that_is_not_a_run_is_not_overwritten(iot_bundle, iot_records, tmp_path):
    (tmp_path / "notes.txt").write_text("mine")
    with pytest.raises(HarnessError, match="not a chronoeval run"):
        run_suite(iot_records, lambda q, c: "1", build_context(iot_bundle), tmp_path, trials=1)


def test_concurrency_overlaps_agent_calls(iot_bundle, iot_records, tmp_path):
    def slow(question, context):
        time.sleep(0.1)
        return "1"

    recs = iot_records[:8]
    t0 = time.perf_counter()
    run_suite(recs, slow, build_context(iot_bundle), tmp_path, trials=2, concurrency=8)
    assert time.perf_counter() - t0 < 0.8  # 16 calls of 0.1 s, 8 at a time (~0.2 s), not 1.6 s in a row
