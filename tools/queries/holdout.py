"""The held-back horizon of a bundle: the last part of every table, kept out of what agents see.

``split_holdout(bundle, "1d")`` moves the rows at or after ``cut = end - horizon`` of every emitting
table from ``data/<table>.parquet`` and ``data.duckdb`` into ``holdout/<table>.parquet`` and writes
``holdout/holdout.json``. Agents-under-test get copies of ``data/`` or ``data.duckdb`` only
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

HOLDOUT_DIR = "holdout"


class HoldoutError(ValueError):
    """Bad input for the held-back horizon or the extra families (too long a horizon, another one
    already held back, an unknown family, forecast without a horizon): a user error."""


def read_holdout(bundle: Path | str) -> dict[str, Any] | None:
    """The bundle's holdout/holdout.json, or None when nothing is held back."""
    p = Path(bundle) / HOLDOUT_DIR / "holdout.json"
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

    from tools.generate.atomic import atomic_write_text
    from tools.generate.writers import PARQUET_OPTIONS, refresh_manifest
    from tools.queries.catalog import build_catalog
    from tools.queries.context import iso
    from tools.spec.durations import parse_duration
    from tools.spec.io import load_spec
    from tools.sqlsafe import quote_ident, quote_literal

    bundle = Path(bundle)
    old = read_holdout(bundle)
    if old is not None:
        if old["horizon"] == horizon:
            return old
        raise HoldoutError(f"{bundle} already holds back {old['horizon']}; regenerate it to hold back {horizon}")
    spec = load_spec(bundle / "spec.yaml")
    cat = build_catalog(spec)
    seconds = parse_duration(horizon)
    if not 0 < seconds <= spec.horizon_seconds / 2:
        raise HoldoutError(f"--holdout {horizon}: the held-back horizon must be positive and at most half of the "
                           f"spec's horizon ({spec.horizon}); pass e.g. --holdout 1d")
    flat = [n for n in cat.tables if not (bundle / "data" / f"{n}.parquet").is_file()]
    if flat:
        raise HoldoutError(f"{bundle / 'data' / flat[0]}: holding back needs one Parquet file per table; this bundle "
                           "is partitioned (generated with --engine dask): regenerate it with the local engine")
    end = spec.start_dt + timedelta(seconds=spec.horizon_seconds)
    cut = end - timedelta(seconds=seconds)
    hdir = bundle / HOLDOUT_DIR
    tmp = bundle / f".{HOLDOUT_DIR}.tmp-{os.getpid()}"
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir()
    db_tmp = bundle / f".data.duckdb.tmp-{os.getpid()}"
    shutil.copyfile(bundle / "data.duckdb", db_tmp)
    doc: dict[str, Any] = {"horizon": horizon, "cut": iso(cut), "end": iso(end), "tables": {}}
    con = duckdb.connect(str(db_tmp))
    try:
        con.execute("SET TimeZone = 'UTC'")
        visible_files = {}
        for name, t in sorted(cat.tables.items()):
            src = bundle / "data" / f"{name}.parquet"
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
    atomic_write_text(tmp / "holdout.json", json.dumps(doc, indent=2) + "\n")
    for src, vis in visible_files.items():
        os.replace(vis, src)
    os.replace(db_tmp, bundle / "data.duckdb")
    os.replace(tmp, hdir)
    refresh_manifest(bundle, ["data", "data.duckdb", HOLDOUT_DIR])
    return doc


def _scalar_ts(d):
    import pyarrow as pa

    return pa.scalar(d, type=pa.timestamp("us", tz="UTC"))
