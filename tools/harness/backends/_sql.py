"""SQL access to a backend's data, for agents that query it themselves (the built-in ``llm-sql``).

A backend's ``connect(context)`` opens one read-only connection and returns a :data:`Query`:
``query(sql, limit) -> (column names, at most limit rows)``. The DuckDB ones are here, shared by the
file backends; the PostgreSQL one lives in its backend's file.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from tools.sqlsafe import quote_ident, quote_literal

if TYPE_CHECKING:
    from tools.harness.context import AgentContext

Query = Callable[[str, int], tuple[list[str], list[tuple]]]


def duckdb_query(con: Any) -> Query:
    """Queries on a DuckDB connection, with timestamps shown in UTC."""
    con.execute("SET TimeZone = 'UTC'")

    def query(sql: str, limit: int) -> tuple[list[str], list[tuple]]:
        cur = con.execute(sql)
        return [d[0] for d in cur.description or []], cur.fetchmany(limit)
    return query


def duckdb_file(c: AgentContext) -> Query:
    """The context's DuckDB file, read-only."""
    import duckdb

    con = duckdb.connect(c.db_path, read_only=True)
    # a big world's data.duckdb holds views over data/<table>/part-*.parquet beside it
    con.execute(f"SET file_search_path = {quote_literal(os.path.dirname(os.path.abspath(c.db_path)))}")
    return duckdb_query(con)


def duckdb_views(ext: str, reader: str) -> Callable[[AgentContext], Query]:
    """A ``connect`` for tables stored as ``data_dir/<table>.<ext>`` files (or partitioned
    ``data_dir/<table>/part-*.<ext>``): an in-memory DuckDB with one view per table over ``reader``."""
    def connect(c: AgentContext) -> Query:
        import duckdb

        con = duckdb.connect()
        for t in c.tables:
            path = f"{c.data_dir}/{t}.{ext}"
            if os.path.isdir(f"{c.data_dir}/{t}"):  # partitioned (--engine dask): the parts in order
                path = f"{c.data_dir}/{t}/part-*.{ext}"
            con.execute(f"CREATE VIEW {quote_ident(t)} AS SELECT * FROM {reader}({quote_literal(path)})")
        return duckdb_query(con)
    return connect
