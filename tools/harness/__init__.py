"""Running agents-under-test on a suite: adapters, data backends, the resumable trial runner,
reference agents (oracle, naive), metrics, reports and plots."""

from tools.harness.adapters import Agent, Reply, resolve_agent
from tools.harness.context import AgentContext, HarnessError, build_context
from tools.harness.metrics import pass_at_k, summarize
from tools.harness.reference import reference_agents, render_answer
from tools.harness.report import compare_runs, load_run, write_report
from tools.harness.runner import RunResult, load_responses, run_suite

__all__ = ["Agent", "AgentContext", "HarnessError", "Reply", "RunResult", "build_context", "compare_runs",
           "load_responses", "load_run", "pass_at_k", "reference_agents", "render_answer", "resolve_agent",
           "run_suite", "summarize", "write_report"]
