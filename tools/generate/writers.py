"""Parquet streaming and the DuckDB file of a bundle (its manifest: tools.bundle.manifest)."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq

from tools.bundle.files import BASELINE_SUFFIX
from tools.bundle.paths import child_path
from tools.sqlsafe import quote_ident, quote_qualified

PARQUET_OPTIONS = {"compression": "zstd", "compression_level": 1, "store_schema": False,
                   "write_statistics": True}


class TableWriter:
    """Streams Arrow shards into one Parquet file with a fixed schema (first shard decides)."""

    def __init__(self, path: Path):
        self.path = path
        self.writer: pq.ParquetWriter | None = None
        self.schema: pa.Schema | None = None
        self.rows = 0

    def write(self, table: pa.Table) -> None:
        if self.writer is None:
            self.schema = table.schema
            dict_cols = [f.name for f in table.schema if pa.types.is_dictionary(f.type) or pa.types.is_string(f.type)]
            self.writer = pq.ParquetWriter(self.path, self.schema, use_dictionary=dict_cols, **PARQUET_OPTIONS)
        elif table.schema != self.schema:
            table = table.cast(self.schema)
        self.writer.write_table(table)
        self.rows += table.num_rows

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()


class DuckDBSink:
    """Appends Arrow shards to tables of one DuckDB file; dictionary columns become VARCHAR.

    DuckDB's memory grows with every Arrow insert on one connection even under a memory_limit
    (measured: +270 MB from 10M to 30M rows), so the connection is reopened every few million
    rows; that keeps peak memory flat whatever the table size.
    """

    REOPEN_ROWS = 4_000_000

    def __init__(self, db_path: Path):
        self.db_path = db_path
        self.created: set[str] = set()
        self.since_open = 0
        self.con = self._connect()

    def _connect(self) -> duckdb.DuckDBPyConnection:
        con = duckdb.connect(str(self.db_path))
        con.execute("SET enable_progress_bar = false")
        con.execute("SET memory_limit = '384MB'")
        return con

    def write(self, name: str, table: pa.Table) -> None:
        """Append to table ``name`` (``schema.table`` creates the schema on first use)."""
        if self.since_open >= self.REOPEN_ROWS:
            self.con.close()
            self.con = self._connect()
            self.since_open = 0
        cols = ", ".join(
            f"CAST({quote_ident(f.name)} AS VARCHAR) AS {quote_ident(f.name)}" if pa.types.is_dictionary(f.type)
            else quote_ident(f.name) for f in table.schema)
        self.con.register("_shard", table)
        qualified = quote_qualified(*name.split(".", 1))
        if name in self.created:
            self.con.execute(f"INSERT INTO {qualified} SELECT {cols} FROM _shard")
        else:
            if "." in name:
                self.con.execute(f"CREATE SCHEMA IF NOT EXISTS {quote_ident(name.split('.')[0])}")
            self.con.execute(f"CREATE TABLE {qualified} AS SELECT {cols} FROM _shard")
            self.created.add(name)
        self.con.unregister("_shard")
        self.since_open += table.num_rows

    def close(self) -> None:
        self.con.close()


def _duck_name(name: str) -> str:
    """``cells__baseline`` (Parquet stem) -> ``baseline.cells`` (DuckDB schema.table)."""
    if name.endswith(BASELINE_SUFFIX):
        return "baseline." + name[: -len(BASELINE_SUFFIX)]
    return name


class ShardPipeline:
    """Writes shards to Parquet and to DuckDB on two background threads while the next shard is
    generated. Both libraries release the GIL while encoding, so writing overlaps numpy work; the
    queues are short, so memory stays bounded by a few shards whatever the total size."""

    def __init__(self, data_dir: Path, db_path: Path, depth: int = 2):
        import queue
        import threading

        self.writers: dict[str, TableWriter] = {}
        self.data_dir, self.db_path = data_dir, db_path
        self.errors: list[BaseException] = []
        self.queues = [queue.Queue(maxsize=depth), queue.Queue(maxsize=depth)]
        self.threads = [threading.Thread(target=self._run, args=(q, sink), daemon=True, name=f"chronoeval-{sink}")
                        for q, sink in zip(self.queues, ("parquet", "duckdb"), strict=True)]
        for t in self.threads:
            t.start()

    def _run(self, q, sink: str) -> None:
        duck = None
        try:
            if sink == "duckdb":
                duck = DuckDBSink(self.db_path)
            while (item := q.get()) is not None:
                name, table = item
                if self.errors:
                    continue
                if duck is not None:
                    duck.write(_duck_name(name), table)
                else:
                    if name not in self.writers:
                        self.writers[name] = TableWriter(child_path(self.data_dir, name, ".parquet"))
                    self.writers[name].write(table)
        except BaseException as exc:  # surfaced to the producer on its next put/close
            self.errors.append(exc)
            while q.get() is not None:
                pass
        finally:
            if duck is not None:
                duck.close()
            else:
                for w in self.writers.values():
                    w.close()

    def put(self, name: str, table: pa.Table) -> None:
        if self.errors:
            raise self.errors[0]
        for q in self.queues:
            q.put((name, table))

    def rows(self, name: str) -> int:
        return self.writers[name].rows if name in self.writers else 0

    def close(self) -> None:
        """Flush everything; re-raise a writer failure."""
        for q in self.queues:
            q.put(None)
        for t in self.threads:
            t.join()
        if self.errors:
            raise self.errors[0]
