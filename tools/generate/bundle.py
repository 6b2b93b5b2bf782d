"""Generate a bundle: spec → populations → simulated shards → Parquet → DuckDB → manifest."""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Protocol

import numpy as np

from tools.generate.atomic import atomic_output_dir
from tools.generate.behaviour import build_behaviour
from tools.generate.emit import shard_table, static_table
from tools.generate.population import Population, build_population
from tools.generate.seeds import EMISSION, SIMULATION, rng_for
from tools.generate.writers import ShardPipeline, write_manifest
from tools.spec.distributions import ForeignKey
from tools.spec.durations import parse_duration
from tools.spec.io import dump_spec
from tools.spec.model import Spec

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


def shard_plan(pop: Population, rows_per_shard: int) -> list[np.ndarray]:
    """Unit index ranges per shard: a fixed function of the spec and scale, so shards regenerate alone."""
    em = pop.etype.emission
    if em.kind == "periodic":
        span = float(np.mean(pop.unit_t1 - pop.unit_t0)) if pop.n_units else 1.0
        per = max(1, int(rows_per_shard // max(span / parse_duration(em.cadence), 1)))
    else:
        per = EVENT_UNITS_PER_SHARD
    return [np.arange(i, min(i + per, pop.n_units)) for i in range(0, pop.n_units, per)]


def _time_range(table, column: str) -> tuple:
    import pyarrow.compute as pc

    ts = table.column(column)
    return pc.min(ts).as_py(), pc.max(ts).as_py()


def write_tables(spec: Spec, out_dir: Path, seed: int, scale: float, progress: ProgressSink,
                 rows_per_shard: int = DEFAULT_ROWS_PER_SHARD) -> list[TableSummary]:
    """Generate every table into ``out_dir/data/<table>.parquet`` and ``out_dir/data.duckdb``,
    shard by shard (writing overlaps generation on a background thread)."""
    pops = build_populations(spec, seed, scale)
    start_epoch = spec.start_dt.timestamp()
    plans = {n: shard_plan(p, rows_per_shard) for n, p in pops.items() if p.etype.emission}
    task = progress.start(f"generating {spec.name}", sum(p.n_units for n, p in pops.items() if n in plans))
    pipe = ShardPipeline(out_dir / "data", out_dir / "data.duckdb")
    pending: list[tuple] = []
    try:
        for name in generation_order(spec):
            pop, e = pops[name], spec.entity(name)
            static_name = e.static_table if e.emission else e.table_name
            if static_name:
                table = static_table(pop)
                pipe.put(static_name, table)
                pending.append((static_name, name, "static", len(pop.ids), table.column_names, None, None))
            if not e.emission:
                continue
            behaviour = build_behaviour(pop) if e.states else None
            tmin = tmax = None
            columns: list[str] = []
            for k, units in enumerate(plans[name]):
                table = shard_table(pop, behaviour, units, start_epoch, rng_for(seed, name, SIMULATION, k),
                                    rng_for(seed, name, EMISSION, k))
                if table.num_rows:
                    pipe.put(e.table_name, table)
                    lo, hi = _time_range(table, e.emission.timestamp_column)
                    tmin, tmax = min(lo, tmin or lo), max(hi, tmax or hi)
                    columns = table.column_names
                progress.advance(task, len(units))
            kind = "metrics" if e.emission.kind == "periodic" else "events"
            pending.append((e.table_name, name, kind, len(pop.ids), columns,
                            tmin.isoformat() if tmin else None, tmax.isoformat() if tmax else None))
    finally:
        pipe.close()
    return [TableSummary(t, n, k, pipe.rows(t), ents, cols, lo, hi) for t, n, k, ents, cols, lo, hi in pending]


def generate_bundle(spec: Spec, out: str | Path, *, seed: int | None = None, scale: float = 1.0,
                    force: bool = False, progress: ProgressSink | None = None,
                    rows_per_shard: int = DEFAULT_ROWS_PER_SHARD) -> BundleSummary:
    """Write ``spec.yaml``, ``data/*.parquet``, ``data.duckdb`` and ``manifest.json`` to ``out``.

    Everything is built in a temp directory and renamed into place, so a failure leaves nothing.
    The same spec, seed and scale give byte-identical Parquet files.
    """
    if scale <= 0:
        raise ValueError(f"scale must be > 0 (got {scale})")
    seed = spec.seed if seed is None else seed
    resolved = spec.model_copy(update={"seed": seed})
    progress = progress or NullProgress()
    began = time.perf_counter()
    out = Path(out)
    with atomic_output_dir(out, force) as tmp:
        data = tmp / "data"
        data.mkdir()
        (tmp / "spec.yaml").write_text(dump_spec(resolved))
        tables = write_tables(resolved, tmp, seed, scale, progress, rows_per_shard)
        summary = BundleSummary(str(out), spec.name, seed, scale, 0.0, tables)
        write_manifest(tmp, {"spec": spec.name, "seed": seed, "scale": scale,
                             "tables": {t.name: {k: v for k, v in asdict(t).items() if k != "name"} for t in tables}})
    summary.seconds = round(time.perf_counter() - began, 3)
    return summary
