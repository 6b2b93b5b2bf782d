"""The held-back horizon of a bundle: the last part of every table, kept out of what agents see.

``split_holdout(bundle, "1d")`` moves the rows at or after ``cut = end - horizon`` of every emitting
table from ``data/<table>.parquet`` and ``data.duckdb`` into ``holdout/<table>.parquet`` and writes
``holdout/holdout.json`` (a partitioned bundle, ``--engine dask``, is split part by part: its visible rows
stay in ``data/<table>/part-NNNNN.parquet``, its held-back rows go to the same single holdout file, and
a data.duckdb view over the parts needs no change). Agents-under-test get copies of ``data/`` or ``data.duckdb`` only
(tools/harness/workspace.py), so the held-back rows never reach them; forecast questions are
answered from ``holdout/`` (their gold SQL reads ``holdout/<table>.parquet`` through DuckDB's
``file_search_path``, set to the bundle). Every other family is computed on the visible data and
its windows end at ``cut`` (:func:`visible_catalog`).

Nothing is held back unless asked (``chronoeval queries --holdout 1d`` or the query plan's
``holdout``): a bundle built without it keeps its tables byte for byte.
"""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
from datetime import timedelta
from pathlib import Path
from typing import Any

from tools.bundle.files import DATA_DB, DATA_DIR, HOLDOUT_DIR, HOLDOUT_DOC, SPEC


class HoldoutError(ValueError):
    """Bad input for the held-back horizon or the extra families (too long a horizon, another one
    already held back, an unknown family, forecast without a horizon): a user error."""


def read_holdout(bundle: Path | str) -> dict[str, Any] | None:
    """The bundle's holdout/holdout.json, or None when nothing is held back."""
    p = Path(bundle) / HOLDOUT_DIR / HOLDOUT_DOC
    return json.loads(p.read_text()) if p.is_file() else None


def visible_catalog(catalog, hold: dict[str, Any]):
    """The catalog with every table ending at the cut (questions over visible data stay in it)."""
    from datetime import datetime

    cut = datetime.fromisoformat(hold["cut"])
    catalog.tables = {k: dataclasses.replace(v, end=min(v.end, cut)) for k, v in catalog.tables.items()}
    return catalog


def holdout_path(table: str) -> str:
    """The held-back rows of ``table``, relative to the bundle (what gold SQL reads)."""
    return f"{HOLDOUT_DIR}/{table}.parquet"


