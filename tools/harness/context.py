"""Where the agent-under-test reads the data, and what it is told about it.

``AgentContext`` is handed to every adapter: the backend (``duckdb`` file, ``parquet`` or ``csv``
directory, or ``postgres`` DSN), the tables and their columns, and the agent's working directory.
It never holds the answers. ``build_context`` points at the bundle's own files (for the trusted
reference agents); agents-under-test get a private copy (``tools.harness.workspace``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel

Backend = Literal["duckdb", "parquet", "csv", "postgres"]


class HarnessError(ValueError):
    """Bad harness input (agent spec, backend, run directory): a user error."""


class AgentContext(BaseModel):
    """What an agent knows about the data: backend, location, tables and their columns."""

    backend: Backend = "duckdb"
    db_path: str | None = None
    data_dir: str | None = None
    dsn: str | None = None
    workdir: str | None = None
    tables: list[str]
    schema_: dict[str, list[tuple[str, str]]]

    def as_dict(self) -> dict:
        """A plain dict for callables and subprocess environments."""
        return {"backend": self.backend, "db_path": self.db_path, "data_dir": self.data_dir, "dsn": self.dsn,
                "workdir": self.workdir, "tables": list(self.tables), "schema": {t: [list(c) for c in cols] for t, cols in self.schema_.items()}}

    def schema_text(self) -> str:
        """The schema as SQL-ish text for a system prompt."""
        where = {"duckdb": f"DuckDB database {self.db_path}", "parquet": f"Parquet files in {self.data_dir}",
                 "csv": f"CSV files in {self.data_dir}", "postgres": "PostgreSQL"}[self.backend]
        lines = [f"Data: {where}. Timestamps are UTC."]
        for t in self.tables:
            cols = ", ".join(f"{c} {ty}" for c, ty in self.schema_[t])
            lines.append(f"TABLE {t} ({cols})")
        return "\n".join(lines)


def bundle_schema(bundle: Path) -> dict[str, list[tuple[str, str]]]:
    """Columns and DuckDB types of every table in a bundle's data.duckdb."""
    from tools.bundle.layout import connect_bundle

    db = Path(bundle) / "data.duckdb"
    if not db.is_file():
        raise HarnessError(f"{bundle} has no data.duckdb; is it a chronoeval bundle (chronoeval generate ... -o DIR)?")
    con = connect_bundle(db)
    try:
        rows = con.execute("SELECT table_name, column_name, data_type FROM information_schema.columns "
                           "ORDER BY table_name, ordinal_position").fetchall()
    finally:
        con.close()
    out: dict[str, list[tuple[str, str]]] = {}
    for t, c, ty in rows:
        out.setdefault(t, []).append((c, ty))
    return out


def build_context(bundle: Path, backend: Backend = "duckdb", *, dsn: str | None = None,
                  data_dir: Path | None = None) -> AgentContext:
    """The context for ``bundle`` on ``backend``. ``parquet`` reads ``bundle/data``; ``csv`` needs
    ``data_dir`` (see ``tools.export.write_tables``); ``postgres`` needs the DSN of a database the
    tables were loaded into (``tools.export.load_postgres``)."""
    bundle = Path(bundle)
    schema = bundle_schema(bundle)
    if backend == "duckdb":
        return AgentContext(backend=backend, db_path=str((bundle / "data.duckdb").resolve()), tables=sorted(schema),
                            schema_=schema)
    if backend in ("parquet", "csv"):
        d = Path(data_dir) if data_dir else bundle / "data"
        if not any(d.glob(f"*.{backend}")) and not any(d.glob(f"*/part-*.{backend}")):
            raise HarnessError(f"{d} holds no .{backend} tables; write them with `chronoeval export {bundle} "
                               f"--format {backend} -o DIR` and pass --data-dir DIR")
        return AgentContext(backend=backend, data_dir=str(d.resolve()), tables=sorted(schema), schema_=schema)
    if backend == "postgres":
        if not dsn:
            raise HarnessError("--backend postgres needs --dsn postgresql://user@host:port/db")
        return AgentContext(backend=backend, dsn=dsn, tables=sorted(schema), schema_=schema)
    raise HarnessError(f"unknown backend {backend!r}; use duckdb, parquet, csv or postgres")
