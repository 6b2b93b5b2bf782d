"""One agent-under-test's eval session, and which failures are the infrastructure's, not the agent's.

``agent_session`` makes the agent's private workspace (read-only table copies, nothing else),
resolves the agent to run there with the environment it is given, and on exit stops its worker
processes and removes the workspace. ``infrastructure_error`` tells a connection refused, an
authentication or quota failure from an agent's wrong answer, so such runs teach nothing.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from tools.harness.adapters import Agent, close_agent, resolve_agent
from tools.harness.context import AgentContext, Backend
from tools.harness.sandbox import DEFAULT_MAX_REPLY
from tools.harness.workspace import agent_workspace

_INFRA = re.compile(
    r"transport error|connection (?:refused|reset|aborted|error)|APIConnectionError|ConnectError|ConnectTimeout|"
    r"Name or service not known|nodename nor servname|Temporary failure in name resolution|No route to host|"
    r"Network is unreachable|AuthenticationError|PermissionDeniedError|RateLimitError|insufficient_quota|"
    r"\bquota\b|invalid api key|incorrect api key|\bHTTP (?:401|402|403|407|429|502|503|504)\b|"
    r"\bError code: (?:401|402|403|429|502|503|504)\b|cannot reach the LLM", re.I)


def infrastructure_error(error: str | None) -> bool:
    """True when an answer failed because a server could not be reached or refused the evaluator
    (connection, DNS, authentication, quota, overload), not because of the agent's reasoning."""
    return bool(error) and bool(_INFRA.search(error or ""))


@contextmanager
def agent_session(bundle: Path, spec: Any, *, backend: Backend = "duckdb", data_dir: Path | None = None,
                  dsn: str | None = None, timeout: float = 60.0, model: str = "default", api_key: str = "",
                  env: Mapping[str, str] | None = None, max_reply: int = DEFAULT_MAX_REPLY,
                  builtins: dict[str, Callable[[], Agent]] | None = None,
                  parent: Path | None = None) -> Iterator[tuple[Agent, bool, AgentContext]]:
    """(agent, self_timed, context) for ``spec`` in a fresh workspace; everything is torn down on exit."""
    ws = agent_workspace(bundle, backend, data_dir=data_dir, dsn=dsn, parent=parent)
    try:
        agent, self_timed = resolve_agent(spec, timeout=timeout, model=model, api_key=api_key, builtins=builtins,
                                          workdir=str(ws.root), env=env, max_reply=max_reply)
        try:
            yield agent, self_timed, ws.context
        finally:
            close_agent(agent)
    finally:
        ws.close()
