"""Postgres export and an agent reading from Postgres, against a real server."""

from __future__ import annotations

import duckdb
import psycopg
import pytest

from tools.export import load_postgres
from tools.harness import build_context, load_responses, run_suite, summarize
from tools.harness.context import HarnessError
from tools.harness.prompting import question_of
from tools.queries.answers import canonical


def test_tables_load_into_postgres_with_the_same_rows(export_bundle_dir, postgres_dsn):
    counts = load_postgres(export_bundle_dir, postgres_dsn, schema="bundle_a")
    con = duckdb.connect(str(export_bundle_dir / "data.duckdb"), read_only=True)
    for t, n in counts.items():
        assert n == con.execute(f'SELECT count(*) FROM "{t}"').fetchone()[0] > 0
    t = "cell_kpis" if "cell_kpis" in counts else sorted(counts)[0]
    cols = [r[0] for r in con.execute(f"SELECT column_name FROM information_schema.columns WHERE table_name='{t}' "
                                      "AND data_type = 'DOUBLE' LIMIT 1").fetchall()]
    with psycopg.connect(postgres_dsn) as pg:
        if cols:
            got = pg.execute(f'SELECT sum("{cols[0]}") FROM bundle_a."{t}"').fetchone()[0]
            assert got == pytest.approx(con.execute(f'SELECT sum("{cols[0]}") FROM "{t}"').fetchone()[0], rel=1e-9)
        types = dict(pg.execute("SELECT column_name, data_type FROM information_schema.columns "
                                "WHERE table_schema='bundle_a' AND table_name=%s", (t,)).fetchall())
    assert "timestamp with time zone" in types.values()
    with pytest.raises(HarnessError, match="already exists"):
        load_postgres(export_bundle_dir, postgres_dsn, schema="bundle_a")
    assert load_postgres(export_bundle_dir, postgres_dsn, schema="bundle_a", replace=True) == counts


def test_an_unreachable_server_is_a_clear_user_error(export_bundle_dir):
    with pytest.raises(HarnessError, match="cannot connect to PostgreSQL"):
        load_postgres(export_bundle_dir, "postgresql://postgres@127.0.0.1:9/none")


def test_an_agent_reads_the_data_from_postgres(export_bundle_dir, export_records, postgres_dsn, tmp_path):
    load_postgres(export_bundle_dir, postgres_dsn, replace=True)
    ctx = build_context(export_bundle_dir, "postgres", dsn=postgres_dsn)
    by_q = {r["question"]: r for r in export_records}
    ran = []

    def pg_agent(question, context):
        """Runs the gold SQL on PostgreSQL (most of it is portable: TIMESTAMPTZ literals, CTEs)."""
        r = by_q[question_of(question)]
        with psycopg.connect(context.dsn) as pg:
            row = pg.execute(r["gold_sql"]).fetchone()
        ran.append(r["id"])
        value = canonical(row[0], r["answer_type"])
        return str(value if r["answer_type"] != "boolean" or not isinstance(value, dict) else value["value"])

    scalar = [r for r in export_records if r["answer_type"] in ("integer", "number")]
    run_suite(scalar, pg_agent, ctx, tmp_path / "run", trials=1, concurrency=2)
    rows = load_responses(tmp_path / "run")
    print(f"{len(ran)} of {len(scalar)} gold SQL ran on PostgreSQL")
    assert len(ran) >= len(scalar) // 2, "most gold SQL must run on PostgreSQL"
    assert all(r["label"] == "correct" for r in rows if r["id"] in ran)
    assert summarize(scalar, rows)["accuracy"] == len(ran) / len(scalar)


def test_cli_export_and_eval_on_the_postgres_backend(export_bundle_dir, postgres_dsn, tmp_path):
    import json

    from typer.testing import CliRunner

    from graph.cli import app

    def run(*args):
        return CliRunner().invoke(app, [str(a) for a in args])

    r = run("export", export_bundle_dir, "--format", "postgres", "--dsn", postgres_dsn, "--pg-schema", "cli_copy")
    assert r.exit_code == 0 and "rows in" in r.output, r.output
    agent = tmp_path / "pg_agent.py"
    agent.write_text(
        "import psycopg\n"
        "def answer(question, context):\n"
        "    with psycopg.connect(context['dsn']) as pg:\n"
        "        t = context['tables'][0]\n"
        "        n = pg.execute('SELECT count(*) FROM \"%s\"' % t).fetchone()[0]\n"
        "        return f'{t}: {n} rows'\n")
    r = run("eval", export_bundle_dir, "--agent", f"python:{agent}:answer", "--backend", "postgres",
            "--dsn", postgres_dsn, "--trials", "1", "-o", tmp_path / "run")
    assert r.exit_code == 0, r.output
    rows = [json.loads(x) for x in (tmp_path / "run" / "responses.jsonl").read_text().splitlines()]
    con = duckdb.connect(str(export_bundle_dir / "data.duckdb"), read_only=True)
    first = sorted(t for (t,) in con.execute("SELECT table_name FROM information_schema.tables").fetchall())[0]
    n = con.execute(f'SELECT count(*) FROM "{first}"').fetchone()[0]
    assert rows and all(x["error"] is None and x["response"] == f"{first}: {n} rows" for x in rows)
    with psycopg.connect(postgres_dsn) as pg:  # eval loaded its own schema, found through search_path
        assert pg.execute(f'SELECT count(*) FROM chronoeval."{first}"').fetchone()[0] == n


def test_the_postgres_backend_opens_the_sql_connection_of_the_llm_sql_agent(export_bundle_dir, postgres_dsn):
    """``llm-sql`` queries PostgreSQL through the backend file's ``connect`` (rows capped, columns named)."""
    from tools.harness.backends import get_backend

    counts = load_postgres(export_bundle_dir, postgres_dsn, replace=True)
    ctx = build_context(export_bundle_dir, "postgres", dsn=postgres_dsn)
    kind = get_backend("postgres", postgres_dsn)
    query = kind.connect(ctx)
    t = sorted(counts)[0]
    assert kind.sql_dialect == "PostgreSQL"
    assert query(f'SELECT count(*) AS n FROM "{t}"', 2) == (["n"], [(counts[t],)])
    cols, rows = query(f'SELECT * FROM "{t}"', 3)
    assert cols == [c for c, _ in ctx.schema_[t]] and len(rows) == 3
