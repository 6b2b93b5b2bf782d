"""`llm-sql`: the LangChain tool-calling SQL agent, driven by a scripted fake chat model."""

from __future__ import annotations

import json
import sys
import textwrap

import pytest
from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.messages import AIMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatResult

from agents.sql_agent import build_sql_agent
from tools.harness import backends, build_context, load_responses, run_suite, summarize
from tools.harness.context import HarnessError
from tools.harness.prompting import question_of


class ScriptedSQLModel(BaseChatModel):
    """Asks run_sql for the SQL it is given per question (first a broken query, to exercise error
    recovery), then answers with the last tool result."""

    sql_for: dict
    seen: list = []
    systems: list = []

    @property
    def _llm_type(self) -> str:
        return "scripted-sql"

    def bind_tools(self, tools, **kwargs):
        self.seen.append([getattr(t, "name", None) or t.get("function", {}).get("name") for t in tools])
        return self

    def _generate(self, messages, stop=None, run_manager=None, **kwargs):
        question = next(m.content for m in messages if m.type == "human")
        self.systems.append(next((m.content for m in messages if m.type == "system"), ""))
        tool_results = [m for m in messages if isinstance(m, ToolMessage)]
        if not tool_results:
            msg = AIMessage(content="", tool_calls=[{"name": "run_sql", "args": {"query": "SELECT nope FROM nowhere"},
                                                     "id": "c1"}])
        elif len(tool_results) == 1:
            assert tool_results[0].content.startswith("SQL error")
            msg = AIMessage(content="", tool_calls=[{"name": "run_sql", "args": {"query": self.sql_for[question_of(question)]},
                                                     "id": "c2"}])
        else:
            value = tool_results[-1].content.splitlines()[1]
            msg = AIMessage(content=f"I queried the table.\nAnswer: {value}",
                            usage_metadata={"input_tokens": 100, "output_tokens": 10, "total_tokens": 110})
        return ChatResult(generations=[ChatGeneration(message=msg)])


@pytest.fixture(scope="module")
def bundle(small_bundle):
    return small_bundle("telecom", 12, 5)


def scalar_records(bundle):
    recs = [json.loads(x) for x in (bundle / "qa.jsonl").read_text().splitlines()]
    return [r for r in recs if r["answer_type"] in ("integer", "number")]


def test_llm_sql_answers_through_its_sql_tool_and_scores_on_the_harness(bundle, tmp_path):
    records = scalar_records(bundle)
    assert records
    model = ScriptedSQLModel(sql_for={r["question"]: r["gold_sql"] for r in records})
    agent = build_sql_agent(model)
    ctx = build_context(bundle)
    out = agent(records[0]["question"], ctx)
    assert out["answer"].startswith("I queried the table.\nAnswer: ") and out["tokens"] == 110
    assert model.seen[0] == ["run_sql"]
    run_suite(records, agent, ctx, tmp_path / "run", trials=1, concurrency=2, timeout=30)
    rows = load_responses(tmp_path / "run")
    assert summarize(records, rows)["accuracy"] == 1.0, [r["detail"] for r in rows if r["label"] != "correct"]
    assert all(r["tokens"] == 110 for r in rows)


def test_llm_sql_reads_parquet_files_through_duckdb_views(bundle):
    records = scalar_records(bundle)[:2]
    agent = build_sql_agent(ScriptedSQLModel(sql_for={r["question"]: r["gold_sql"] for r in records}))
    from tools.grade import grade_response

    ctx = build_context(bundle, "parquet")
    for r in records:
        assert grade_response(r, agent(r["question"], ctx)).label == "correct"


def test_rows_beyond_the_limit_are_elided():
    from agents.sql_agent import MAX_ROWS, format_rows

    text = format_rows(["x"], [(i,) for i in range(MAX_ROWS + 1)])
    assert text.splitlines()[0] == "x" and "more than" in text.splitlines()[-1]


