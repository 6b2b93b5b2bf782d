"""Reference agents: ``oracle`` executes each question's gold_sql (it must score 1.0) and ``naive``
is the stateless misreading (it answers ``naive_answer`` where the template has one).

Both read the suite they are run on (that is what makes them references, not agents-under-test).
Answers are rendered as text the way an agent would write them, so they go through the grader's
real parsing path.
"""

from __future__ import annotations

import threading
from functools import partial
from pathlib import Path
from typing import Any

from tools.bundle.files import DATA_DB, HOLDOUT_DIR
from tools.harness.context import AgentContext, HarnessError
from tools.harness.prompting import question_of
from tools.sqlsafe import quote_literal


def render_answer(value: Any, answer_type: str) -> str:
    """Plain-text rendering of a canonical answer ('Yes (ratio 3.7)', '1. a: 3', 'k: v', ...)."""
    if value is None:
        return "I found no value."
    if answer_type == "duration":
        return f"{float(value)!r} seconds"
    if answer_type == "boolean":
        if isinstance(value, dict):
            extra = ", ".join(f"{k} {v!r}" for k, v in value.items() if k != "value")
            return ("Yes" if value.get("value") else "No") + (f" ({extra})" if extra else "")
        return "Yes" if value else "No"
    if answer_type == "entity":
        return ", ".join(f"{k}={v}" for k, v in value.items()) if isinstance(value, dict) else str(value)
    if answer_type == "entity_list":
        return ", ".join(str(v) for v in value) if value else "none"
    if answer_type == "mapping":
        return "\n".join(f"{k}: {v!r}" for k, v in value.items())
    if answer_type == "ranking":
        return "\n".join(f"{i}. {lab}: {v!r}" for i, (lab, v) in enumerate(value, 1))
    if answer_type == "table":
        head = "| " + " | ".join(map(str, value["columns"])) + " |"
        sep = "|" + "---|" * len(value["columns"])
        return "\n".join([head, sep, *("| " + " | ".join(map(str, r)) + " |" for r in value["rows"])])
    return repr(value) if isinstance(value, float) else str(value)


class _DuckDB:
    """One read-only DuckDB connection per thread over the bundle's data (file, or views over files)."""

    def __init__(self, bundle: Path):
        self.bundle = Path(bundle)
        self.local = threading.local()

    def cursor(self):
        from tools.bundle.opened import connect

        con = getattr(self.local, "con", None)
        if con is None:
            db = self.bundle / DATA_DB
            if not db.is_file():
                raise HarnessError(f"{self.bundle} has no data.duckdb for the oracle")
            con = connect(self.bundle)
            if (self.bundle / HOLDOUT_DIR).is_dir():  # forecast gold SQL reads holdout/<table>.parquet
                con.execute(f"SET file_search_path = {quote_literal(str(self.bundle.resolve()))}")
            self.local.con = con
        return con


class OracleAgent:
    """Executes the gold_sql of the question it is asked (looked up by question text)."""

    def __init__(self, records: list[dict], bundle: Path):
        self.by_question = {r["question"]: r for r in records}
        self.db = _DuckDB(bundle)

    def __call__(self, question: str, context: AgentContext) -> str:
        from tools.queries.answers import canonical

        r = self.by_question[question_of(question)]
        row = self.db.cursor().execute(r["gold_sql"]).fetchone()
        return render_answer(canonical(None if row is None else row[0], r["answer_type"]), r["answer_type"])


class NaiveAgent:
    """The stateless misreading: ``naive_answer`` where present; stateless questions are answered
    from gold_sql (a stateless reader gets them right); incident questions without a naive answer
    get the 'no incident' answer an agent that never locates the incident gives; claims are agreed with,
    false premises and missing data answered with a made-up figure (their ``naive_answer``)."""

    def __init__(self, records: list[dict], bundle: Path):
        self.by_question = {r["question"]: r for r in records}
        self.oracle = OracleAgent(records, bundle)

    def __call__(self, question: str, context: AgentContext) -> str:
        r = self.by_question[question_of(question)]
        if r.get("naive_answer") is not None:
            return render_answer(r["naive_answer"], r["answer_type"])
        if r["family"] == "incident":
            return "No" if r["answer_type"] == "boolean" else "I found no incident in the data."
        if r["family"] == "claim":  # agrees with whatever it is told
            return "Yes, that is true."
        return self.oracle(question, context)


REFERENCE_AGENTS = {"oracle": OracleAgent, "naive": NaiveAgent}  # the built-in agents, by --agent name


def reference_agents(records: list[dict], bundle: Path) -> dict:
    """Factories of the built-in reference agents keyed by name."""
    return {name: partial(cls, records, bundle) for name, cls in REFERENCE_AGENTS.items()}
