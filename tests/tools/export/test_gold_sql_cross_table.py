"""The gold SQL of ``incident_cross_table`` (issue 19's conjunction across related tables) runs on a real
PostgreSQL through the dialect translation every record carries and returns the DuckDB answer, on the
public telecom reference tables, for its main questions and its negative controls (Spark runs it in
test_gold_sql_dialects.py: the telecom pack's default suite holds it)."""

from __future__ import annotations

import psycopg
import pytest

from tests.tools.export.test_gold_sql_dialects import _plain
from tests.tools.queries.test_reference_incident_cross import CONTROLS, MAIN, cross
from tests.tools.queries.test_reference_incident_cross import ref as ref  # noqa: F401 - the module fixture
from tools.export import load_postgres
from tools.queries.answers import agree, canonical
from tools.queries.dialects import gold_sql_dialects
from tools.queries.registry import load_templates


@pytest.mark.slow
def test_postgres_runs_the_cross_table_gold_sql(ref, postgres_dsn):  # noqa: F811
    t = load_templates()["incident_cross_table"]
    load_postgres(ref.root, postgres_dsn, schema="cross_table", replace=True)
    specs = [cross(*m) for m in MAIN] + [cross(*c) for c in CONTROLS]
    with psycopg.connect(postgres_dsn, autocommit=True) as pg:
        pg.execute("SET search_path TO cross_table")
        pg.execute("SET TimeZone TO 'UTC'")
        for q in specs:
            want = ref.answer(q)
            row = pg.execute(gold_sql_dialects(t.sql(q))["postgres"]).fetchone()
            got = canonical(None if row is None else _plain(row[0]), "integer")
            assert agree(got, want), f"{q.table} {q.p('key')}: postgres {got!r} != {want!r}"
