"""Generate a bundle: spec → populations → simulated shards → Parquet → DuckDB → manifest."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Protocol

import numpy as np

from tools.bundle.atomic import atomic_output_dir
from tools.bundle.files import BASELINE_SUFFIX, DATA_DB, DATA_DIR, SPEC
from tools.bundle.files import INCIDENTS as INCIDENTS_FILE
from tools.bundle.lock import output_lock
from tools.bundle.manifest import write_manifest
from tools.common.durations import parse_duration
from tools.common.seeds import EMISSION, INCIDENTS, SIMULATION, rng_for
from tools.generate.behaviour import add_shift, build_behaviour
from tools.generate.emit import shard_table, static_table
from tools.generate.incidents.manifest import manifest as incident_manifest
from tools.generate.population import Population, build_population
from tools.generate.writers import ShardPipeline
from tools.spec.distributions import ForeignKey
from tools.spec.errors import SpecError
from tools.spec.io import dump_spec
from tools.spec.model import Spec
from tools.spec.names import scale_problems

DEFAULT_ROWS_PER_SHARD = 1_000_000
EVENT_UNITS_PER_SHARD = 20_000


class ProgressSink(Protocol):
    """Where long work reports progress (the CLI plugs a rich progress bar in here)."""

    def start(self, description: str, total: int) -> object: ...

    def advance(self, task: object, n: int) -> None: ...


class NullProgress:
    def start(self, description: str, total: int) -> object:
        return None

    def advance(self, task: object, n: int) -> None:
        pass


@dataclass
class TableSummary:
    """What one generated table holds."""

    name: str
    entity_type: str
    kind: str
    rows: int
    entities: int
    columns: list[str]
    time_min: str | None = None
    time_max: str | None = None


@dataclass
class BundleSummary:
    out: str
    spec: str
    seed: int
    scale: float
    seconds: float
    tables: list[TableSummary] = field(default_factory=list)
    stale_removed: list[tuple[str, int]] = field(default_factory=list)  # temp dirs of killed runs (path, bytes)
    engine: str = "local"
    worker_peak_rss: dict[str, int] = field(default_factory=dict)  # dask: bytes per worker address

    @property
    def total_rows(self) -> int:
        return sum(t.rows for t in self.tables)


def generation_order(spec: Spec) -> list[str]:
    """Entity types ordered so every foreign-key parent comes before its children."""
    deps = {e.name: {a.dist.entity for a in e.attributes if isinstance(a.dist, ForeignKey)} for e in spec.entities}
    order: list[str] = []
    while len(order) < len(deps):
        ready = [n for n in deps if n not in order and deps[n] <= set(order)]
        if not ready:
            raise ValueError("foreign-key relations form a cycle")
        order += ready
    return order


def build_populations(spec: Spec, seed: int, scale: float) -> dict[str, Population]:
    """All entity populations (ids, attributes, units), parents first."""
    pops: dict[str, Population] = {}
    for name in generation_order(spec):
        pops[name] = build_population(spec, spec.entity(name), seed, scale, pops)
    return pops


INCIDENT_SHARDS = 1_000_000  # shard numbers of incident-added units (own seeds, never mixed with base)


def shard_plan(pop: Population, rows_per_shard: int) -> list[tuple[int, np.ndarray]]:
    """(shard number, unit indices) per shard: a fixed function of the spec and scale, so shards
    regenerate alone. Units added by incidents get their own shards after the base ones."""
    em = pop.etype.emission
    n = pop.base_units
    if em.kind == "periodic":
        span = float(np.mean(pop.unit_t1[:n] - pop.unit_t0[:n])) if n else 1.0
        per = max(1, int(rows_per_shard // max(span / parse_duration(em.cadence), 1)))
    else:
        per = EVENT_UNITS_PER_SHARD
    plan = [(k, np.arange(i, min(i + per, n))) for k, i in enumerate(range(0, n, per))]
    plan += [(INCIDENT_SHARDS + k, np.arange(i, min(i + per, pop.n_units)))
             for k, i in enumerate(range(n, pop.n_units, per))]
    return plan


def _time_range(table, column: str) -> tuple:
    import pyarrow.compute as pc

    ts = table.column(column)
    return pc.min(ts).as_py(), pc.max(ts).as_py()


def write_tables(spec: Spec, out_dir: Path, seed: int, scale: float, progress: ProgressSink,
                 rows_per_shard: int = DEFAULT_ROWS_PER_SHARD, with_baseline: bool = False,
                 ) -> tuple[list[TableSummary], list[dict]]:
    """Generate every table into ``out_dir/data/<table>.parquet`` and ``out_dir/data.duckdb``, shard by
    shard (writing overlaps generation on background threads), with the spec's incidents injected.

    ``with_baseline`` also writes the same world without incidents (``<table>__baseline.parquet``,
    DuckDB schema ``baseline``). Returns the table summaries and the incident records."""
    from tools.generate.incidents.inject import Injector
    from tools.generate.incidents.manifest import incident_records
    from tools.generate.incidents.resolve import entity_labels, resolve_incidents

    pops = build_populations(spec, seed, scale)
    incidents = resolve_incidents(spec, pops, seed)  # may add flash-crowd entities after the base ones
    start_epoch = spec.start_dt.timestamp()
    injector = Injector(incidents, {n: len(p.ids) for n, p in pops.items()}, start_epoch) if incidents else None
    plans = {n: shard_plan(p, rows_per_shard) for n, p in pops.items() if p.etype.emission}
    passes = [(injector, "")] + ([(None, BASELINE_SUFFIX)] if with_baseline and injector else [])
    total = sum(p.n_units + (p.base_units if with_baseline and injector else 0) for n, p in pops.items() if n in plans)
    task = progress.start(f"generating {spec.name}", total)
    pipe = ShardPipeline(out_dir / DATA_DIR, out_dir / DATA_DB)
    pending: list[tuple] = []
    try:
        for inj, suffix in passes:
            for name in generation_order(spec):
                pop, e = pops[name], spec.entity(name)
                static_name = e.static_table_name
                if static_name:
                    table = static_table(pop, None if inj else pop.base_entities)
                    pipe.put(static_name + suffix, table)
                    pending.append((static_name + suffix, name, "static", table.num_rows, table.column_names, None, None))
                if not e.emission:
                    continue
                behaviour = build_behaviour(pop) if e.states else None
                for inc in inj.for_type(name, "shifts_behaviour") if inj and behaviour else []:
                    add_shift(behaviour, pop, inc.entities, inc.start, inc.end, inc.model.transitions,
                              inc.model.dwell)
                tmin = tmax = None
                columns: list[str] = []
                for k, units in plans[name]:
                    if inj is None and k >= INCIDENT_SHARDS:
                        continue
                    table = shard_table(pop, behaviour, units, start_epoch, rng_for(seed, name, SIMULATION, k),
                                        rng_for(seed, name, EMISSION, k), inj, rng_for(seed, name, INCIDENTS, k))
                    if table.num_rows:
                        pipe.put(e.table_name + suffix, table)
                        lo, hi = _time_range(table, e.emission.timestamp_column)
                        tmin, tmax = min(lo, tmin or lo), max(hi, tmax or hi)
                        columns = table.column_names
                    progress.advance(task, len(units))
                kind = "metrics" if e.emission.kind == "periodic" else "events"
                n_ent = len(pop.ids) if inj else pop.base_entities
                pending.append((e.table_name + suffix, name, kind, n_ent, columns,
                                tmin.isoformat() if tmin else None, tmax.isoformat() if tmax else None))
    finally:
        pipe.close()
    tables = [TableSummary(t, n, k, pipe.rows(t), ents, cols, lo, hi) for t, n, k, ents, cols, lo, hi in pending]
    records = incident_records(spec, incidents, entity_labels(pops), injector)
    return tables, records


def generate_bundle(spec: Spec, out: str | Path, *, seed: int | None = None, scale: float = 1.0,
                    force: bool = False, progress: ProgressSink | None = None,
                    rows_per_shard: int = DEFAULT_ROWS_PER_SHARD, with_baseline: bool = False,
                    finalize: Callable[[Path], None] | None = None, engine: str = "local",
                    scheduler: str | None = None, client=None, view_threshold_rows: int | None = None,
                    data_url: str | None = None) -> BundleSummary:
    """Write ``spec.yaml``, ``data/*.parquet``, ``data.duckdb``, ``incidents.json`` and ``manifest.json``.

    Everything is built in a temp directory and renamed into place, so a failure leaves nothing.
    The same spec, seed and scale give byte-identical Parquet files. ``finalize(tmp_dir)`` runs on
    the complete bundle before the rename (the CLI runs the checks there), so its files are part
    of the atomic bundle and of manifest.json. ``out`` is locked for the whole run (a second writer
    gets ``LockHeldError`` at once); temp dirs left by killed runs are removed and listed in the summary.

    ``engine="dask"`` runs the shards as dask.distributed tasks (on ``client``, else on the cluster at
    ``scheduler``, else on a LocalCluster) and writes ``data/<table>/part-NNNNN.parquet``: the same rows
    as the local engine; above ``view_threshold_rows`` rows data.duckdb holds views over the parts.
    ``data_url`` (dask only) writes the parts there instead (tools/generate/remote.py: object stores).
    """
    if engine not in ("local", "dask"):
        raise ValueError(f"unknown engine {engine!r}; use local or dask")
    if scale <= 0:
        raise ValueError(f"scale must be > 0 (got {scale})")
    if problems := scale_problems(spec, scale):
        raise SpecError(f"{spec.name} at --scale {scale:g}", problems)
    seed = spec.seed if seed is None else seed
    resolved = spec.model_copy(update={"seed": seed})
    progress = progress or NullProgress()
    began = time.perf_counter()
    out = Path(out)
    with output_lock(out) as lock, atomic_output_dir(out, force) as tmp:
        data = tmp / DATA_DIR
        data.mkdir()
        (tmp / SPEC).write_text(dump_spec(resolved))
        if engine == "dask":
            tables, records, summary_extra = _dask_tables(resolved, tmp, seed, scale, progress, rows_per_shard,
                                                          with_baseline, scheduler, client, view_threshold_rows,
                                                          data_url)
        else:
            tables, records = write_tables(resolved, tmp, seed, scale, progress, rows_per_shard, with_baseline)
            summary_extra = {}
        (tmp / INCIDENTS_FILE).write_text(json.dumps(incident_manifest(resolved, seed, records), indent=2) + "\n")
        summary = BundleSummary(str(out), spec.name, seed, scale, 0.0, tables,
                                [(str(p), n) for p, n in lock.stale_removed], **summary_extra)
        if finalize is not None:
            finalize(tmp)
        write_manifest(tmp, {"spec": spec.name, "seed": seed, "scale": scale, **({"engine": engine} if engine != "local" else {}),
                             "tables": {t.name: {k: v for k, v in asdict(t).items() if k != "name"} for t in tables}})
    summary.seconds = round(time.perf_counter() - began, 3)
    return summary


def _dask_tables(spec: Spec, tmp: Path, seed: int, scale: float, progress: ProgressSink, rows_per_shard: int,
                 with_baseline: bool, scheduler: str | None, client, view_threshold_rows: int | None,
                 data_url: str | None = None):
    """``write_tables`` on a dask cluster (a LocalCluster unless ``client``/``scheduler`` is given)."""
    from tools.generate.distributed import (
        VIEW_THRESHOLD_ROWS,
        cluster_client,
        dask_write_tables,
        worker_peak_rss,
    )

    own = cluster = None
    if client is None:
        own, cluster = cluster_client(scheduler)
    try:
        cl = client or own
        tables, records = dask_write_tables(spec, tmp, seed, scale, progress, rows_per_shard, with_baseline, cl,
                                            view_threshold_rows=VIEW_THRESHOLD_ROWS if view_threshold_rows is None
                                            else view_threshold_rows, data_url=data_url)
        return tables, records, {"engine": "dask", "worker_peak_rss": worker_peak_rss(cl)}
    finally:
        if own is not None:
            own.close()
        if cluster is not None:
            cluster.close()
