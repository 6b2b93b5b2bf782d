"""Postgres export and an agent reading from Postgres, against a real server."""

from __future__ import annotations

import duckdb
import psycopg
import pytest

from tools.export import load_postgres
from tools.harness import build_context, load_responses, run_suite, summarize
from tools.harness.context import HarnessError
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
        r = by_q[question]
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