def split_holdout(bundle: Path | str, horizon: str) -> dict[str, Any]:
    """Hold back the last ``horizon`` (a duration such as ``1d``) of every emitting table.

    Idempotent for the same horizon; a different horizon on a bundle that already holds one back is
    an error (regenerate the bundle). Returns the holdout.json document."""
    import duckdb
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    from tools.bundle.atomic import atomic_write_text
    from tools.bundle.layout import is_partitioned, table_files
    from tools.bundle.manifest import refresh_manifest
    from tools.common.durations import parse_duration
    from tools.generate.writers import PARQUET_OPTIONS
    from tools.queries.catalog import build_catalog
    from tools.queries.context import iso
    from tools.spec.io import load_spec
    from tools.sqlsafe import quote_ident, quote_literal

    bundle = Path(bundle)
    old = read_holdout(bundle)
    if old is not None:
        if old["horizon"] == horizon:
            return old
        raise HoldoutError(f"{bundle} already holds back {old['horizon']}; regenerate it to hold back {horizon}")
    spec = load_spec(bundle / SPEC)
    cat = build_catalog(spec)
    seconds = parse_duration(horizon)
    if not 0 < seconds <= spec.horizon_seconds / 2:
        raise HoldoutError(f"--holdout {horizon}: the held-back horizon must be positive and at most half of the "
                           f"spec's horizon ({spec.horizon}); pass e.g. --holdout 1d")
    missing = [n for n in cat.tables if not all(p.is_file() for p in table_files(bundle, n))]
    if missing:
        raise HoldoutError(f"{table_files(bundle, missing[0])[0]}: table {missing[0]} has no Parquet data; "
                           f"regenerate the bundle (`chronoeval generate SPEC -o {bundle} --force`)")
    end = spec.start_dt + timedelta(seconds=spec.horizon_seconds)
    cut = end - timedelta(seconds=seconds)
    hdir = bundle / HOLDOUT_DIR
    tmp = bundle / f".{HOLDOUT_DIR}.tmp-{os.getpid()}"
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir()
    db_tmp = bundle / f".data.duckdb.tmp-{os.getpid()}"
    shutil.copyfile(bundle / DATA_DB, db_tmp)
    doc: dict[str, Any] = {"horizon": horizon, "cut": iso(cut), "end": iso(end), "tables": {}}
    con = duckdb.connect(str(db_tmp))
    try:
        con.execute("SET TimeZone = 'UTC'")
        visible_files = {}
        views = {r[0] for r in con.execute("SELECT table_name FROM information_schema.tables "
                                           "WHERE table_schema = 'main' AND table_type = 'VIEW'").fetchall()}
        for name, t in sorted(cat.tables.items()):
            if is_partitioned(bundle, name):  # part by part: one part in memory at a time
                held_rows, kept_rows = _split_parts(table_files(bundle, name), t.time, cut, tmp / f"{name}.parquet",
                                                    visible_files)
                if name not in views:  # a view over the parts sees the rewritten parts
                    con.execute(f"DELETE FROM {quote_ident(name)} WHERE {quote_ident(t.time)} >= "
                                f"TIMESTAMPTZ {quote_literal(iso(cut))}")
                doc["tables"][name] = {"file": holdout_path(name), "rows": held_rows, "visible_rows": kept_rows,
                                       "entity": t.entity, "time": t.time}
                continue
            src = bundle / DATA_DIR / f"{name}.parquet"
            table = pq.read_table(src)
            late = pc.greater_equal(table[t.time], pc.cast(_scalar_ts(cut), table[t.time].type))
            held, kept = table.filter(late), table.filter(pc.invert(late))
            opts = dict(PARQUET_OPTIONS)
            pq.write_table(held, tmp / f"{name}.parquet", **opts)
            vis = src.with_name(f".{name}.visible-{os.getpid()}.parquet")
            pq.write_table(kept, vis, **opts)
            visible_files[src] = vis
            con.execute(f"DELETE FROM {quote_ident(name)} WHERE {quote_ident(t.time)} >= "
                        f"TIMESTAMPTZ {quote_literal(iso(cut))}")
            doc["tables"][name] = {"file": holdout_path(name), "rows": held.num_rows, "visible_rows": kept.num_rows,
                                   "entity": t.entity, "time": t.time}
        con.execute("CHECKPOINT")
    except BaseException:
        con.close()
        shutil.rmtree(tmp, ignore_errors=True)
        db_tmp.unlink(missing_ok=True)
        for vis in locals().get("visible_files", {}).values():
            vis.unlink(missing_ok=True)
        raise
    con.close()
    atomic_write_text(tmp / HOLDOUT_DOC, json.dumps(doc, indent=2) + "\n")
    for src, vis in visible_files.items():
        os.replace(vis, src)
    os.replace(db_tmp, bundle / DATA_DB)
    os.replace(tmp, hdir)
    refresh_manifest(bundle, [DATA_DIR, DATA_DB, HOLDOUT_DIR])
    return doc


def _split_parts(parts: list[Path], time: str, cut, held_path: Path, visible_files: dict) -> tuple[int, int]:
    """Split a partitioned table at ``cut``: its late rows, in part order, go to one ``held_path`` file
    (what forecast gold SQL reads) and each part's other rows to a temp file that replaces the part
    (``visible_files``: part → temp file). Returns (held rows, visible rows)."""
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    from tools.generate.writers import PARQUET_OPTIONS

    writer, held_rows, kept_rows = None, 0, 0
    try:
        for part in parts:
            table = pq.read_table(part)
            late = pc.greater_equal(table[time], pc.cast(_scalar_ts(cut), table[time].type))
            held, kept = table.filter(late), table.filter(pc.invert(late))
            if writer is None:
                writer = pq.ParquetWriter(held_path, held.schema, **PARQUET_OPTIONS)
            writer.write_table(held)
            dict_cols = [f.name for f in kept.schema if pa.types.is_string(f.type)]  # as the part writer does
            vis = part.with_name(f".{part.stem}.visible-{os.getpid()}.parquet")
            pq.write_table(kept, vis, use_dictionary=dict_cols, **PARQUET_OPTIONS)
            visible_files[part] = vis
            held_rows, kept_rows = held_rows + held.num_rows, kept_rows + kept.num_rows
    finally:
        if writer is not None:
            writer.close()
    return held_rows, kept_rows


def _scalar_ts(d):
    import pyarrow as pa

    return pa.scalar(d, type=pa.timestamp("us", tz="UTC"))
