"""Adapters: python:, cmd:, http: (a scripted OpenAI-compatible server on 127.0.0.1) and Runnables."""

from __future__ import annotations

import json
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from tools.harness import build_context, resolve_agent
from tools.harness.adapters import invoke
from tools.harness.context import HarnessError


@pytest.fixture(scope="module")
def ctx(iot_bundle):
    return build_context(iot_bundle)


def call(spec, ctx, question="How many?", timeout=5.0, **kw):
    agent, timed = resolve_agent(spec, timeout=timeout, **kw)
    return invoke(agent, timed, question, ctx, timeout)


def test_python_agent_gets_the_question_and_the_context(ctx, tmp_path):
    (tmp_path / "my_agent.py").write_text(
        "def answer(question, context):\n    return {'answer': question.upper(), 'cost': 0.25, 'tables': context['tables']}\n")
    reply = call(f"python:{tmp_path / 'my_agent.py'}:answer", ctx)
    assert reply.output["answer"] == "HOW MANY?" and reply.cost == 0.25
    assert reply.output["tables"] == ctx.tables and "readings" in ctx.tables


def test_unknown_agent_specs_are_user_errors(ctx):
    with pytest.raises(HarnessError, match="unknown agent"):
        resolve_agent("ftp:x", timeout=1)
    with pytest.raises(HarnessError, match="cannot import"):
        resolve_agent("python:no_such_module_xyz:f", timeout=1)


def test_cmd_agent_reads_stdin_and_sees_the_database_in_its_environment(ctx, tmp_path):
    (tmp_path / "agent.py").write_text("import os,sys; print(sys.stdin.read().strip() + ' @ ' + os.environ['CHRONOEVAL_DB'])")
    script = tmp_path / "agent.py"
    reply = call(f'cmd:"{sys.executable} {script}"', ctx)
    assert reply.error is None and reply.output.strip() == f"How many? @ {ctx.db_path}"


def test_cmd_agent_is_killed_at_the_timeout_and_a_failure_carries_stderr(ctx):
    t0 = time.perf_counter()
    reply = call(f"cmd:{sys.executable} -c 'import time; time.sleep(30)'", ctx, timeout=0.5)
    assert reply.error.startswith("timeout") and time.perf_counter() - t0 < 5
    reply = call(f"cmd:{sys.executable} -c 'import sys; sys.exit(\"kaput\")'", ctx)
    assert reply.error.startswith("exit code 1") and "kaput" in reply.error


def test_cmd_agent_printing_binary_noise_is_graded_a_runtime_error(ctx, tmp_path):
    from tools.grade import grade_response

    script = tmp_path / "noise.py"
    script.write_text("import os, sys\nsys.stdout.buffer.write(os.urandom(64) + bytes(8))\n")
    reply = call(f"cmd:{sys.executable} {script}", ctx)
    assert reply.error is None
    g = grade_response({"answer_type": "integer", "answer": 3, "question": "How many?"}, reply.output)
    assert g.label == "runtime_error" and g.detail.startswith("garbage")


class _Scripted(BaseHTTPRequestHandler):
    """OpenAI-compatible /v1/chat/completions: fails the first N calls with 503, then answers."""

    script: dict = {}

    def do_POST(self):  # noqa: N802
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        self.script["requests"].append(body)
        if self.script["fail"] > 0:
            self.script["fail"] -= 1
            self.send_response(503)
            self.end_headers()
            return
        out = json.dumps({"choices": [{"message": {"role": "assistant", "content": "63 sessions"}}],
                          "usage": {"total_tokens": 42}}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(out)))
        self.end_headers()
        self.wfile.write(out)

    def log_message(self, *a):
        pass


@pytest.fixture
def server():
    _Scripted.script = {"fail": 0, "requests": []}
    srv = ThreadingHTTPServer(("127.0.0.1", 0), _Scripted)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{srv.server_address[1]}/v1", _Scripted.script
    srv.shutdown()


def test_http_agent_sends_the_schema_and_retries_transport_errors(ctx, server):
    url, script = server
    script["fail"] = 2
    reply = call(f"http:{url}", ctx, model="m1")
    assert reply.output == "63 sessions" and reply.tokens == 42 and len(script["requests"]) == 3
    req = script["requests"][-1]
    assert req["model"] == "m1" and "TABLE readings" in req["messages"][0]["content"]
    assert req["messages"][1] == {"role": "user", "content": "How many?"}


def test_http_agent_gives_up_after_the_retries_and_on_a_closed_port(ctx, server):
    url, script = server
    script["fail"] = 10
    assert "HTTP 503" in call(f"http:{url}", ctx).error and len(script["requests"]) == 3
    assert "transport error" in call("http:http://127.0.0.1:9/v1", ctx).error


def test_a_runnable_is_invoked_with_question_and_context(ctx):
    class Msg:
        content = "Yes"

    class Chain:
        def invoke(self, inp):
            assert inp["context"]["backend"] == "duckdb"
            return {"messages": [Msg()]}

    assert call(Chain(), ctx).output == "Yes"


def test_a_module_level_runnable_is_a_python_agent(ctx, tmp_path):
    (tmp_path / "chain_agent.py").write_text(
        "from langchain_core.runnables import RunnableLambda\n"
        "chain = RunnableLambda(lambda inp: f\"{len(inp['context']['tables'])} tables for: {inp['question']}\")\n")
    reply = call(f"python:{tmp_path / 'chain_agent.py'}:chain", ctx)
    assert reply.error is None and reply.output == f"{len(ctx.tables)} tables for: How many?"


def test_python_agents_run_under_the_timeout(ctx):
    reply = call(lambda q, c: time.sleep(5), ctx, timeout=0.2)
    assert reply.error.startswith("timeout")


def test_parquet_backend_points_at_the_bundle_files_and_postgres_needs_a_dsn(iot_bundle):
    c = build_context(iot_bundle, "parquet")
    assert c.data_dir.endswith("data") and "Parquet files" in c.schema_text()
    with pytest.raises(HarnessError, match="--dsn"):
        build_context(iot_bundle, "postgres")
    with pytest.raises(HarnessError, match="no .csv tables"):
        build_context(iot_bundle, "csv")


def test_agents_run_in_their_working_directory_and_relative_commands_still_resolve(ctx, tmp_path, monkeypatch):
    work = tmp_path / "work"
    work.mkdir()
    project = tmp_path / "project"
    project.mkdir()
    (project / "agent.py").write_text("import os, sys\nsys.stdin.read()\nprint(os.getcwd())\n")
    (project / "pyagent.py").write_text("import os\ndef answer(q, c):\n    return os.getcwd() + ' ' + c['workdir']\n")
    monkeypatch.chdir(project)
    agent, timed = resolve_agent(f"cmd:{sys.executable} agent.py", timeout=10, workdir=str(work))
    assert invoke(agent, timed, "q", ctx, 10).output.strip() == str(work)
    agent, timed = resolve_agent("python:pyagent.py:answer", timeout=10, workdir=str(work))
    try:
        assert invoke(agent, timed, "q", ctx.model_copy(update={"workdir": str(work)}), 10).output == f"{work} {work}"
    finally:
        agent.close()
