"""Agent adapters: every agent-under-test becomes ``call(question, context) -> Reply``.

Specs: ``python:module:function`` (called in a worker process of its own with the question and the
context dict; returns text or a dict with ``answer`` and optional ``cost``; a module-level Runnable
is invoked instead), ``http:URL`` (an OpenAI-compatible chat endpoint; the model is the agent, told
the schema in a system prompt), ``cmd:"..."`` (question on stdin, answer on stdout, context in
``CHRONOEVAL_*`` environment variables) and, in-process, any LangChain Runnable or callable (the
built-in reference agents, programmatic use). Agents-under-test run in their working directory
with the environment they are given (``sandbox.agent_environment``): no evaluator secret unless
passed on purpose. A total deadline and a reply cap hold for every answer. The ``KIND:`` prefixes
are the registry in ``tools.harness.agent_kinds`` (one entry and one module per adapter).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from tools.harness.agent_kinds import ADAPTER_KINDS, AdapterOptions
from tools.harness.context import AgentContext, HarnessError
from tools.harness.sandbox import DEFAULT_MAX_REPLY, agent_environment


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


def _describe(exc: BaseException) -> str:
    try:
        return f"{type(exc).__name__}: {exc}"
    except Exception:  # an exception whose __str__ raises
        return type(exc).__name__


def capped(reply: Reply, max_reply: int) -> Reply:
    """``reply``, or a runtime error when its output is larger than ``max_reply`` bytes."""
    out = reply.output
    if out is None or isinstance(out, int | float | bool):
        return reply
    try:
        size = len(out.encode("utf-8", "replace")) if isinstance(out, str) else len(json.dumps(out, default=str))
    except Exception as exc:
        return Reply(error=f"the answer cannot be read ({_describe(exc)})")
    if size > max_reply:
        return Reply(error=f"reply too large: more than {max_reply:,} bytes (--max-reply)")
    return reply


def call_with_timeout(agent: Agent, question: str, context: AgentContext, timeout: float) -> Reply:
    """Call ``agent`` in a daemon thread and give up after ``timeout`` seconds. A hung in-process
    agent cannot be killed; its thread is abandoned (daemon) and the call is a timeout error."""
    box: dict[str, Any] = {}

    def target() -> None:
        try:
            box["reply"] = _unwrap(agent(question, context))
        except BaseException as exc:  # the agent's own failure is a result, not our crash
            box["reply"] = Reply(error=_describe(exc))

    t = threading.Thread(target=target, daemon=True, name="chronoeval-agent")
    t.start()
    t.join(timeout)
    if t.is_alive() or "reply" not in box:
        return Reply(error=f"timeout: no answer after {timeout:g} s")
    return box["reply"]


def runnable_agent(runnable: Any) -> Agent:
    """A LangChain Runnable (duck-typed: ``invoke``) called with ``{"question", "context"}``."""
    if not hasattr(runnable, "invoke"):
        raise HarnessError(f"{runnable!r} has no invoke(); pass a LangChain Runnable")
    return lambda question, context: runnable.invoke({"question": question, "context": context.as_dict()})


def resolve_agent(spec: Any, *, timeout: float, model: str = "default", api_key: str = "",
                  builtins: dict[str, Callable[[], Agent]] | None = None, workdir: str | None = None,
                  env: Mapping[str, str] | None = None, max_reply: int = DEFAULT_MAX_REPLY) -> tuple[Agent, bool]:
    """The agent for a spec string (or a Runnable/callable object) and whether it enforces its own
    deadline (``python:``, ``cmd:`` and ``http:`` do; in-process callables run under
    :func:`call_with_timeout`). ``workdir`` and ``env`` are where and with what environment agent
    processes run (``env=None``: a minimal one, no evaluator variable); ``api_key`` is sent to an
    ``http:`` agent only when given."""
    builtins = builtins or {}
    if not isinstance(spec, str):
        return (runnable_agent(spec) if hasattr(spec, "invoke") else spec), False
    if spec in builtins:
        return builtins[spec](), False
    prefix, _, target = spec.partition(":")
    kind = ADAPTER_KINDS.get(prefix)
    if kind is not None and (target or not kind.needs_target):
        options = AdapterOptions(timeout=timeout, model=model, api_key=api_key, workdir=workdir,
                                 env=dict(env) if env is not None else agent_environment({}), max_reply=max_reply)
        return kind.build(target, options), True
    names = ", ".join([*builtins, *(k.usage for k in ADAPTER_KINDS.values())])
    from tools.suggest import did_you_mean

    raise HarnessError(f"unknown agent {spec!r}; {did_you_mean(spec, [*builtins, *(f'{p}:' for p in ADAPTER_KINDS)])}"
                       f"use one of {names}")


def invoke(agent: Agent, self_timed: bool, question: str, context: AgentContext, timeout: float,
           max_reply: int = DEFAULT_MAX_REPLY) -> Reply:
    """One call under the deadline policy of its adapter, its reply held to ``max_reply`` bytes."""
    if self_timed:
        try:
            reply = _unwrap(agent(question, context))
        except Exception as exc:
            reply = Reply(error=_describe(exc))
    else:
        reply = call_with_timeout(agent, question, context, timeout)
    return capped(reply, max_reply)


def close_agent(agent: Any) -> None:
    """Stop an agent's worker processes, if it has any."""
    close = getattr(agent, "close", None)
    if callable(close):
        close()
