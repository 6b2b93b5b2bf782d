"""Suite exports (Inspect AI, LangSmith, Opik, promptfoo, OpenAI evals, Genie CSV) and table files."""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
import textwrap

import duckdb
import pandas as pd
import pytest
import yaml

from tools.export import export_bundle
from tools.queries.conventions import read_preamble

INSPECT_RUN = textwrap.dedent('''
    import json, os, sys
    from inspect_ai import eval as inspect_eval
    from inspect_ai.model import ModelOutput, ModelUsage
    from tools.harness.reference import render_answer
    rows = [json.loads(x) for x in open(os.path.join(sys.argv[1], "dataset.jsonl"))]
    outputs = []
    for i, r in enumerate(rows):
        text = render_answer(r["metadata"]["answer"], r["metadata"]["answer_type"]) if i % 2 == 0 else "no idea"
        o = ModelOutput.from_content(model="mockllm", content=text)
        o.usage = ModelUsage(input_tokens=10, output_tokens=5, total_tokens=15)  # else mockllm fetches tiktoken data
        outputs.append(o)
    os.chdir(sys.argv[1])
    log = inspect_eval("chronoeval_task.py", model="mockllm/model", model_args={"custom_outputs": outputs},
                       log_dir=sys.argv[2], display="none", max_samples=1)[0]
    print(json.dumps({"status": log.status, "samples": len(log.samples),
                      "accuracy": log.results.scores[0].metrics["accuracy"].value}))
''')


