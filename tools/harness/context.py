"""Where the agent-under-test reads the data, and what it is told about it.

``AgentContext`` is handed to every adapter: the backend (``duckdb`` file, ``parquet`` or ``csv``
directory, or ``postgres`` DSN; the registry is ``tools.harness.backends``), the tables and their
columns, and the agent's working directory. It never holds the answers. ``build_context`` points at the bundle's own files (for the trusted
reference agents); agents-under-test get a private copy (``tools.harness.workspace``).
"""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, field_validator

from tools.bundle.opened import bundle_schema

Backend = str  # a name in tools.harness.backends (duckdb, parquet, csv, postgres)


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

    @field_validator("backend")
    @classmethod
    def _known_backend(cls, name: str) -> str:
        from tools.harness.backends import backend_names

        if name not in backend_names():
            raise ValueError(f"unknown backend {name!r}; use one of {', '.join(backend_names())}")
        return name

    def as_dict(self) -> dict:
        """A plain dict for callables and subprocess environments."""
        return {"backend": self.backend, "db_path": self.db_path, "data_dir": self.data_dir, "dsn": self.dsn,
                "workdir": self.workdir, "tables": list(self.tables), "schema": {t: [list(c) for c in cols] for t, cols in self.schema_.items()}}

    def schema_text(self) -> str:
        """The schema as SQL-ish text for a system prompt."""
        from tools.harness.backends import backends

        where = backends()[self.backend].where(self)
        lines = [f"Data: {where}. Timestamps are UTC."]
        for t in self.tables:
            cols = ", ".join(f"{c} {ty}" for c, ty in self.schema_[t])
            lines.append(f"TABLE {t} ({cols})")
        return "\n".join(lines)


def build_context(bundle: Path, backend: Backend = "duckdb", *, dsn: str | None = None,
                  data_dir: Path | None = None) -> AgentContext:
    """The context for ``bundle`` on ``backend``. ``parquet`` reads ``bundle/data``; ``csv`` needs
    ``data_dir`` (see ``tools.bundle.tables.write_tables``); ``postgres`` needs the DSN of a database the
    tables were loaded into (``tools.export.load_postgres``)."""
    from tools.harness.backends import get_backend

    bundle = Path(bundle)
    schema = bundle_schema(bundle)
    kind = get_backend(backend, dsn)
    return AgentContext(backend=backend, tables=sorted(schema), schema_=schema,
                        **kind.reference(bundle, data_dir, dsn))
