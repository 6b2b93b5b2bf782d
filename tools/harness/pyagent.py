"""``python:module:function`` agents in processes of their own (``tools/harness/worker.py``).

The harness keeps a small pool of worker processes (one per call in flight, started on demand,
reused while they behave). A worker that crashes (``os._exit``, a segfault), overruns the deadline
or sends more than the reply cap is killed with everything it started, and its answer is a
runtime error with the reason; the next call gets a fresh worker. Workers start in the agent's
working directory with the scrubbed environment, and never see the suite: the harness's memory
(the suite records) is not theirs to scan.
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from tools.harness.agent_kinds import AdapterOptions
from tools.harness.context import AgentContext, HarnessError
from tools.harness.sandbox import DEFAULT_MAX_REPLY, close_pipes, describe_exit, exchange, kill_tree, spawn

WORKER = Path(__file__).with_name("worker.py")
LOAD_TIMEOUT_S = 30.0


@dataclass
class _Worker:
    proc: subprocess.Popen
    token: str
    since: float

    def stop(self) -> None:
        kill_tree(self.proc, self.token, since=self.since)
        close_pipes(self.proc)


def import_roots(module: str, search: list[str], cwd: Path) -> list[str]:
    """The one directory a worker needs on its import path for ``module`` (a dotted name found on
    ``search``, or a .py file), so the agent sees nothing else of the evaluator's paths."""
    if module.endswith(".py"):
        return [str((cwd / module).resolve().parent)]
    top = module.split(".")[0]
    for entry in search:
        d = (cwd / entry).resolve() if entry else cwd.resolve()
        if (d / top).is_dir() or (d / f"{top}.py").is_file() or any(d.glob(f"{top}.*.so")):
            return [str(d)]
    return []


class PythonProcessAgent:
    """Calls ``module:function(question, context_dict)`` in a worker process under a total deadline."""

    def __init__(self, spec: str, *, timeout: float, cwd: str | None, env: Mapping[str, str],
                 max_reply: int = DEFAULT_MAX_REPLY, search_path: list[str] | None = None):
        mod_name, _, fn_name = spec.rpartition(":")
        if not mod_name or not fn_name:
            raise HarnessError(f"python agent {spec!r} must look like python:package.module:function")
        here = Path.cwd()
        if mod_name.endswith(".py"):
            mod_name = str((here / mod_name).resolve())
        self.target = f"{mod_name}:{fn_name}"
        self.extra_path = import_roots(mod_name, list(sys.path if search_path is None else search_path), here)
        self.timeout, self.cwd, self.env, self.max_reply = timeout, cwd, dict(env), max_reply
        self.idle: list[_Worker] = []
        self.lock = threading.Lock()
        self.closed = False
        first, error = self._start()
        if first is None:
            raise HarnessError(f"cannot import agent module {mod_name!r}: {error}; check the name and PYTHONPATH")
        self.idle.append(first)

    def _start(self) -> tuple[_Worker | None, str]:
        since = time.time()
        proc, token = spawn([sys.executable, str(WORKER), self.target, json.dumps(self.extra_path)],
                            cwd=self.cwd, env=self.env)
        w = _Worker(proc, token, since)
        limit = max(LOAD_TIMEOUT_S, self.timeout)
        res = exchange(proc, send=b"", deadline=time.monotonic() + limit, timeout=limit, max_reply=self.max_reply,
                       until_line=True, close_stdin=False)
        msg = _parse(res.out)
        if msg and msg.get("ready"):
            return w, ""
        w.stop()
        if msg and "load_error" in msg:
            return None, str(msg["load_error"])
        if res.error:
            return None, f"the agent module did not load within {limit:g} s"
        return None, f"the worker process ended ({describe_exit(proc.poll())}): {_tail(res.err)}"

    def _take(self) -> tuple[_Worker | None, str]:
        with self.lock:
            if self.idle:
                return self.idle.pop(), ""
        return self._start()

    def __call__(self, question: str, context: AgentContext):
        from tools.harness.adapters import Reply

        worker, error = self._take()
        if worker is None:
            return Reply(error=f"agent process failed to start: {error}")
        request = json.dumps({"question": question, "context": context.as_dict()}) + "\n"
        res = exchange(worker.proc, send=request.encode(), deadline=time.monotonic() + self.timeout,
                       timeout=self.timeout, max_reply=self.max_reply + 1024, until_line=True, close_stdin=False)
        msg = _parse(res.out) if res.error is None else None
        if msg is None:
            code = worker.proc.poll()
            worker.stop()
            if res.error:
                too_large = res.error.startswith("reply too large")
                return Reply(error=f"reply too large: more than {self.max_reply:,} bytes (--max-reply)"
                             if too_large else res.error)
            if code is not None:
                return Reply(error=f"agent process died ({describe_exit(code)}) {_tail(res.err)}".strip())
            return Reply(error="agent process sent a reply that is not JSON")
        kill_tree(worker.proc, worker.token, since=worker.since, keep_leader=True)  # helpers live one answer
        with self.lock:
            if self.closed:
                worker.stop()
            else:
                self.idle.append(worker)
        if "error" in msg:
            return Reply(error=str(msg["error"]))
        return Reply(output=msg.get("output"), cost=msg.get("cost"), tokens=msg.get("tokens"))

    def close(self) -> None:
        """Stop every worker (and whatever they started)."""
        with self.lock:
            self.closed = True
            idle, self.idle = self.idle, []
        for w in idle:
            w.stop()


def _parse(out: bytes) -> dict | None:
    line = out.split(b"\n", 1)[0]
    try:
        msg = json.loads(line)
    except ValueError:
        return None
    return msg if isinstance(msg, dict) else None


def _tail(err: bytes) -> str:
    text = err.decode("utf-8", "replace").strip()
    return text[-300:]


def python_adapter(target: str, options: AdapterOptions) -> PythonProcessAgent:
    """The ``python:`` adapter's factory (see ``tools.harness.agent_kinds``)."""
    return PythonProcessAgent(target, timeout=options.timeout, cwd=options.workdir, env=options.env,
                              max_reply=options.max_reply)
