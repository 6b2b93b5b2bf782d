"""One way to open a bundle: ``open_bundle(out)`` gives a typed ``Bundle`` with its paths, spec,
incidents, manifest, tables and a DuckDB connection opened on first use.

Checks, queries, paraphrase, the harness and the exports read a bundle through it, so a damaged or
foreign directory gets the same error (``BundleError``, exit code 2 in the CLI) whichever command
reads it first.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tools.bundle.files import DATA_DB, INCIDENTS, MANIFEST, QA, SPEC
from tools.sqlsafe import quote_qualified

if TYPE_CHECKING:  # the spec models load on open, not on import (the CLI imports BundleError at start-up)
    from tools.spec.model import Spec


class BundleError(ValueError):
    """The directory is not a chronoeval bundle (a user error: exit code 2 in the CLI)."""


def _qi(name: str) -> str:
    return quote_qualified(*name.split(".", 1))


def configure(con: Any) -> None:
    """The session settings every bundle connection runs with (UTC, no progress bar on stderr)."""
    con.execute("SET TimeZone = 'UTC'")
    con.execute("SET enable_progress_bar = false")


def connect(out: Path, *, rowids: bool = False) -> Any:
    """A new read-only connection to ``out/data.duckdb`` with ``configure``'s settings; ``rowids``
    adds the connection-local rowid views over a big world's Parquet parts (``add_rowid_views``)."""
    import duckdb

    from tools.bundle.layout import add_rowid_views, connect_bundle

    try:
        con = connect_bundle(out / DATA_DB)
    except duckdb.Error as exc:
        raise BundleError(f"{out / DATA_DB} cannot be opened ({exc}); regenerate the bundle") from None
    configure(con)
    if rowids:
        add_rowid_views(con, out)  # a big world's views over Parquet get the rowid the checks order by
    return con


@dataclass
class Bundle:
    """An opened bundle. ``con`` (read-only DuckDB, opened on first use, with rowid views when
    ``rowids``), ``tables`` and ``manifest`` are read on demand; ``cache`` holds full scans shared by
    the forks of one bundle."""

    out: Path
    spec: Spec
    incidents: list[dict]
    rowids: bool = False
    _con: Any = None
    _tables: set[str] | None = None
    _columns: dict[str, list[str]] = field(default_factory=dict)
    cache: dict[tuple, object] = field(default_factory=dict)

    # ---- paths -------------------------------------------------------------------------------------
    def path(self, name: str) -> Path:
        """``out/<name>`` for a name of ``tools.bundle.files``."""
        return self.out / name

    @property
    def db_path(self) -> Path:
        return self.out / DATA_DB

    @property
    def qa_path(self) -> Path:
        return self.out / QA

    @property
    def manifest(self) -> dict:
        """The parsed manifest.json ({} when the bundle has none)."""
        p = self.out / MANIFEST
        return json.loads(p.read_text()) if p.is_file() else {}

    # ---- DuckDB --------------------------------------------------------------------------------------
    @property
    def con(self) -> Any:
        if self._con is None:
            self._con = connect(self.out, rowids=self.rowids)
        return self._con

    def connect(self) -> Any:
        """A new connection of its own (for another thread); the caller closes it."""
        return connect(self.out, rowids=self.rowids)

    @property
    def tables(self) -> set[str]:
        """Every table and view of data.duckdb (``schema.table`` outside ``main``)."""
        if self._tables is None:
            rows = self.con.execute("SELECT table_schema, table_name FROM information_schema.tables").fetchall()
            self._tables = {t if s == "main" else f"{s}.{t}" for s, t in rows}
        return self._tables

    def has(self, name: str) -> bool:
        return name in self.tables

    def columns(self, table: str) -> list[str]:
        """The table's column names (cached)."""
        if table not in self._columns:
            self._columns[table] = [r[0] for r in self.sql(f"SELECT column_name FROM (DESCRIBE {_qi(table)})")]
        return self._columns[table]

    def _ids(self, table: str, id_col: str) -> list[tuple]:
        key = ("ids", table, id_col)
        if key not in self.cache:
            self.cache[key] = self.sql(f"SELECT {_qi(id_col)}, hash({_qi(id_col)}) FROM {_qi(table)} GROUP BY ALL")
        return self.cache[key]

    def entities(self, table: str, id_col: str) -> list[str]:
        """The distinct ids of a table, sorted (cached: it is a full scan, shared by the checks)."""
        key = ("entities", table, id_col)
        if key not in self.cache:
            self.cache[key] = sorted(str(x) for x, _ in self._ids(table, id_col))
        return self.cache[key]

    def id_stats(self, table: str, id_col: str) -> tuple[int, int, bool]:
        """(distinct ids, distinct DuckDB ``hash(id)`` values, any null id) of a table (cached)."""
        rows = self._ids(table, id_col)
        return len(rows), len({h for _, h in rows}), any(x is None for x, _ in rows)

    def fork(self) -> Bundle:
        """The same bundle on a new DuckDB cursor (same database, own connection state), for running
        queries from another thread; close it when done."""
        from tools.bundle.layout import add_rowid_views

        con = self.con.cursor()
        configure(con)
        if self.rowids:
            add_rowid_views(con, self.out)  # temp views are per connection
        return Bundle(self.out, self.spec, self.incidents, self.rowids, con, self.tables, self._columns, self.cache)

    def sql(self, query: str) -> list[tuple]:
        return self.con.execute(query).fetchall()

    def one(self, query: str) -> tuple:
        return self.con.execute(query).fetchone()

    def numpy(self, query: str) -> dict:
        return self.con.execute(query).fetchnumpy()

    def close(self) -> None:
        if self._con is not None:
            self._con.close()
            self._con = None


