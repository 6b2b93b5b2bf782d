"""`chronoeval eval | report | compare | export` end to end on a small generated bundle."""

from __future__ import annotations

import json
import sys

import pytest
from typer.testing import CliRunner

from graph.cli import app


def run(*args):
    return CliRunner().invoke(app, [str(a) for a in args])


@pytest.fixture(scope="module")
def bundle(small_bundle):
    return small_bundle("iot", 12, 4)


def test_eval_oracle_and_naive_then_report_and_compare(bundle, tmp_path):
    r = run("eval", bundle, "--agent", "oracle", "--trials", "2", "-o", tmp_path / "oracle")
    assert r.exit_code == 0, r.output
    s = json.loads((tmp_path / "oracle" / "summary.json").read_text())
    assert s["accuracy"] == 1.0 and s["trials"] == 2 and s["agent"] == "oracle"
    assert (tmp_path / "oracle" / "report.html").is_file() and (tmp_path / "oracle" / "figures" / "heatmap.png").is_file()
    assert "pass@2" in r.output and "100.0%" in r.output
    r = run("eval", bundle, "--agent", "naive", "--trials", "1", "-o", tmp_path / "naive")
    assert r.exit_code == 0, r.output
    s = json.loads((tmp_path / "naive" / "summary.json").read_text())
    assert s["by_family"]["stateful"]["accuracy"] < s["by_family"]["stateless"]["accuracy"]
    assert "naive-trap rate" in r.output
    assert "naive-trap rate" in (tmp_path / "naive" / "report.md").read_text()
    r = run("report", tmp_path / "naive")
    assert r.exit_code == 0 and "naive-trap rate" in r.output
    r = run("compare", tmp_path / "oracle", tmp_path / "naive", "-o", tmp_path / "cmp.md")
    assert r.exit_code == 0, r.output
    assert "| accuracy | 100.0% |" in (tmp_path / "cmp.md").read_text()


def test_rerunning_the_same_command_resumes_and_asks_nothing_twice(bundle, tmp_path):
    args = ("eval", bundle, "--agent", "oracle", "--trials", "1", "-o", tmp_path / "r")
    assert run(*args).exit_code == 0
    r = run(*args)
    assert r.exit_code == 0 and "0 answers asked" in r.output
    lines = (tmp_path / "r" / "responses.jsonl").read_text().splitlines()
    assert len(lines) == len({(json.loads(x)["id"], json.loads(x)["trial"]) for x in lines})


def test_report_regrade_grades_recorded_answers_again(bundle, tmp_path):
    assert run("eval", bundle, "--agent", "oracle", "--trials", "1", "-o", tmp_path / "r").exit_code == 0
    path = tmp_path / "r" / "responses.jsonl"
    rows = [json.loads(x) for x in path.read_text().splitlines()]
    rows[0]["label"] = "incorrect"  # as an older, buggier grader would have left it
    path.write_text("".join(json.dumps(x) + "\n" for x in rows))
    r = run("report", tmp_path / "r", "--regrade")
    assert r.exit_code == 0 and "1 label(s) changed" in r.output, r.output
    assert json.loads((tmp_path / "r" / "summary.json").read_text())["accuracy"] == 1.0


def test_cmd_agent_on_parquet_and_csv_backends(bundle, tmp_path):
    agent = tmp_path / "agent.py"
    agent.write_text("import os, sys\nsys.stdin.read()\nprint(os.environ['CHRONOEVAL_BACKEND'], "
                     "sorted(os.listdir(os.environ['CHRONOEVAL_DATA_DIR'])))\n")
    for backend, ext in (("parquet", ".parquet"), ("csv", ".csv")):
        r = run("eval", bundle, "--agent", f"cmd:{sys.executable} {agent}", "--trials", "1", "--backend", backend,
                "-o", tmp_path / backend)
        assert r.exit_code == 0, r.output
        row = json.loads((tmp_path / backend / "responses.jsonl").read_text().splitlines()[0])
        assert row["response"].startswith(backend) and ext in row["response"]


@pytest.mark.parametrize("args, message", [
    (("--agent", "telepathy"), "unknown agent 'telepathy'"),
    (("--agent", "python:no_such_mod_q:f"), "cannot import agent module"),
    (("--agent", "oracle", "--backend", "postgres"), "needs --dsn"),
    (("--agent", "oracle", "--backend", "oracle-db"), "is not one of duckdb"),
])
def test_bad_eval_arguments_exit_2_with_one_message(bundle, tmp_path, args, message):
    r = run("eval", bundle, *args, "-o", tmp_path / "x")
    assert r.exit_code == 2, r.output
    assert message in r.output and "Traceback" not in r.output


