"""What candidate enumerators see: the catalog, the data (SQL for exploration), incidents, a seed.

Exploration (percentiles, frequent values, entity lists) goes through DuckDB so it stays fast on
large tables; the answers themselves come from the two executors.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import duckdb
import numpy as np

from tools.bundle.opened import open_bundle
from tools.queries.catalog import Catalog, TableView, build_catalog
from tools.queries.reference.frames import Frames
from tools.queries.spec import Window
from tools.queries.sql.common import ident
from tools.spec.model import Spec
from tools.sqlsafe import quote_literal


def iso(d: datetime) -> str:
    """UTC ISO-8601 with a ``Z``."""
    return d.astimezone(UTC).isoformat().replace("+00:00", "Z")


@dataclass
class SynthContext:
    """Everything candidate enumerators need; ``rng`` is the only randomness."""

    bundle: Path
    spec: Spec
    catalog: Catalog
    frames: Frames
    root: duckdb.DuckDBPyConnection  # the bundle's connection; threads query through ``con``
    rng: np.random.Generator
    incidents: list[dict[str, Any]] = field(default_factory=list)
    holdout: dict[str, Any] | None = None  # holdout/holdout.json: the held-back horizon (forecast family)
    memo: dict = field(default_factory=dict)  # enumerators' shared cache of exploration results
    pandas_lock: threading.Lock = field(default_factory=threading.Lock)
    _local: threading.local = field(default_factory=threading.local)
    _cursors: list = field(default_factory=list)
    _prefetch: threading.Thread | None = None

    def cursor(self) -> duckdb.DuckDBPyConnection:
        """This thread's DuckDB cursor (UTC session): a DuckDB connection must not be used by two
        threads at once, and enumeration, evaluation and rendering run on different threads."""
        cur = getattr(self._local, "cursor", None)
        if cur is None:
            cur = self.root.cursor()
            cur.execute("SET TimeZone = 'UTC'")
            if self.holdout is not None:  # forecast gold SQL reads holdout/<table>.parquet
                cur.execute(f"SET file_search_path = {quote_literal(str(self.bundle.resolve()))}")
            for t in self.catalog.tables.values():  # composite keys: the keyed views synthesis reads (per cursor)
                if t.entity_parts:
                    from tools.queries.composite import keyed_view_ddl

                    cur.execute(keyed_view_ddl(t))
            self._local.cursor = cur
            self._cursors.append(cur)
        return cur

    @property
    def con(self) -> duckdb.DuckDBPyConnection:
        """The calling thread's cursor (see ``cursor``)."""
        return self.cursor()

    def prefetch(self) -> None:
        """Load every table's pandas frame in a background thread (under ``pandas_lock``) while
        candidate enumeration works in DuckDB."""
        def load() -> None:
            try:
                with self.pandas_lock:
                    for t in self.catalog.tables.values():
                        self.frames.ordered(t.name, t.entity, t.time)
            except Exception:  # noqa: BLE001 - a damaged table: the main thread loads it again and reports it
                pass

        self._prefetch = threading.Thread(target=load, name="chronoeval-prefetch", daemon=True)
        self._prefetch.start()

    def close(self) -> None:
        """Wait for the prefetch and close every DuckDB handle."""
        if self._prefetch is not None:
            self._prefetch.join()
        for cur in self._cursors:
            cur.close()
        self.root.close()

    def scalar(self, sql: str) -> Any:
        """First column of the first row of a query."""
        if sql not in self.memo:
            row = self.con.execute(sql).fetchone()
            self.memo[sql] = None if row is None else row[0]
        return self.memo[sql]

    def quantile(self, table: str, column: str, p: float, where: str = "TRUE") -> float | None:
        """The ``p`` quantile of a column (nulls ignored)."""
        return self.scalar(f"SELECT quantile_cont({ident(column)}, {p}) FROM {ident(table)} WHERE {where}")

    def frequent(self, table: str, column: str, limit: int = 20) -> list[tuple[Any, int]]:
        """Most frequent non-null values with counts, ties by value."""
        key = ("frequent", table, column, limit)
        if key not in self.memo:
            self.memo[key] = self.con.execute(
                f"SELECT {ident(column)}, count(*) n FROM {ident(table)} WHERE {ident(column)} IS NOT NULL "
                f"GROUP BY 1 ORDER BY n DESC, 1 LIMIT {limit}").fetchall()
        return self.memo[key]

    def windows(self, t: TableView, hours: float, count: int = 3) -> list[Window]:
        """``count`` hour-aligned windows of ``hours`` inside the data range, placed by seed."""
        span = (t.end - t.start).total_seconds() / 3600
        slots = int((span - hours) // 1) + 1
        if slots <= 0:
            return []
        picks = sorted(set(int(x) for x in self.rng.choice(slots, size=min(count, slots), replace=False)))
        return [Window(start=iso(t.start + timedelta(hours=h)), end=iso(t.start + timedelta(hours=h + hours)))
                for h in picks]

    def pick(self, items: list, k: int = 1) -> list:
        """``k`` distinct items chosen by seed, in their original order."""
        if not items:
            return []
        idx = sorted(self.rng.choice(len(items), size=min(k, len(items)), replace=False))
        return [items[i] for i in idx]


def open_context(bundle: Path | str, seed: int = 0) -> SynthContext:
    """A context over a generated bundle (spec.yaml, data/, data.duckdb, incidents.json)."""
    from tools.queries.holdout import read_holdout, visible_catalog

    opened = open_bundle(bundle)
    bundle, spec, con, incidents = opened.out, opened.spec, opened.con, opened.incidents

    hold = read_holdout(bundle)
    catalog = build_catalog(spec)
    if hold is not None:  # questions over the visible data never reach into the held-back horizon
        con.execute(f"SET file_search_path = {quote_literal(str(Path(bundle).resolve()))}")
        catalog = visible_catalog(catalog, hold)
        incidents = [i for i in incidents if str(i.get("start", "")) < hold["cut"]]
    return SynthContext(bundle, spec, catalog, Frames(bundle), con,
                        np.random.default_rng(np.random.SeedSequence([seed, 0x51])), incidents, hold)
