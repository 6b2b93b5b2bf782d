"""Running agents-under-test on a suite: adapters, data backends, the agent's private workspace and
process sandbox, the resumable trial runner, reference agents (oracle, naive), metrics, reports
and plots.

Names are imported lazily (PEP 562): the CLI imports ``tools.harness.context`` at start-up and
must not pay for matplotlib or the generator."""

from __future__ import annotations

import importlib
from typing import Any

_WHERE = {
    "Agent": "adapters", "Reply": "adapters", "resolve_agent": "adapters",
    "AgentContext": "context", "HarnessError": "context", "build_context": "context",
    "pass_at_k": "metrics", "summarize": "metrics",
    "reference_agents": "reference", "render_answer": "reference",
    "compare_runs": "report", "load_run": "report", "write_report": "report",
    "RunResult": "runner", "load_responses": "runner", "run_suite": "runner",
    "agent_environment": "sandbox", "agent_session": "session", "infrastructure_error": "session",
    "agent_workspace": "workspace",
}

__all__ = sorted(_WHERE)


def __getattr__(name: str) -> Any:
    if name not in _WHERE:
        raise AttributeError(f"module 'tools.harness' has no attribute {name!r}")
    return getattr(importlib.import_module(f"tools.harness.{_WHERE[name]}"), name)
