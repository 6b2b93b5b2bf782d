"""Backend ``postgres``: the agent gets the DSN of a PostgreSQL database the tables were loaded into
(``tools.export.load_postgres``; ``chronoeval eval`` loads them first)."""

from __future__ import annotations

from tools.harness.backends import BackendKind

BACKEND = BackendKind(
    name="postgres", order=40, help="a PostgreSQL database (needs --dsn)",
    where=lambda c: "PostgreSQL",
    reference=lambda bundle, data_dir, dsn: {"dsn": dsn},
    workspace=lambda bundle, root, data_dir, dsn: {"dsn": dsn},
    needs_dsn=True)