def read_incidents(out: Path) -> list[dict]:
    """The incidents of ``out/incidents.json`` ([] when the bundle has none)."""
    p = out / INCIDENTS
    if not p.is_file():
        return []
    try:
        doc = json.loads(p.read_text())
    except json.JSONDecodeError as exc:
        raise BundleError(f"{p} is not valid JSON (line {exc.lineno}); regenerate the bundle") from None
    return doc.get("incidents", []) if isinstance(doc, dict) else list(doc)


def open_bundle(out: str | Path, *, connect_now: bool = True, rowids: bool = False) -> Bundle:
    """Open ``out`` (spec.yaml + data.duckdb [+ incidents.json]); ``BundleError`` naming the file and
    the fix if it is not a bundle. ``connect_now`` opens data.duckdb at once (so a damaged file is
    reported here); ``rowids`` gives a big world's Parquet views a ``rowid`` (the checks need it)."""
    from tools.spec import SpecError, load_spec

    out = Path(out)
    if not out.is_dir():
        raise BundleError(f"{out} is not a directory; pass a bundle made by `chronoeval generate`")
    missing = [n for n in (SPEC, DATA_DB) if not (out / n).is_file()]
    if missing:
        raise BundleError(f"{out} is not a chronoeval bundle (no {' or '.join(missing)}); "
                          "pass the -o directory of `chronoeval generate`")
    try:
        spec = load_spec(out / SPEC)
    except SpecError as exc:
        raise BundleError(f"{out / SPEC} is not a valid spec: {exc}") from None
    bundle = Bundle(out, spec, read_incidents(out), rowids)
    if connect_now:
        bundle.con  # noqa: B018 - open now so a damaged data.duckdb is reported by the opener
    return bundle


def bundle_schema(bundle: Path) -> dict[str, list[tuple[str, str]]]:
    """Columns and DuckDB types of every table in a bundle's data.duckdb (only data.duckdb is needed)."""
    db = Path(bundle) / DATA_DB
    if not db.is_file():
        raise BundleError(f"{bundle} has no data.duckdb; is it a chronoeval bundle (chronoeval generate ... -o DIR)?")
    con = connect(Path(bundle))
    try:
        rows = con.execute("SELECT table_name, column_name, data_type FROM information_schema.columns "
                           "ORDER BY table_name, ordinal_position").fetchall()
    finally:
        con.close()
    out: dict[str, list[tuple[str, str]]] = {}
    for t, c, ty in rows:
        out.setdefault(t, []).append((c, ty))
    return out