@pytest.mark.slow
def test_inspect_dataset_runs_in_inspect_with_the_mockllm_model(export_bundle_dir, export_records, tmp_path):
    out = tmp_path / "inspect"
    out.mkdir()
    export_bundle(export_bundle_dir, out, "inspect", export_records)
    rows = [json.loads(x) for x in (out / "dataset.jsonl").read_text().splitlines()]
    assert len(rows) == len(export_records)
    assert set(rows[0]) == {"id", "input", "target", "metadata"} and rows[0]["metadata"]["answer_type"]
    r0 = export_records[0]  # the input is the evidence then the question; the task's system message the preamble
    assert rows[0]["input"] == f"Evidence: {r0['evidence']}\n\nQuestion: {r0['question']}"
    assert rows[0]["metadata"]["evidence"] == r0["evidence"]
    assert repr(read_preamble(export_bundle_dir))[1:-1] in (out / "chronoeval_task.py").read_text()
    script = tmp_path / "run_inspect.py"
    script.write_text(INSPECT_RUN)
    env = {**os.environ, "PYTHONPATH": os.getcwd(), "INSPECT_DISPLAY": "none"}
    res = subprocess.run([sys.executable, str(script), str(out), str(tmp_path / "logs")], env=env,
                         capture_output=True, text=True, timeout=240)
    assert res.returncode == 0, res.stderr[-2000:]
    got = json.loads(res.stdout.strip().splitlines()[-1])
    n = len(export_records)
    assert got["status"] == "success" and got["samples"] == n
    assert abs(got["accuracy"] - ((n + 1) // 2) / n) < 1e-9  # the right answers, graded by chronoeval inside Inspect


def test_langsmith_opik_openai_genie_and_promptfoo_files(export_bundle_dir, export_records, tmp_path):
    for fmt in ("langsmith", "opik", "openai-evals", "genie", "promptfoo"):
        export_bundle(export_bundle_dir, tmp_path, fmt, export_records)
    r0 = export_records[0]
    preamble = read_preamble(export_bundle_dir)  # the suite's conventions (suite.json) travel with every export
    assert r0["evidence"] and "All times are UTC." in preamble
    asked = f"Evidence: {r0['evidence']}\n\nQuestion: {r0['question']}"
    ls = json.loads((tmp_path / "langsmith_examples.jsonl").read_text().splitlines()[0])
    assert ls["inputs"] == {"question": r0["question"], "evidence": r0["evidence"], "preamble": preamble}
    assert ls["outputs"]["answer"] == r0["answer"]
    op = json.loads((tmp_path / "opik_items.jsonl").read_text().splitlines()[0])
    assert op["input"] == asked and op["preamble"] == preamble and op["expected_output"] == r0["answer_text"]
    oe = json.loads((tmp_path / "openai_evals.jsonl").read_text().splitlines()[0])
    assert oe["input"][-1] == {"role": "user", "content": asked} and oe["ideal"] == r0["answer_text"]
    assert oe["input"][0]["content"].endswith(preamble)
    with open(tmp_path / "genie_benchmark.csv", newline="") as f:
        genie = list(csv.DictReader(f))
    assert len(genie) == len(export_records) and genie[0]["sql"] == r0["gold_sql_dialects"]["spark"]  # Databricks
    tests = yaml.safe_load((tmp_path / "promptfoo_tests.yaml").read_text())
    assert tests[0]["vars"]["question"] == r0["question"] and tests[0]["assert"][0]["type"] == "python"
    v = tests[0]["vars"]
    assert v["evidence"] == r0["evidence"] and v["preamble"] == preamble
    assert v["prompt"] == f"{preamble}\n\n{asked}"
    sys.path.insert(0, str(tmp_path))
    try:
        from chronoeval_assert import get_assert
    finally:
        sys.path.remove(str(tmp_path))
    assert get_assert(r0["answer_text"], {"vars": tests[0]["vars"]})["pass"] is True
    assert get_assert("I'm sorry, I cannot.", {"vars": tests[0]["vars"]})["pass"] is False


def test_tables_as_csv_and_parquet_match_the_database(export_bundle_dir, tmp_path):
    con = duckdb.connect(str(export_bundle_dir / "data.duckdb"), read_only=True)
    for fmt in ("csv", "parquet"):
        d = tmp_path / fmt
        d.mkdir()
        paths = export_bundle(export_bundle_dir, d, fmt)
        assert paths
        for p in paths:
            df = pd.read_csv(p) if fmt == "csv" else pd.read_parquet(p)
            assert len(df) == con.execute(f'SELECT count(*) FROM "{p.stem}"').fetchone()[0]


OFFLINE_TIKTOKEN = textwrap.dedent('''
    # mockllm counts tokens with tiktoken, whose o200k_base file is downloaded on first use; tests
    # have no internet, so a whitespace tokenizer stands in (loaded via sitecustomize).
    import tiktoken

    class _OfflineEncoding:
        def encode(self, text, **kwargs):
            return text.split()

    tiktoken.get_encoding = lambda name: _OfflineEncoding()
''')


@pytest.mark.slow
def test_the_inspect_eval_command_runs_the_exported_task_with_mockllm(export_bundle_dir, export_records, tmp_path):
    out = tmp_path / "inspect"
    out.mkdir()
    export_bundle(export_bundle_dir, out, "inspect", export_records[:4])
    (tmp_path / "site").mkdir()
    (tmp_path / "site" / "sitecustomize.py").write_text(OFFLINE_TIKTOKEN)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([os.getcwd(), str(tmp_path / "site")])}
    inspect_cli = os.path.join(os.path.dirname(sys.executable), "inspect")
    res = subprocess.run([inspect_cli, "eval", "chronoeval_task.py", "--model", "mockllm/model", "--log-dir",
                          str(tmp_path / "logs"), "--log-format", "json", "--display", "none"],
                         cwd=out, env=env, capture_output=True, text=True, timeout=240)
    assert res.returncode == 0, res.stderr[-2000:]
    (log_file,) = (tmp_path / "logs").glob("*.json")
    log = json.loads(log_file.read_text())
    assert log["status"] == "success" and log["results"]["total_samples"] == 4
    scores = [s["scores"]["chronoeval_grader"] for s in log["samples"]]
    assert all(s["value"] == "I" and s["answer"] == "Default output from mockllm/model" for s in scores)
