"""The check record, the thresholds, and the opened bundle the checks run against."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Literal

from pydantic import BaseModel

from tools.spec.model import Spec
from tools.sqlsafe import quote_literal, quote_qualified

# ---- thresholds (documented in tools/checks/__init__.py and README "Checks") -----------------------
Z_THRESHOLD = 3.0          # |robust z| of the window's median residual (level kinds)
RMS_RATIO = 2.0            # window residual RMS / baseline residual scale (variance, decoupled, seasonality)
NULL_FRACTION = 0.9        # share of null values in the window (null_burst)
ARRIVAL_Z = 3.0            # z of the arrival count vs the same clock window on other days (flash crowds)
BEHAVIOR_P = 1e-3          # chi-square p-value of the label distribution, in window vs outside
BEHAVIOR_TV = 0.1          # ... and total-variation distance at least this
DWELL_LOG_RATIO = 0.405    # or |log| of the dwell-time ratio >= log(1.5) (event tables), same p
DETECT_FRACTION = 0.9      # share of the affected entities that must show the deviation, per key
FP_BOUND = 0.05            # localized: at most this share of control tests may show the deviation
DETECT_BOUND_SIGMA = 6.0   # documented detectability bound (level kinds), in baseline std
MAX_AFFECTED = 20          # affected entities examined per incident (evenly spaced sample)
MAX_PEERS = 50             # unaffected peers examined per incident (evenly spaced sample)
MIN_BASELINE_ROWS = 8      # an entity needs this many out-of-window rows to have a baseline


class Check(BaseModel):
    """One row of checks.json."""

    name: str
    table: str
    kind: Literal["quality", "pattern"]
    passed: bool
    detail: str
    sql: str
    incident: str | None = None


class BundleError(ValueError):
    """The directory is not a chronoeval bundle (a user error: exit code 2 in the CLI)."""


def qi(name: str) -> str:
    """A quoted SQL identifier; ``schema.table`` is quoted part by part (``tools.sqlsafe``)."""
    return quote_qualified(*name.split(".", 1))


def ql(value: object) -> str:
    """A SQL literal for a number, or for anything else as its text (``tools.sqlsafe``)."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        return quote_literal(value)
    return quote_literal(str(value))


def in_list(values) -> str:
    return "(" + ", ".join(ql(v) for v in values) + ")" if len(values) else "(NULL)"


def ts_literal(iso: str) -> str:
    return f"TIMESTAMPTZ {ql(iso)}"


def iso_to_us(iso: str) -> int:
    return int(round(datetime.fromisoformat(iso).timestamp() * 1_000_000))


def us_to_iso(us: int | float) -> str:
    from datetime import UTC

    return datetime.fromtimestamp(float(us) / 1e6, UTC).isoformat().replace("+00:00", "Z")


@dataclass
class Bundle:
    """An opened bundle: its spec, incidents and a read-only DuckDB connection."""

    out: Path
    spec: Spec
    con: object
    incidents: list[dict]
    tables: set[str] = field(default_factory=set)
    _columns: dict[str, list[str]] = field(default_factory=dict)
    cache: dict[tuple, object] = field(default_factory=dict)  # shared by forks: scans done once

    def has(self, name: str) -> bool:
        return name in self.tables

    def columns(self, table: str) -> list[str]:
        """The table's column names (cached)."""
        if table not in self._columns:
            self._columns[table] = [r[0] for r in self.sql(f"SELECT column_name FROM (DESCRIBE {qi(table)})")]
        return self._columns[table]

    def _ids(self, table: str, id_col: str) -> list[tuple]:
        key = ("ids", table, id_col)
        if key not in self.cache:
            self.cache[key] = self.sql(f"SELECT {qi(id_col)}, hash({qi(id_col)}) FROM {qi(table)} GROUP BY ALL")
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
        con = self.con.cursor()
        _configure(con)
        from tools.bundle.layout import add_rowid_views

        add_rowid_views(con, self.out)  # temp views are per connection
        return Bundle(self.out, self.spec, con, self.incidents, self.tables, self._columns, self.cache)

    def sql(self, query: str) -> list[tuple]:
        return self.con.execute(query).fetchall()

    def one(self, query: str) -> tuple:
        return self.con.execute(query).fetchone()

    def numpy(self, query: str) -> dict:
        return self.con.execute(query).fetchnumpy()

    def close(self) -> None:
        self.con.close()


def _configure(con) -> None:
    con.execute("SET TimeZone = 'UTC'")
    con.execute("SET enable_progress_bar = false")


def open_bundle(out: str | Path) -> Bundle:
    """Open ``out`` (spec.yaml + data.duckdb [+ incidents.json]); BundleError if it is not a bundle."""
    import duckdb

    from tools.bundle.layout import connect_bundle
    from tools.spec import SpecError, load_spec

    out = Path(out)
    if not out.is_dir():
        raise BundleError(f"{out} is not a directory; pass a bundle made by `chronoeval generate`")
    missing = [n for n in ("spec.yaml", "data.duckdb") if not (out / n).is_file()]
    if missing:
        raise BundleError(f"{out} is not a chronoeval bundle (no {' or '.join(missing)}); "
                          "pass the -o directory of `chronoeval generate`")
    try:
        spec = load_spec(out / "spec.yaml")
    except SpecError as exc:
        raise BundleError(f"{out / 'spec.yaml'} is not a valid spec: {exc}") from None
    incidents: list[dict] = []
    if (out / "incidents.json").is_file():
        try:
            doc = json.loads((out / "incidents.json").read_text())
        except json.JSONDecodeError as exc:
            raise BundleError(f"{out / 'incidents.json'} is not valid JSON (line {exc.lineno}); "
                              "regenerate the bundle") from None
        incidents = doc.get("incidents", []) if isinstance(doc, dict) else list(doc)
    try:
        con = connect_bundle(out / "data.duckdb")
    except duckdb.Error as exc:
        raise BundleError(f"{out / 'data.duckdb'} cannot be opened ({exc}); regenerate the bundle") from None
    _configure(con)
    rows = con.execute("SELECT table_schema, table_name FROM information_schema.tables").fetchall()
    tables = {t if s == "main" else f"{s}.{t}" for s, t in rows}
    from tools.bundle.layout import add_rowid_views

    add_rowid_views(con, out)  # a big world's views over Parquet get the rowid the checks order by
    return Bundle(out, spec, con, incidents, tables)