def test_eval_needs_a_suite_and_report_needs_a_run(tmp_path, bundle):
    import shutil

    r = run("eval", tmp_path / "nowhere", "--agent", "oracle", "-o", tmp_path / "x")
    assert r.exit_code == 2 and "no such bundle directory" in r.output and "chronoeval build" in r.output
    r = run("eval", tmp_path, "--agent", "oracle", "-o", tmp_path / "x")
    assert r.exit_code == 2 and "not a chronoeval bundle" in r.output and "queries" not in r.output
    world = tmp_path / "world"
    shutil.copytree(bundle, world)
    (world / "qa.jsonl").unlink()
    r = run("eval", world, "--agent", "oracle", "-o", tmp_path / "x")
    assert r.exit_code == 2 and f"chronoeval queries {world}" in r.output
    r = run("report", tmp_path)
    assert r.exit_code == 2 and "not a chronoeval run" in r.output


def test_llm_sql_without_a_model_is_a_user_error(bundle, tmp_path, monkeypatch):
    monkeypatch.delenv("CHRONOEVAL_MODEL", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    r = run("eval", bundle, "--agent", "llm-sql", "-o", tmp_path / "x")
    assert r.exit_code == 2 and "CHRONOEVAL_MODEL" in r.output, r.output


def test_export_formats_write_into_a_fresh_directory(bundle, tmp_path):
    for fmt, name in (("inspect", "dataset.jsonl"), ("genie", "genie_benchmark.csv"), ("parquet", "readings.parquet"),
                      ("promptfoo", "promptfoo_tests.yaml"), ("langsmith", "langsmith_examples.jsonl"),
                      ("opik", "opik_items.jsonl"), ("openai-evals", "openai_evals.jsonl"), ("csv", "readings.csv")):
        r = run("export", bundle, "--format", fmt, "-o", tmp_path / fmt)
        assert r.exit_code == 0, r.output
        assert (tmp_path / fmt / name).is_file()
    r = run("export", bundle, "--format", "genie", "-o", tmp_path / "genie")
    assert r.exit_code == 2 and "--force" in r.output
    r = run("export", bundle, "--format", "excel")
    assert r.exit_code == 2 and "is not one of" in r.output
    r = run("export", bundle, "--format", "postgres")
    assert r.exit_code == 2 and "--dsn" in r.output


def test_the_judge_grades_undecided_answers_when_a_model_is_configured(bundle, tmp_path, monkeypatch):
    from tests.llm_server import ScriptedOpenAIServer

    agent = tmp_path / "vague.py"
    agent.write_text("import sys\nsys.stdin.read()\nprint('I saw 17 readings, 3 sensors and 2 zones.')\n")
    with ScriptedOpenAIServer() as server:
        server.respond_with(lambda body: {"verdict": "correct", "reason": "scripted judge"})
        monkeypatch.setenv("CHRONOEVAL_MODEL", "scripted")
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", "test")
        monkeypatch.setenv("CHRONOEVAL_CACHE_DIR", str(tmp_path / "cache"))
        r = run("eval", bundle, "--agent", f"cmd:{sys.executable} {agent}", "--trials", "1", "-o", tmp_path / "r")
        judged = server.calls
    assert r.exit_code == 0, r.output
    rows = [json.loads(x) for x in (tmp_path / "r" / "responses.jsonl").read_text().splitlines()]
    by_judge = [x for x in rows if x["graded_by"] == "judge"]
    assert by_judge and judged >= 1
    assert all(x["label"] == "correct" and "scripted judge" in x["detail"] for x in by_judge)
    assert all(x["decided"] for x in rows if x["graded_by"] != "none")


def test_eval_records_the_templates_the_agent_failed_as_experience_notes(bundle, tmp_path):
    import os

    from knowledge.embed import HashEmbedder
    from knowledge.memory import Memory

    r = run("eval", bundle, "--agent", "naive", "-o", tmp_path / "naive", "--trials", "2")
    assert r.exit_code == 0, r.output
    notes = Memory(os.environ["CHRONOEVAL_MEMORY_DIR"], HashEmbedder()).notes(kind="agent_failure")
    summary = json.loads((tmp_path / "naive" / "summary.json").read_text())
    failed = sorted(t for t, g in summary["by_template"].items() if g["n"] >= 2 and g["accuracy"] < 0.5)
    assert failed and sorted(n.tags[0] for n in notes) == failed
    assert all(n.text.startswith("agent naive failed ") and n.source == str(tmp_path / "naive") for n in notes)
    quiet = run("eval", bundle, "--agent", "oracle", "-o", tmp_path / "oracle", "--trials", "1")
    assert quiet.exit_code == 0 and "experience note" not in quiet.output


CANARY = "sk-evaluator-canary-7c1e"
ENV_DUMP = "import json, os, sys\nsys.stdin.read()\nprint(json.dumps(dict(os.environ)))\n"


def _files_containing(root, text):
    return [p for p in root.rglob("*") if p.is_file() and text.encode() in p.read_bytes()]


class _Recorder:
    """An OpenAI-compatible endpoint on 127.0.0.1 that answers '42' and records every request's headers and body."""

    def __init__(self):
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

        seen = self.seen = []

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802
                seen.append((dict(self.headers), self.rfile.read(int(self.headers["Content-Length"])).decode()))
                out = json.dumps({"choices": [{"message": {"content": "42"}}]}).encode()
                self.send_response(200)
                self.send_header("Content-Length", str(len(out)))
                self.end_headers()
                self.wfile.write(out)

            def log_message(self, *a):
                pass

        self.srv = ThreadingHTTPServer(("127.0.0.1", 0), Handler)

    def __enter__(self):
        import threading

        threading.Thread(target=self.srv.serve_forever, daemon=True).start()
        self.base_url = f"http://127.0.0.1:{self.srv.server_address[1]}/v1"
        return self

    def __exit__(self, *a):
        self.srv.shutdown()
        self.srv.server_close()


def test_the_evaluators_key_reaches_no_agent_and_no_file_unless_passed(bundle, tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", CANARY)
    (tmp_path / "dump.py").write_text(ENV_DUMP)
    (tmp_path / "pydump.py").write_text("import json, os\ndef answer(q, c):\n    return json.dumps(dict(os.environ))\n")
    for name, spec in (("cmd", f"cmd:{sys.executable} {tmp_path / 'dump.py'}"),
                       ("py", f"python:{tmp_path / 'pydump.py'}:answer")):
        r = run("eval", bundle, "--agent", spec, "--trials", "1", "-o", tmp_path / name, "--no-memory")
        assert r.exit_code == 0, r.output
        env = json.loads(json.loads((tmp_path / name / "responses.jsonl").read_text().splitlines()[0])["response"])
        assert "OPENAI_API_KEY" not in env and "PATH" in env
        assert name == "py" or env["CHRONOEVAL_BACKEND"] == "duckdb"
        assert str(bundle) not in json.dumps(env)
        assert not _files_containing(tmp_path / name, CANARY)
    with _Recorder() as server:
        r = run("eval", bundle, "--agent", f"http:{server.base_url}", "--trials", "1", "-o", tmp_path / "http",
                "--no-memory")
        assert r.exit_code == 0, r.output
        assert server.seen and not any(CANARY in json.dumps(seen) for seen in server.seen)
        assert not any("authorization" in {k.lower() for k in h} for h, _ in server.seen)
        r = run("eval", bundle, "--agent", f"http:{server.base_url}", "--trials", "1", "-o", tmp_path / "http2",
                "--no-memory", "--agent-key-env", "OPENAI_API_KEY")
        assert r.exit_code == 0, r.output
        assert any(h.get("Authorization") == f"Bearer {CANARY}" for h, _ in server.seen)
    assert not _files_containing(tmp_path, CANARY)
    # passed on purpose, it does reach the agent
    r = run("eval", bundle, "--agent", f"cmd:{sys.executable} {tmp_path / 'dump.py'}", "--trials", "1",
            "-o", tmp_path / "passed", "--no-memory", "--agent-env", "OPENAI_API_KEY", "--agent-env", "MODE=x")
    assert r.exit_code == 0, r.output
    env = json.loads(json.loads((tmp_path / "passed" / "responses.jsonl").read_text().splitlines()[0])["response"])
    assert env["OPENAI_API_KEY"] == CANARY and env["MODE"] == "x"
    assert json.loads((tmp_path / "passed" / "run.json").read_text())["agent_env"] == ["MODE", "OPENAI_API_KEY"]
    r = run("eval", bundle, "--agent", "oracle", "-o", tmp_path / "x", "--agent-env", "NOT_SET_ANYWHERE_Q")
    assert r.exit_code == 2 and "NOT_SET_ANYWHERE_Q is not set" in r.output


def test_an_agent_that_changes_the_bundle_stops_the_eval_with_exit_2(bundle, tmp_path):
    import shutil

    copy = tmp_path / "bundle"
    shutil.copytree(bundle, copy)
    agent = tmp_path / "vandal.py"
    agent.write_text("import os, sys\nsys.stdin.read()\n"
                     "open(os.path.join(os.environ['TARGET'], 'incidents.json'), 'w').write('[]')\nprint(1)\n")
    r = run("eval", copy, "--agent", f"cmd:{sys.executable} {agent}", "--trials", "1", "-o", tmp_path / "r",
            "--agent-env", f"TARGET={copy}")  # told the path on purpose, as a filesystem-wide search would find it
    assert r.exit_code == 2, r.output
    assert "changed while the agent ran" in r.output and "incidents.json" in r.output
    assert not (tmp_path / "r" / "report.md").exists()
    r = run("eval", copy, "--agent", "oracle", "--trials", "1", "-o", tmp_path / "again")
    assert r.exit_code == 2 and "incidents.json" in r.output, r.output  # and nothing runs on it afterwards


def test_two_evals_into_one_run_directory_one_wins_one_exits_2(bundle, tmp_path):
    import subprocess
    import time

    agent = tmp_path / "slow.py"
    agent.write_text("import sys, time\nsys.stdin.read()\ntime.sleep(0.3)\nprint(1)\n")
    args = [sys.executable, "-m", "graph.cli", "eval", str(bundle), "--agent", f"cmd:{sys.executable} {agent}",
            "--trials", "2", "--concurrency", "2", "-o", str(tmp_path / "r"), "--no-memory"]
    first = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    deadline = time.time() + 60
    while not (tmp_path / "r" / "run.json").exists() and time.time() < deadline:
        time.sleep(0.05)
    second = subprocess.run(args, capture_output=True, text=True)
    out, _ = first.communicate(timeout=120)
    assert first.returncode == 0, out
    assert second.returncode == 2 and "is being written by" in second.stdout + second.stderr
    rows = [json.loads(x) for x in (tmp_path / "r" / "responses.jsonl").read_text().splitlines()]
    assert len(rows) == len({(x["id"], x["trial"]) for x in rows}) == 2 * len(_ids(bundle))


def _ids(bundle):
    return [json.loads(x)["id"] for x in (bundle / "qa.jsonl").read_text().splitlines()]


def test_infrastructure_failures_write_no_experience_notes(bundle, tmp_path):
    import os

    from knowledge.embed import HashEmbedder
    from knowledge.memory import Memory

    r = run("eval", bundle, "--agent", "http:http://127.0.0.1:9/v1", "--trials", "2", "--timeout", "5",
            "-o", tmp_path / "down")
    assert r.exit_code == 5, r.output  # every answer a runtime error: the agent was never evaluated
    assert "every answer was a runtime error" in r.output and "the first error:" in r.output
    assert "connection" in r.output.split("the first error:")[1].lower()
    assert "runtime errors" in r.output and "experience note" not in r.output.replace("experience notes", "")
    notes = Memory(os.environ["CHRONOEVAL_MEMORY_DIR"], HashEmbedder()).notes(kind="agent_failure")
    assert not [n for n in notes if n.source == str(tmp_path / "down")]


def test_an_edited_bundle_is_refused_before_any_agent_runs(bundle, tmp_path):
    import shutil

    copy = tmp_path / "bundle"
    shutil.copytree(bundle, copy)
    lines = (copy / "qa.jsonl").read_text().splitlines()
    rec = json.loads(lines[0])
    rec["answer"] = "edited"
    (copy / "qa.jsonl").write_text("\n".join([json.dumps(rec), *lines[1:]]) + "\n")
    r = run("eval", copy, "--agent", "oracle", "--trials", "1", "-o", tmp_path / "r")
    assert r.exit_code == 2 and "qa.jsonl" in r.output, r.output
    assert not (tmp_path / "r").exists()
