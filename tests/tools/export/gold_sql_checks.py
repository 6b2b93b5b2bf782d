"""Shared checks for gold SQL written outside the pack suites: every spec transpiles to every dialect,
and PostgreSQL returns the DuckDB answer of a small bundle."""

from __future__ import annotations

import psycopg

from tests.tools.export.test_gold_sql_dialects import _plain
from tools.export import load_postgres
from tools.queries.answers import agree, canonical
from tools.queries.dialects import DIALECTS, gold_sql_dialects
from tools.queries.registry import load_templates


def assert_transpiles(specs) -> None:
    """Each spec's gold SQL has a non-empty version in every dialect."""
    t = load_templates()
    for q in specs:
        got = gold_sql_dialects(t[q.template].sql(q))
        assert set(got) == set(DIALECTS) and all(got.values()), q.template


def assert_postgres_agrees(bundle, dsn: str, schema: str, specs, *, answered: bool = False) -> None:
    """Load ``bundle`` into ``schema`` and check every spec's Postgres gold SQL returns the bundle's
    (DuckDB-side) answer; ``answered``: each answer must also be defined."""
    load_postgres(bundle.root, dsn, schema=schema, replace=True)
    t = load_templates()
    with psycopg.connect(dsn, autocommit=True) as pg:
        pg.execute(f"SET search_path TO {schema}")
        pg.execute("SET TimeZone TO 'UTC'")
        for q in specs:
            want, atype = bundle.answer(q), t[q.template].type_of(q)
            assert not answered or want is not None, q.template
            row = pg.execute(gold_sql_dialects(t[q.template].sql(q))["postgres"]).fetchone()
            got = canonical(None if row is None else _plain(row[0]), atype)
            assert agree(got, want), f"{q.template}: postgres {got!r} != {want!r}"
