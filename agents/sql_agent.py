"""`llm-sql`: a LangChain tool-calling SQL agent (``langchain.agents.create_agent``) — the realistic
baseline agent-under-test for users who have an LLM.

It gets the schema in its system prompt and one tool, ``run_sql``, that runs a read-only query on
the data where the harness put it, through the backend's ``connect`` (``tools/harness/backends``):
the DuckDB file (default), DuckDB views over Parquet/CSV files, or PostgreSQL. Tool errors go back to
the model as text so it can fix its query.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from langchain.agents import create_agent

from tools.harness.backends import BackendKind, backends
from tools.harness.context import HarnessError

SYSTEM_PROMPT = """You are a data analyst answering questions about time-series telemetry with SQL.
{schema}

Use the run_sql tool to query the data ({dialect} SQL; timestamps are UTC). Check your query's
result before answering. Read the question's exact definitions (window bounds, episodes, rounding).
Finish with one line: "Answer: <value with its unit>" (for lists and rankings, the items in order
with their values)."""

MAX_ROWS = 50


class _Connections:
    """One connection per thread on the agent-under-test's data source, opened by its backend
    (``BackendKind.connect`` in ``tools/harness/backends``)."""

    def __init__(self, context: Any):
        self.context = context
        self.connect = sql_backend(context.backend).connect
        self.local = threading.local()

    def query(self, sql: str) -> tuple[list[str], list[tuple]]:
        run = getattr(self.local, "query", None)
        if run is None:
            run = self.local.query = self.connect(self.context)
        return run(sql, MAX_ROWS + 1)


def sql_backend(name: str) -> BackendKind:
    """The backend ``name`` if the agent can query it with SQL; a HarnessError naming the ones it can."""
    kind = backends().get(name)
    if kind is None or kind.connect is None:
        usable = [k.name for k in backends().values() if k.connect is not None]
        raise HarnessError(f"llm-sql cannot query backend {name!r}; use {', '.join(usable)}")
    return kind


def format_rows(cols: list[str], rows: list[tuple]) -> str:
    """A compact text table of a query result for the model (at most MAX_ROWS rows)."""
    if not cols:
        return "(no result set)"
    lines = [" | ".join(cols)]
    lines += [" | ".join("NULL" if v is None else str(v) for v in r) for r in rows[:MAX_ROWS]]
    if len(rows) > MAX_ROWS:
        lines.append(f"... more than {MAX_ROWS} rows; aggregate or add LIMIT")
    return "\n".join(lines)


def _run_sql_tool(conns: _Connections) -> Callable[[str], str]:
    def run_sql(query: str) -> str:
        """Run one read-only SQL query on the telemetry tables and return the result rows."""
        try:
            cols, rows = conns.query(query)
        except Exception as exc:  # the model sees the error and can repair its query
            return f"SQL error: {type(exc).__name__}: {str(exc).strip()[:500]}"
        return format_rows(cols, rows)
    return run_sql


def build_sql_agent(model: Any, *, recursion_limit: int = 16) -> Callable[[str, Any], dict]:
    """An agent-under-test ``(question, context) -> {"answer", "tokens"}`` driven by ``model`` (a
    LangChain chat model supporting ``bind_tools``); one compiled agent per data source."""
    cache: dict[tuple, Any] = {}
    lock = threading.Lock()

    def compiled(context: Any):
        key = (context.backend, context.db_path, context.data_dir, context.dsn)
        with lock:
            if key not in cache:
                dialect = sql_backend(context.backend).sql_dialect
                prompt = SYSTEM_PROMPT.format(schema=context.schema_text(), dialect=dialect)
                cache[key] = create_agent(model, tools=[_run_sql_tool(_Connections(context))], system_prompt=prompt)
            return cache[key]

    def answer(question: str, context: Any) -> dict:
        state = compiled(context).invoke({"messages": [{"role": "user", "content": question}]},
                                         config={"recursion_limit": recursion_limit})
        messages = state["messages"]
        tokens = sum((getattr(m, "usage_metadata", None) or {}).get("total_tokens", 0) for m in messages)
        content = messages[-1].content
        if isinstance(content, list):  # content blocks
            content = "".join(b.get("text", "") if isinstance(b, dict) else str(b) for b in content)
        return {"answer": content, "tokens": tokens or None}

    return answer
