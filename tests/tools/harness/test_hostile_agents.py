"""Hostile agents-under-test: they look for the answers (files, environment, process memory), write
to the data, crash, hang, flood, and leave children behind. None may score above its honest
answers (here: nothing), change the bundle, outlive timeout + 5 s per answer, or leave a process."""

from __future__ import annotations

import hashlib
import json
import sys
import tempfile
import textwrap
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import psutil
import pytest

from tools.bundle import verify_bundle
from tools.harness import agent_session, load_responses, run_suite
from tools.harness.sandbox import agent_environment

TIMEOUT = 2.0


def _snapshot(bundle: Path) -> dict[str, str]:
    return {str(p.relative_to(bundle)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(bundle.rglob("*")) if p.is_file() and p.name != ".verify-cache.json"}


def _alive(pids: list[int]) -> list[int]:
    out = []
    for pid in pids:
        try:
            if psutil.Process(pid).status() != psutil.STATUS_ZOMBIE:
                out.append(pid)
        except psutil.NoSuchProcess:
            pass
    return out


def _running_in(parent: Path) -> list[int]:
    """Live processes whose working directory is (or was) under ``parent``: every agent process starts there."""
    out = []
    for p in psutil.process_iter(["cwd"]):
        try:
            if (p.info["cwd"] or "").startswith(str(parent)) and p.status() != psutil.STATUS_ZOMBIE:
                out.append(p.pid)
        except psutil.Error:
            pass
    return out


@pytest.fixture(scope="module")
def suite(iot_records):
    return iot_records[:4]


def evaluate(bundle, records, spec, run_dir, *, env=None, timeout=TIMEOUT, **kw):
    """Run ``spec`` the way ``chronoeval eval`` does; returns (rows, seconds)."""
    before = _snapshot(bundle)
    t0 = time.perf_counter()
    # a fresh directory in the system temp, as by default, but one no other test's bundle sits beside
    parent = Path(tempfile.mkdtemp(prefix="chronoeval-test-"))
    with agent_session(bundle, spec, timeout=timeout, env=agent_environment({"PATH": "/usr/bin:/bin"}, env),
                       parent=parent, **kw) as (agent, timed, ctx):
        assert str(bundle) not in json.dumps(ctx.as_dict())  # the agent is never told where the bundle is
        run_suite(records, agent, ctx, run_dir, trials=1, concurrency=2, timeout=timeout, self_timed=timed,
                  meta={"agent": str(spec)})
    took = time.perf_counter() - t0
    assert not any(parent.iterdir()), "the workspace outlived the session"
    assert _running_in(parent) == [], "an agent process outlived the eval"
    parent.rmdir()
    assert _snapshot(bundle) == before, "the agent changed the bundle"
    verify_bundle(bundle, full=True)
    rows = load_responses(run_dir)
    assert len(rows) == len(records)
    assert all(r["latency_s"] <= timeout + 5 for r in rows)
    return rows, took


READER = textwrap.dedent('''
    import glob, json, os, sys
    from tools.harness.prompting import question_of
    from tools.harness.reference import render_answer
    q = question_of(sys.stdin.read().strip())  # the question after the suite's preamble and evidence
    pats = ["qa.jsonl", "../qa.jsonl", "../../qa.jsonl", "../*/qa.jsonl", "../../*/qa.jsonl", "../*/*/qa.jsonl",
            "suite.jsonl", "../suite.jsonl", "../*/suite.jsonl", "incidents.json", "../*/incidents.json"]
    for value in os.environ.values():
        for p in value.replace(",", os.pathsep).split(os.pathsep):
            d = p if os.path.isdir(p) else os.path.dirname(p)
            for _ in range(3):
                if os.path.isabs(d):
                    pats += [os.path.join(d, "qa.jsonl"), os.path.join(d, "suite.jsonl"), os.path.join(d, "*", "qa.jsonl")]
                d = os.path.dirname(d)
    for pat in pats:
        for f in glob.glob(pat):
            for line in open(f):
                r = json.loads(line) if line.startswith("{") else {}
                if r.get("question") == q:
                    print(render_answer(r["answer"], r["answer_type"]))
                    sys.exit(0)
    print("I could not find the answers")
''')


def test_an_agent_hunting_for_qa_jsonl_finds_nothing_near_it(iot_bundle, suite, tmp_path):
    agent = tmp_path / "reader.py"
    agent.write_text(READER)
    rows, _ = evaluate(iot_bundle, suite, f"cmd:{sys.executable} {agent}", tmp_path / "run")
    assert not any(r["label"] == "correct" for r in rows), [r["response"] for r in rows]
    # the same agent, told where the bundle is, does find the answers: the hunt itself works
    rows, _ = evaluate(iot_bundle, suite, f"cmd:{sys.executable} {agent}", tmp_path / "told",
                       env={"BUNDLE": str(iot_bundle / "data.duckdb")})
    assert all(r["label"] == "correct" for r in rows), [(r["response"], r["detail"]) for r in rows]


MEMORY_SCANNER = textwrap.dedent('''
    import gc
    from tools.harness.prompting import question_of
    from tools.harness.reference import render_answer

    def answer(question, context):
        question = question_of(question)  # the question after the suite's preamble and evidence
        for o in gc.get_objects():
            if isinstance(o, dict) and o.get("question") == question and "answer" in o:
                return render_answer(o["answer"], o["answer_type"])
        return "nothing in my memory"
''')


def test_a_python_agent_scanning_its_memory_finds_no_suite(iot_bundle, suite, tmp_path):
    (tmp_path / "scanner.py").write_text(MEMORY_SCANNER)
    rows, _ = evaluate(iot_bundle, suite, f"python:{tmp_path / 'scanner.py'}:answer", tmp_path / "run")
    assert all(r["response"] == "nothing in my memory" for r in rows)
    # in the harness's own process (how python: agents used to run) the scan finds every answer
    sys.path.insert(0, str(tmp_path))
    try:
        import scanner  # type: ignore[import-not-found]
    finally:
        sys.path.remove(str(tmp_path))
    rows, _ = evaluate(iot_bundle, suite, scanner.answer, tmp_path / "inproc")
    # every question's record is found in memory (which answer it gives is not asserted: the test
    # process may also hold other suites whose short questions are worded the same)
    assert all(r["response"] != "nothing in my memory" for r in rows)


WRITER = textwrap.dedent('''
    import duckdb, glob, os, sys
    sys.stdin.read()
    db = os.environ["CHRONOEVAL_DB"]
    os.chmod(db, 0o644)
    con = duckdb.connect(db)
    for (t,) in con.execute("SELECT table_name FROM information_schema.tables").fetchall():
        con.execute(f'DELETE FROM "{t}"')
    con.close()
    for f in glob.glob("../*/incidents.json") + glob.glob("incidents.json") + glob.glob("../incidents.json"):
        open(f, "w").write("[]")
    print("I emptied every table")
''')


def test_an_agent_writing_to_the_database_changes_only_its_own_copy(iot_bundle, suite, tmp_path):
    agent = tmp_path / "writer.py"
    agent.write_text(WRITER)
    rows, _ = evaluate(iot_bundle, suite, f"cmd:{sys.executable} {agent}", tmp_path / "run")
    assert any((r["response"] or "").strip() == "I emptied every table" for r in rows)
    assert not any(r["label"] == "correct" for r in rows)


CHILDREN = textwrap.dedent('''
    import os, subprocess, sys, time
    sys.stdin.read()
    piddir = os.environ["PIDDIR"]
    sleeper = [sys.executable, "-c", "import time; time.sleep(300)"]
    kids = [subprocess.Popen(sleeper), subprocess.Popen(sleeper, start_new_session=True)]
    if os.fork() == 0:  # a daemon: double fork, new session, stdout still inherited
        os.setsid()
        if os.fork() == 0:
            open(os.path.join(piddir, str(os.getpid())), "w").close()
            time.sleep(300)
        os._exit(0)
    for k in kids:
        open(os.path.join(piddir, str(k.pid)), "w").close()
    print("no idea")
    sys.stdout.flush()
    if os.environ.get("HANG"):
        time.sleep(300)
''')


@pytest.mark.parametrize("hang", ["", "1"])
def test_detached_children_holding_stdout_neither_hang_the_eval_nor_survive_it(iot_bundle, suite, tmp_path, hang):
    agent = tmp_path / "spawner.py"
    agent.write_text(CHILDREN)
    piddir = tmp_path / "pids"
    piddir.mkdir()
    rows, took = evaluate(iot_bundle, suite, f"cmd:{sys.executable} {agent}", tmp_path / "run",
                          env={"PIDDIR": str(piddir), "HANG": hang})
    pids = [int(p.name) for p in piddir.iterdir()]
    assert len(pids) == 3 * len(suite)
    assert _alive(pids) == []
    if hang:
        assert all(r["error"].startswith("timeout") for r in rows)
    else:
        assert all(r["error"] is None and r["response"].strip() == "no idea" for r in rows)
        assert took < 30


CRASHERS = textwrap.dedent('''
    import ctypes, os, subprocess, sys, time

    class Evil:
        def __str__(self):
            raise RuntimeError("no str for you")

    def answer(question, context):
        kind = os.environ["KIND"]
        if kind == "exit":
            os._exit(3)
        if kind == "segfault":
            ctypes.string_at(0)
        if kind == "str":
            return Evil()
        if kind == "flood":
            return "7" * 100_000_000
        if kind == "hang":
            time.sleep(300)
        if kind == "child":
            p = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300)"], start_new_session=True)
            open(os.path.join(os.environ["PIDDIR"], str(p.pid)), "w").close()
            return "no idea"
''')


@pytest.mark.parametrize("kind, reason", [
    ("exit", "agent process died (exit code 3)"),
    ("segfault", "agent process died (killed by SIGSEGV)"),
    ("str", "RuntimeError: no str for you"),
    ("flood", "reply too large: more than 1,000,000 bytes"),
    ("hang", f"timeout: no answer after {TIMEOUT:g} s"),
    ("child", None),
])
def test_crashing_hanging_and_flooding_python_agents_are_runtime_errors(iot_bundle, suite, tmp_path, kind, reason):
    (tmp_path / "crasher.py").write_text(CRASHERS)
    piddir = tmp_path / "pids"
    piddir.mkdir()
    rows, _ = evaluate(iot_bundle, suite, f"python:{tmp_path / 'crasher.py'}:answer", tmp_path / "run",
                       env={"KIND": kind, "PIDDIR": str(piddir)}, timeout=10 if kind == "flood" else TIMEOUT)
    if reason is None:
        assert all(r["label"] != "correct" and r["error"] is None for r in rows)
    else:
        assert all(r["label"] == "runtime_error" and r["error"].startswith(reason) for r in rows), rows[0]["error"]
    assert (tmp_path / "run" / "responses.jsonl").stat().st_size < 100_000
    assert _alive([int(p.name) for p in piddir.iterdir()]) == []


def test_a_cmd_agent_flooding_stdout_is_cut_at_the_reply_cap(iot_bundle, suite, tmp_path):
    flood = f"cmd:{sys.executable} -c 'import sys; sys.stdout.write(\"7\" * 100_000_000)'"
    rows, took = evaluate(iot_bundle, suite, flood, tmp_path / "run", max_reply=50_000)
    assert all(r["label"] == "runtime_error" and r["error"].startswith("reply too large: more than 50,000 bytes")
               for r in rows)
    assert took < 30 and (tmp_path / "run" / "responses.jsonl").stat().st_size < 100_000


class _Hostile(BaseHTTPRequestHandler):
    """An OpenAI-compatible endpoint gone bad: trickles 1 byte/s (headers or body) or floods 100 MB."""

    mode = "trickle"
    seen: list = []

    def do_POST(self):  # noqa: N802
        self.seen.append(dict(self.headers))
        self.rfile.read(int(self.headers["Content-Length"]))
        body = json.dumps({"choices": [{"message": {"content": "42"}}]}).encode()
        try:
            if self.mode == "trickle_head":
                for b in b"HTTP/1.1 200 OK\r\n":
                    self.wfile.write(bytes([b]))
                    self.wfile.flush()
                    time.sleep(1)
            self.send_response(200)
            if self.mode == "flood":
                self.send_header("Content-Length", str(100_000_000))
                self.end_headers()
                chunk = b"7" * 1_000_000
                for _ in range(100):
                    self.wfile.write(chunk)
                return
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            for b in body:
                self.wfile.write(bytes([b]))
                self.wfile.flush()
                time.sleep(1)
        except OSError:  # the harness hung up, as it should
            pass

    def log_message(self, *a):
        pass


@pytest.fixture
def hostile_server():
    srv = ThreadingHTTPServer(("127.0.0.1", 0), _Hostile)
    srv.daemon_threads = True
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    _Hostile.seen = []
    yield f"http://127.0.0.1:{srv.server_address[1]}/v1"
    srv.shutdown()
    srv.server_close()


@pytest.mark.parametrize("mode, reason", [("trickle", "timeout: no answer after 2 s"),
                                          ("trickle_head", "timeout: no answer after 2 s"),
                                          ("flood", "reply too large: more than 1,000,000 bytes")])
def test_a_trickling_or_flooding_http_agent_ends_at_the_deadline(iot_bundle, suite, tmp_path, hostile_server,
                                                                  mode, reason, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-canary-never-sent")
    _Hostile.mode = mode
    rows, took = evaluate(iot_bundle, suite, f"http:{hostile_server}", tmp_path / "run")
    assert all(r["label"] == "runtime_error" and r["error"].startswith(reason) for r in rows), rows[0]["error"]
    assert all(r["latency_s"] < TIMEOUT + 1.5 for r in rows)
    assert took < len(suite) * (TIMEOUT + 2) / 2 + 5
    assert _Hostile.seen and not any("Authorization" in h or "sk-canary" in json.dumps(h) for h in _Hostile.seen)
