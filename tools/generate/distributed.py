"""``--engine dask``: the same shards as the local engine, run as dask.distributed tasks.

The driver builds the populations, behaviours and incidents exactly as the local engine does and
ships them to the workers once per entity type; each task simulates one shard with the shard's own
seeds (``rng_for(seed, type, purpose, shard)``) and writes it as ``data/<table>/part-NNNNN.parquet``
through fsspec, so the rows are those of the local engine's shard, in the same order. What the
injector accounts per shard (realized deltas, dropped rows, touched entities) comes back with the
task result and is replayed in shard order, so incidents.json is the local engine's too.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from tools.bundle.files import BASELINE_SUFFIX, DATA_DIR
from tools.bundle.layout import part_name
from tools.common.seeds import EMISSION, INCIDENTS, SIMULATION, rng_for
from tools.generate.behaviour import add_shift, build_behaviour
from tools.generate.emit import shard_table, static_table
from tools.generate.writers import PARQUET_OPTIONS
from tools.spec.model import Spec

VIEW_THRESHOLD_ROWS = 50_000_000  # above this many rows data.duckdb holds views over the Parquet parts


class _LoggedAccounts(dict):
    """``Injector.realized`` on a worker: every ``setdefault`` hands out a fresh accumulator and logs
    it, so the driver can replay the additions one by one in shard order (same float sums)."""

    def __init__(self):
        super().__init__()
        self.log: list[tuple[tuple[str, str], list]] = []

    def setdefault(self, key, default=None):
        acc = [0.0, 0, 0]
        self.log.append((key, acc))
        return acc


@dataclass
class ShardResult:
    table: str
    part: int
    rows: int
    tmin: object = None
    tmax: object = None
    columns: list[str] = field(default_factory=list)
    realized: list = field(default_factory=list)
    dropped: dict = field(default_factory=dict)
    touched: dict = field(default_factory=dict)


def write_part(table: pa.Table, data_url: str, name: str, part: int) -> None:
    """Write one part file through fsspec (a local path or an object-store URL)."""
    import fsspec

    fs, root = fsspec.core.url_to_fs(data_url)
    folder = f"{root.rstrip('/')}/{name}"
    fs.makedirs(folder, exist_ok=True)
    dict_cols = [f.name for f in table.schema if pa.types.is_dictionary(f.type) or pa.types.is_string(f.type)]
    with fs.open(f"{folder}/{part_name(part)}", "wb") as f:
        pq.write_table(table, f, use_dictionary=dict_cols, **PARQUET_OPTIONS)


def run_shard(ctx: dict, shard: int, part: int, units: np.ndarray) -> ShardResult:
    """One task: simulate shard ``shard`` of ``ctx``'s entity type and write it as part ``part``."""
    import pyarrow.compute as pc

    seed, name, inj = ctx["seed"], ctx["entity_type"], ctx["injector"]
    if inj is not None:  # the worker's copy is shared by its tasks: account this shard alone
        inj = copy.copy(inj)
        inj.realized, inj.dropped, inj.touched, inj.last_hits = _LoggedAccounts(), {}, {}, []
    table = shard_table(ctx["pop"], ctx["behaviour"], units, ctx["start_epoch"], rng_for(seed, name, SIMULATION, shard),
                        rng_for(seed, name, EMISSION, shard), inj, rng_for(seed, name, INCIDENTS, shard))
    res = ShardResult(ctx["table"], part, table.num_rows)
    if table.num_rows:
        write_part(table, ctx["data_url"], ctx["table"], part)
        ts = table.column(ctx["time_column"])
        res.tmin, res.tmax, res.columns = pc.min(ts).as_py(), pc.max(ts).as_py(), table.column_names
    if inj is not None:
        res.realized, res.dropped = [(k, list(acc)) for k, acc in inj.realized.log], inj.dropped
        res.touched = {k: sorted(v) for k, v in inj.touched.items()}
    return res


def replay(injector, results: list[ShardResult]) -> None:
    """Add the per-shard accounts to the driver's injector in shard order, as the local engine would."""
    for r in results:
        for key, (s, n, rows) in r.realized:
            acc = injector.realized.setdefault(tuple(key), [0.0, 0, 0])
            acc[0] += s
            acc[1] += n
            acc[2] += rows
        for k, v in r.dropped.items():
            injector.dropped[k] = injector.dropped.get(k, 0) + v
        for k, v in r.touched.items():
            injector.touched.setdefault(k, set()).update(v)


class SchedulerUnreachable(ConnectionError):
    """``--scheduler`` names no reachable dask scheduler (a user error)."""


def cluster_client(scheduler: str | None, n_workers: int = 2, memory_limit: str | None = "3GB"):
    """``(client, cluster)``: a client of the scheduler at ``scheduler`` (cluster None), else of a new
    LocalCluster of ``n_workers`` single-threaded worker processes on 127.0.0.1 (no dashboard)."""
    from distributed import Client, LocalCluster

    if scheduler:
        try:
            return Client(scheduler, timeout="15s"), None
        except (OSError, TimeoutError, ValueError) as exc:
            raise SchedulerUnreachable(
                f"--scheduler {scheduler}: no dask scheduler answers there ({exc}); start one with "
                "`dask scheduler` (and workers with `dask worker ADDRESS`), or drop --scheduler to use a "
                "LocalCluster") from None
    # silence_logs=CRITICAL: task errors reach us as exceptions; heartbeats cut at shutdown are noise
    cluster = LocalCluster(n_workers=n_workers, threads_per_worker=1, processes=True, host="127.0.0.1",
                           dashboard_address=None, memory_limit=memory_limit, silence_logs=50)
    return Client(cluster), cluster


