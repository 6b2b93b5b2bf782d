"""Bundle tables into a PostgreSQL database (COPY over psycopg); as CSV or Parquet files:
``tools.bundle.tables.write_tables``."""

from __future__ import annotations

import re
import tempfile
from pathlib import Path

from tools.bundle.opened import bundle_schema
from tools.bundle.paths import child_path
from tools.bundle.tables import connect_tables
from tools.harness.context import HarnessError
from tools.sqlsafe import quote_ident, quote_path, quote_qualified

_PG_TYPES = {"VARCHAR": "text", "BIGINT": "bigint", "INTEGER": "integer", "SMALLINT": "smallint",
             "TINYINT": "smallint", "DOUBLE": "double precision", "FLOAT": "real", "BOOLEAN": "boolean",
             "TIMESTAMP WITH TIME ZONE": "timestamptz", "TIMESTAMP": "timestamp", "DATE": "date",
             "UTINYINT": "smallint", "USMALLINT": "integer", "UINTEGER": "bigint", "UBIGINT": "numeric",
             "HUGEINT": "numeric", "INTERVAL": "interval", "TIME": "time"}


def pg_type(duck_type: str) -> str:
    """The PostgreSQL column type for a DuckDB type (DECIMAL(p,s) -> numeric(p,s))."""
    if duck_type.startswith("DECIMAL"):
        return "numeric" + duck_type[len("DECIMAL"):]
    return _PG_TYPES.get(duck_type, "text")


def load_postgres(bundle: Path, dsn: str, *, schema: str = "public", replace: bool = False) -> dict[str, int]:
    """Create the bundle's tables in PostgreSQL at ``dsn`` and COPY their rows in; returns row counts.
    Existing tables are only replaced with ``replace``."""
    import psycopg

    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", schema):
        raise HarnessError(f"schema name {schema!r} must be a plain identifier")
    tables = bundle_schema(bundle)
    try:
        pg = psycopg.connect(dsn, connect_timeout=10)
    except psycopg.OperationalError as exc:
        raise HarnessError(f"cannot connect to PostgreSQL at {dsn}: {str(exc).strip()}; check --dsn and that the "
                           "server is running") from None
    counts = {}
    con = connect_tables(bundle)
    try:
        with pg.transaction(), pg.cursor() as cur, tempfile.TemporaryDirectory() as tmp:
            cur.execute(f"CREATE SCHEMA IF NOT EXISTS {quote_ident(schema)}")
            for t, cols in sorted(tables.items()):
                cur.execute("SELECT 1 FROM information_schema.tables WHERE table_schema = %s AND table_name = %s",
                            (schema, t))
                if cur.fetchone() and not replace:
                    raise HarnessError(f"table {schema}.{t} already exists in {dsn}; pass --force to replace it")
                target = quote_qualified(schema, t)
                cur.execute(f"DROP TABLE IF EXISTS {target}")
                ddl = ", ".join(f"{quote_ident(c)} {pg_type(ty)}" for c, ty in cols)
                cur.execute(f"CREATE TABLE {target} ({ddl})")
                csv_path = child_path(Path(tmp), t, ".csv")
                con.execute(f"COPY (SELECT * FROM {quote_ident(t)}) TO {quote_path(csv_path)} (FORMAT CSV, HEADER false)")
                names = ", ".join(quote_ident(c) for c, _ in cols)
                with cur.copy(f"COPY {target} ({names}) FROM STDIN WITH (FORMAT csv)") as cp, \
                        open(csv_path, "rb") as f:
                    while chunk := f.read(1 << 20):
                        cp.write(chunk)
                cur.execute(f"SELECT count(*) FROM {target}")
                counts[t] = cur.fetchone()[0]
    finally:
        con.close()
        pg.close()
    return counts