def test_cli_eval_runs_llm_sql_with_the_configured_model(bundle, tmp_path, monkeypatch):
    from typer.testing import CliRunner

    import graph.cli_eval as cli_eval
    from graph.cli import app

    recs = [json.loads(x) for x in (bundle / "qa.jsonl").read_text().splitlines()]
    model = ScriptedSQLModel(sql_for={r["question"]: r["gold_sql"] for r in recs})
    monkeypatch.setattr(cli_eval, "_chat_model", lambda: model)
    monkeypatch.delenv("CHRONOEVAL_MODEL", raising=False)  # no judge: only the agent uses the model
    r = CliRunner().invoke(app, ["eval", str(bundle), "--agent", "llm-sql", "--trials", "1", "-o", str(tmp_path / "r")])
    assert r.exit_code == 0, r.output
    s = json.loads((tmp_path / "r" / "summary.json").read_text())
    assert s["answers"] == len(recs) and s["cost"]["tokens_per_question"] == 110
    assert s["by_template"]  # scalar questions answered from SQL; the others are graded as they come


def test_llm_sql_over_real_http_with_langchain_openai(bundle, tmp_path):
    """The same agent with ChatOpenAI talking to a scripted OpenAI-compatible server on 127.0.0.1."""
    from langchain_openai import ChatOpenAI

    from tests.llm_server import ScriptedOpenAIServer, ToolCall

    rec = scalar_records(bundle)[0]
    with ScriptedOpenAIServer() as server:
        tool_results = []

        def respond(body):
            tools = [m for m in body["messages"] if m["role"] == "tool"]
            if not tools:
                return ToolCall("run_sql", {"query": rec["gold_sql"]}, id="call_1")
            tool_results.append(tools[-1]["content"])
            return f"Answer: {tools[-1]['content'].splitlines()[1]}"

        server.respond_with(respond)
        model = ChatOpenAI(model="scripted", base_url=server.base_url, api_key="test", max_retries=0, timeout=10)
        out = build_sql_agent(model)(rec["question"], build_context(bundle))
        sent_tools = server.requests[0]["tools"]
    assert [t["function"]["name"] for t in sent_tools] == ["run_sql"]
    assert "TABLE" in server.requests[0]["messages"][0]["content"]
    from tools.grade import grade_response

    assert grade_response(rec, out).label == "correct", (out, tool_results)


TOY_BACKENDS = {"toysql_file.py": '''
"""Backend ``toysql``: data.duckdb read through the DuckDB connect, in a dialect of its own (a toy)."""
from tools.harness.backends import BackendKind
from tools.harness.backends._sql import duckdb_file

BACKEND = BackendKind(name="toysql", order=50, help="a toy", where=lambda c: f"a copy at {c.db_path}",
                      reference=lambda bundle, data_dir, dsn: {"db_path": str(bundle / "data.duckdb")},
                      workspace=lambda bundle, root, data_dir, dsn: {}, connect=duckdb_file, sql_dialect="ToySQL")
''', "nosql_file.py": '''
"""Backend ``nosql``: offers no SQL connection (a toy)."""
from tools.harness.backends import BackendKind

BACKEND = BackendKind(name="nosql", order=60, help="a toy", where=lambda c: "nowhere",
                      reference=lambda bundle, data_dir, dsn: {"db_path": str(bundle / "data.duckdb")},
                      workspace=lambda bundle, root, data_dir, dsn: {})
'''}


def test_llm_sql_connects_through_the_backend_registry(bundle, tmp_path, monkeypatch):
    """A backend file that gives ``connect`` is queried by llm-sql in its dialect with no change to the
    agent; one that gives none is refused by name, with the backends llm-sql can use."""
    for name, text in TOY_BACKENDS.items():
        (tmp_path / name).write_text(textwrap.dedent(text))
    monkeypatch.setattr(backends, "__path__", [*backends.__path__, str(tmp_path)])
    backends.backends.cache_clear()
    try:
        rec = scalar_records(bundle)[0]
        model = ScriptedSQLModel(sql_for={rec["question"]: rec["gold_sql"]})
        from tools.grade import grade_response

        assert grade_response(rec, build_sql_agent(model)(rec["question"], build_context(bundle, "toysql"))).label \
            == "correct"
        assert "(ToySQL SQL;" in model.systems[0] and "a copy at " in model.systems[0]
        with pytest.raises(HarnessError, match="llm-sql cannot query backend 'nosql'; use duckdb, parquet, csv, "
                                               "postgres, toysql"):
            build_sql_agent(model)(rec["question"], build_context(bundle, "nosql"))
    finally:
        backends.backends.cache_clear()
        for name in TOY_BACKENDS:  # the toy modules must not answer a later discovery of the same name
            sys.modules.pop(f"{backends.__name__}.{name[:-3]}", None)
