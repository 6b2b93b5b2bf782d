"""The agent adapter registry: every ``KIND:TARGET`` agent spec the harness understands.

One entry per adapter: its prefix, how it is written in messages and in the CLI's help, what it
is, and where its factory lives (``module:function``, imported only when the adapter is used, so
listing the adapters stays cheap). A factory takes the target (what follows ``KIND:``) and the
:class:`AdapterOptions` and returns the agent; every adapter here enforces its own deadline.
The CLI's ``--agent`` help and did-you-mean list are generated from :data:`ADAPTER_KINDS`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from importlib import import_module
from typing import Any


@dataclass(frozen=True)
class AdapterOptions:
    """What every adapter factory may use: the per-answer deadline, the model name and key for an
    endpoint, the working directory and environment of agent processes, and the reply cap."""

    timeout: float
    model: str
    api_key: str
    workdir: str | None
    env: Mapping[str, str]
    max_reply: int


@dataclass(frozen=True)
class AdapterKind:
    """One adapter: ``prefix`` (``python``), ``usage`` in error messages (``python:module:function``),
    ``help`` in the CLI's option help, ``description``, ``factory`` (``module:function``) and whether
    the target may be empty (an empty one makes the spec unknown)."""

    prefix: str
    usage: str
    help: str
    description: str
    factory: str
    needs_target: bool = False

    def build(self, target: str, options: AdapterOptions) -> Any:
        """The agent for ``KIND:target``."""
        module, _, name = self.factory.partition(":")
        return getattr(import_module(module), name)(target, options)


ADAPTER_KINDS: dict[str, AdapterKind] = {k.prefix: k for k in (
    AdapterKind("python", "python:module:function", "python:module:function",
                "a Python function, called in a worker process of its own", "tools.harness.pyagent:python_adapter"),
    AdapterKind("http", "http:URL", "http:URL (OpenAI-compatible)",
                "an OpenAI-compatible chat endpoint; the model is the agent", "tools.harness.http_agent:http_adapter",
                needs_target=True),
    AdapterKind("cmd", 'cmd:"..."', 'cmd:"command"',
                "a shell command: the question on stdin, the answer on stdout", "tools.harness.cmd_agent:cmd_adapter"),
)}


def agent_help(builtins: list[str] | tuple[str, ...]) -> str:
    """The ``--agent`` help: the built-in agents' names, then every adapter's spec form."""
    return " | ".join([*builtins, *(k.help for k in ADAPTER_KINDS.values())])
