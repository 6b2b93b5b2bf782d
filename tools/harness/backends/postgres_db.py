"""Backend ``postgres``: the agent gets the DSN of a PostgreSQL database the tables were loaded into
(``tools.export.load_postgres``; ``chronoeval eval`` loads them first)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tools.harness.backends import BackendKind

if TYPE_CHECKING:
    from tools.harness.backends._sql import Query
    from tools.harness.context import AgentContext


def _connect(c: AgentContext) -> Query:
    import psycopg  # only this backend needs the driver

    con = psycopg.connect(c.dsn, autocommit=True)

    def query(sql: str, limit: int) -> tuple[list[str], list[tuple]]:
        with con.cursor() as cur:
            cur.execute(sql)
            return [d.name for d in cur.description or []], cur.fetchmany(limit)
    return query


BACKEND = BackendKind(
    name="postgres", order=40, help="a PostgreSQL database (needs --dsn)",
    where=lambda c: "PostgreSQL",
    reference=lambda bundle, data_dir, dsn: {"dsn": dsn},
    workspace=lambda bundle, root, data_dir, dsn: {"dsn": dsn},
    needs_dsn=True,
    connect=_connect, sql_dialect="PostgreSQL")
