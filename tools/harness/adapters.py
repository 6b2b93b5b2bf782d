"""Agent adapters: every agent-under-test becomes ``call(question, context) -> Reply``.

Specs: ``python:module:function`` (called with the question and the context dict; returns text or a
dict with ``answer`` and optional ``cost``; a module-level Runnable is invoked instead), ``http:URL`` (an OpenAI-compatible chat endpoint; the
model is the agent, told the schema in a system prompt), ``cmd:"..."`` (question on stdin, answer
on stdout, context in ``CHRONOEVAL_*`` environment variables) and any LangChain Runnable (an object
with ``invoke``). Per-call timeout everywhere; only transport errors of ``http:`` are retried.
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import os
import signal
import subprocess
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from tools.harness.context import AgentContext, HarnessError


@dataclass
class Reply:
    """One agent answer: the raw output (text or dict), an error string, cost and token usage."""

    output: Any = None
    error: str | None = None
    cost: float | None = None
    tokens: int | None = None


Agent = Callable[[str, AgentContext], Any]


def _unwrap(out: Any) -> Reply:
    if isinstance(out, Reply):
        return out
    if hasattr(out, "content") and not isinstance(out, dict | str):  # a LangChain message
        out = out.content
    if isinstance(out, dict):
        if "messages" in out and out["messages"] and hasattr(out["messages"][-1], "content"):
            return Reply(output=out["messages"][-1].content)
        return Reply(output=out, cost=_num(out.get("cost")), tokens=_num(out.get("tokens")))
    if out is None or isinstance(out, str | int | float | bool | list):
        return Reply(output=out)
    return Reply(output=str(out))


def _num(v: Any) -> Any:
    return v if isinstance(v, int | float) and not isinstance(v, bool) else None


def call_with_timeout(agent: Agent, question: str, context: AgentContext, timeout: float) -> Reply:
    """Call ``agent`` in a daemon thread and give up after ``timeout`` seconds. A hung Python agent
    cannot be killed; its thread is abandoned (daemon) and the call is a timeout error."""
    box: dict[str, Any] = {}

    def target() -> None:
        try:
            box["out"] = agent(question, context)
        except BaseException as exc:  # the agent's own failure is a result, not our crash
            box["exc"] = exc

    t = threading.Thread(target=target, daemon=True, name="chronoeval-agent")
    t.start()
    t.join(timeout)
    if t.is_alive():
        return Reply(error=f"timeout: no answer after {timeout:g} s")
    if "exc" in box:
        exc = box["exc"]
        return Reply(error=f"{type(exc).__name__}: {exc}")
    return _unwrap(box.get("out"))


def python_agent(spec: str) -> Agent:
    """Load ``module:function`` (``module`` may be a dotted name or a path to a .py file)."""
    mod_name, _, fn_name = spec.rpartition(":")
    if not mod_name or not fn_name:
        raise HarnessError(f"python agent {spec!r} must look like python:package.module:function")
    try:
        if mod_name.endswith(".py"):
            s = importlib.util.spec_from_file_location(os.path.basename(mod_name)[:-3], mod_name)
            if s is None or s.loader is None:
                raise ImportError(f"cannot load {mod_name}")
            module = importlib.util.module_from_spec(s)
            s.loader.exec_module(module)
        else:
            module = importlib.import_module(mod_name)
    except (ImportError, OSError, SyntaxError) as exc:
        raise HarnessError(f"cannot import agent module {mod_name!r}: {exc}; check the name and PYTHONPATH") from None
    fn = getattr(module, fn_name, None)
    if hasattr(fn, "invoke") and not isinstance(fn, type):  # a LangChain Runnable (chain, compiled graph)
        return runnable_agent(fn)
    if not callable(fn):
        raise HarnessError(f"{mod_name} has no callable {fn_name!r}")
    return lambda question, context: fn(question, context.as_dict())


def runnable_agent(runnable: Any) -> Agent:
    """A LangChain Runnable (duck-typed: ``invoke``) called with ``{"question", "context"}``."""
    if not hasattr(runnable, "invoke"):
        raise HarnessError(f"{runnable!r} has no invoke(); pass a LangChain Runnable")
    return lambda question, context: runnable.invoke({"question": question, "context": context.as_dict()})


class CommandAgent:
    """A shell command: the question on stdin, the answer on stdout; killed (its whole process group)
    at the timeout; a non-zero exit is an error carrying the end of stderr."""

    def __init__(self, command: str, timeout: float):
        if not command.strip():
            raise HarnessError('cmd: agent needs a command, e.g. cmd:"python my_agent.py"')
        command = command.strip()
        if len(command) > 1 and command[0] == command[-1] and command[0] in "'\"":
            command = command[1:-1]  # cmd:"..." written with its quotes
        self.command = command
        self.timeout = timeout

    def __call__(self, question: str, context: AgentContext) -> Reply:
        env = dict(os.environ)
        env.update({"CHRONOEVAL_BACKEND": context.backend, "CHRONOEVAL_DB": context.db_path or "",
                    "CHRONOEVAL_DATA_DIR": context.data_dir or "", "CHRONOEVAL_DSN": context.dsn or "",
                    "CHRONOEVAL_TABLES": ",".join(context.tables),
                    "CHRONOEVAL_SCHEMA": json.dumps(context.as_dict()["schema"])})
        proc = subprocess.Popen(self.command, shell=True, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, env=env, text=True, encoding="utf-8",
                                errors="replace", start_new_session=True)
        try:
            out, err = proc.communicate(question, timeout=self.timeout)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
            return Reply(error=f"timeout: no answer after {self.timeout:g} s")
        if proc.returncode != 0:
            return Reply(error=f"exit code {proc.returncode}: {err.strip()[-300:]}")
        return Reply(output=out)


class HttpAgent:
    """An OpenAI-compatible ``/chat/completions`` endpoint; the model answers from the schema alone
    (it gets no tools). Connection errors, 429 and 5xx are retried ``retries`` times with backoff."""

    def __init__(self, url: str, model: str, timeout: float, retries: int = 2, api_key: str = ""):
        base = url.rstrip("/")
        self.url = base if base.endswith("/chat/completions") else base + "/chat/completions"
        self.model, self.timeout, self.retries, self.api_key = model, timeout, retries, api_key

    def __call__(self, question: str, context: AgentContext) -> Reply:
        body = {"model": self.model, "messages": [
            {"role": "system", "content": "You answer questions about the data below. Reply with the answer "
                                          "and nothing else.\n\n" + context.schema_text()},
            {"role": "user", "content": question}]}
        data = json.dumps(body).encode()
        headers = {"Content-Type": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        last = ""
        for attempt in range(self.retries + 1):
            if attempt:
                time.sleep(min(0.2 * 2**attempt, 5.0))
            req = urllib.request.Request(self.url, data=data, headers=headers, method="POST")
            try:
                with urllib.request.urlopen(req, timeout=self.timeout) as resp:
                    payload = json.loads(resp.read().decode())
            except urllib.error.HTTPError as exc:
                last = f"HTTP {exc.code} from {self.url}"
                if exc.code == 429 or exc.code >= 500:
                    continue
                return Reply(error=last)
            except TimeoutError:
                return Reply(error=f"timeout: no answer after {self.timeout:g} s")
            except (urllib.error.URLError, ConnectionError, OSError) as exc:
                last = f"transport error talking to {self.url}: {getattr(exc, 'reason', exc)}"
                continue
            except ValueError:
                return Reply(error=f"{self.url} returned a body that is not JSON")
            try:
                text = payload["choices"][0]["message"]["content"]
            except (KeyError, IndexError, TypeError):
                return Reply(error=f"{self.url} returned no choices[0].message.content")
            usage = payload.get("usage") or {}
            return Reply(output=text, tokens=usage.get("total_tokens"))
        return Reply(error=f"{last} (after {self.retries + 1} attempts)")


def resolve_agent(spec: Any, *, timeout: float, model: str = "default", api_key: str = "",
                  builtins: dict[str, Callable[[], Agent]] | None = None) -> tuple[Agent, bool]:
    """The agent for a spec string (or a Runnable/callable object) and whether it enforces its own
    timeout (``cmd:`` and ``http:`` do; Python callables run under :func:`call_with_timeout`)."""
    builtins = builtins or {}
    if not isinstance(spec, str):
        return (runnable_agent(spec) if hasattr(spec, "invoke") else spec), False
    if spec in builtins:
        return builtins[spec](), False
    kind, _, rest = spec.partition(":")
    if kind == "python":
        return python_agent(rest), False
    if kind == "cmd":
        return CommandAgent(rest, timeout), True
    if kind == "http" and rest:
        return HttpAgent(rest, model, timeout, api_key=api_key), True
    names = ", ".join([*builtins, "python:module:function", "http:URL", 'cmd:"..."'])
    raise HarnessError(f"unknown agent {spec!r}; use one of {names}")


def invoke(agent: Agent, self_timed: bool, question: str, context: AgentContext, timeout: float) -> Reply:
    """One call under the timeout policy of its adapter."""
    if self_timed:
        try:
            return _unwrap(agent(question, context))
        except Exception as exc:
            return Reply(error=f"{type(exc).__name__}: {exc}")
    return call_with_timeout(agent, question, context, timeout)