def _peak_rss() -> int:
    """This process's peak resident memory in bytes (VmHWM; ru_maxrss where /proc is missing)."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def worker_peak_rss(client) -> dict[str, int]:
    """Peak resident memory (bytes) of every worker process so far, by worker address."""
    return client.run(_peak_rss)


def dask_write_tables(spec: Spec, out_dir: Path, seed: int, scale: float, progress, rows_per_shard: int,
                      with_baseline: bool, client, data_url: str | None = None,
                      view_threshold_rows: int = VIEW_THRESHOLD_ROWS) -> tuple[list, list[dict]]:
    """The dask counterpart of ``bundle.write_tables``: same summaries and incident records, tables
    as ``data/<table>/part-NNNNN.parquet`` (under ``data_url`` when given) and ``data.duckdb``."""
    from distributed import as_completed

    from tools.generate.bundle import (
        INCIDENT_SHARDS,
        TableSummary,
        build_populations,
        generation_order,
        shard_plan,
    )
    from tools.generate.incidents.inject import Injector
    from tools.generate.incidents.manifest import incident_records
    from tools.generate.incidents.resolve import entity_labels, resolve_incidents

    data_url = data_url or str(out_dir / DATA_DIR)
    pops = build_populations(spec, seed, scale)
    incidents = resolve_incidents(spec, pops, seed)
    start_epoch = spec.start_dt.timestamp()
    injector = Injector(incidents, {n: len(p.ids) for n, p in pops.items()}, start_epoch) if incidents else None
    plans = {n: shard_plan(p, rows_per_shard) for n, p in pops.items() if p.etype.emission}
    passes = [(injector, "")] + ([(None, BASELINE_SUFFIX)] if with_baseline and injector else [])
    futures, pending, static_rows, sizes = [], [], {}, {}
    for inj, suffix in passes:
        for name in generation_order(spec):
            pop, e = pops[name], spec.entity(name)
            if e.static_table_name:
                table = static_table(pop, None if inj else pop.base_entities)
                write_part(table, data_url, e.static_table_name + suffix, 0)
                static_rows[e.static_table_name + suffix] = table.num_rows
                pending.append((e.static_table_name + suffix, name, "static", table.num_rows, table.column_names))
            if not e.emission:
                continue
            behaviour = build_behaviour(pop) if e.states else None
            for inc in inj.for_type(name, "shifts_behaviour") if inj and behaviour else []:
                add_shift(behaviour, pop, inc.entities, inc.start, inc.end, inc.model.transitions, inc.model.dwell)
            ctx = {"seed": seed, "entity_type": name, "injector": inj, "pop": pop, "behaviour": behaviour,
                   "start_epoch": start_epoch, "table": e.table_name + suffix, "data_url": data_url,
                   "time_column": e.emission.timestamp_column}
            [ctx_f] = client.scatter([ctx], broadcast=True, hash=False)
            for part, (k, units) in enumerate(plans[name]):
                if inj is None and k >= INCIDENT_SHARDS:
                    continue
                futures.append(client.submit(run_shard, ctx_f, k, part, units, pure=False,
                                             key=f"shard-{e.table_name}{suffix}-{part:05d}"))
                sizes[futures[-1].key] = len(units)
            kind = "metrics" if e.emission.kind == "periodic" else "events"
            pending.append((e.table_name + suffix, name, kind, len(pop.ids) if inj else pop.base_entities, None))
    workers = len(client.scheduler_info()["workers"])
    task = progress.start(f"generating {spec.name} on {workers} dask workers", sum(sizes.values()))
    results: dict[str, ShardResult] = {}
    for fut in as_completed(futures):  # the cluster's task stream: one tick per finished shard
        results[fut.key] = fut.result()
        progress.advance(task, sizes[fut.key])
    ordered = [results[f.key] for f in futures]
    if injector is not None:
        replay(injector, [r for r in ordered if r.table in {p[0] for p in pending if not p[0].endswith(BASELINE_SUFFIX)}])
    tables = []
    for tname, etype, kind, n_ent, cols in pending:
        mine = [r for r in ordered if r.table == tname and r.rows]
        if kind == "static":
            tables.append(TableSummary(tname, etype, kind, static_rows[tname], n_ent, cols))
            continue
        lo = min((r.tmin for r in mine), default=None)
        hi = max((r.tmax for r in mine), default=None)
        tables.append(TableSummary(tname, etype, kind, sum(r.rows for r in mine), n_ent,
                                   mine[0].columns if mine else [], lo.isoformat() if lo else None,
                                   hi.isoformat() if hi else None))
    from tools.generate.duck_views import write_duckdb

    write_duckdb(out_dir, data_url, [t.name for t in tables], views=sum(t.rows for t in tables) > view_threshold_rows)
    records = incident_records(spec, incidents, entity_labels(pops), injector)
    return tables, records

