"""Benchmark: generate a pack scaled to N rows end to end (Parquet + DuckDB), against a yardstick.

The yardstick draws the same number of raw normal values (rows x value columns) with numpy and
writes them to Parquet with the same options: what this machine can do at best. Each side runs in
its own process so peak RSS is measured per side.

    python bench/bench_generate.py --rows 10000000 [--pack iot] [--short] [--flat 30000000] [--incidents [--repeat 3]]

With --incidents it also times generation with the pack's incidents injected and the checks run
(tools.checks.run_checks) against generation without incidents and prints the overhead:
``incidents: without <s>s, with injection + checks <s>s (checks <s>s): +<p>%`` (with --repeat N: one
such line per pair of runs, then the medians), and the same overhead in CPU time (less sensitive to
other load on the machine than wall time).

The last line is: rows=<n> seconds=<s> rows_per_s=<r> peak_rss_mb=<m> ratio_vs_raw=<x>
"""

from __future__ import annotations

import argparse
import json
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def rows_at_scale_one(spec) -> tuple[int, int]:
    """Rows and value columns (numeric columns) the spec's periodic tables produce at scale 1."""
    from tools.common.durations import parse_duration
    from tools.generate import build_populations

    rows, values = 0, 0
    for name, pop in build_populations(spec, spec.seed, 1.0).items():
        e = pop.etype
        if e.emission is None:
            continue
        if e.emission.kind != "periodic":
            raise SystemExit(f"bench needs a pack with periodic tables only; '{name}' is an event log")
        cad = parse_duration(e.emission.cadence)
        rows += int(sum(-(-t1 // cad) - -(-t0 // cad) for t0, t1 in zip(pop.unit_t0, pop.unit_t1, strict=True)))
        values = max(values, sum(1 for m in e.measurements if not m.hidden))
    return rows, values


def child_generate(pack: str, scale: float, out: str, mode: str = "plain") -> None:
    """mode: plain (incidents stripped), incidents (injected), checked (injected + tools.checks)."""
    from knowledge.packs import resolve_spec
    from tools.generate import generate_bundle

    spec = resolve_spec(pack)
    if mode == "plain":
        spec = spec.model_copy(update={"incidents": []})
    began, cpu = time.perf_counter(), time.process_time()
    summary = generate_bundle(spec, out, scale=scale, force=True)
    checks = 0.0
    if mode == "checked":
        from tools.checks import run_checks

        t = time.perf_counter()
        run_checks(Path(out))
        checks = time.perf_counter() - t
    seconds = time.perf_counter() - began
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"rows": summary.total_rows, "seconds": seconds, "rss": rss, "checks": checks,
                      "cpu": time.process_time() - cpu}))


def child_raw(rows: int, columns: int, out: str) -> None:
    import numpy as np
    import pyarrow as pa
    import pyarrow.parquet as pq

    from tools.generate.writers import PARQUET_OPTIONS

    began = time.perf_counter()
    rng = np.random.default_rng(0)
    shard = 1_000_000
    schema = pa.schema([(f"v{i}", pa.float64()) for i in range(columns)])
    with pq.ParquetWriter(out, schema, use_dictionary=False, **PARQUET_OPTIONS) as w:
        for start in range(0, rows, shard):
            n = min(shard, rows - start)
            w.write_table(pa.table({f"v{i}": rng.standard_normal(n) for i in range(columns)}, schema=schema))
    seconds = time.perf_counter() - began
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"rows": rows, "seconds": seconds, "rss": rss}))


def run_child(*args: str) -> dict:
    res = subprocess.run([sys.executable, __file__, *args], capture_output=True, text=True, cwd=ROOT)
    if res.returncode != 0:
        raise SystemExit(f"benchmark child failed:\n{res.stderr}")
    return json.loads(res.stdout.strip().splitlines()[-1])


def measure(pack: str, rows: int, mode: str = "plain", yardstick: bool = True) -> tuple[dict, dict | None, float, int]:
    """Generate ``rows`` rows of ``pack`` and (unless ``yardstick`` is False) the yardstick, each in
    its own process."""
    from knowledge.packs import resolve_spec

    base_rows, columns = rows_at_scale_one(resolve_spec(pack))
    scale = rows / base_rows
    tmp = Path(tempfile.mkdtemp(prefix="chronoeval-bench-"))
    try:
        gen = run_child("--child", "generate", pack, repr(scale), str(tmp / "bundle"), mode)
        raw = run_child("--child", "raw", str(gen["rows"]), str(columns), str(tmp / "raw.parquet")) \
            if yardstick else None
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return gen, raw, scale, columns


def incident_overhead(pack: str, rows: int, repeat: int) -> None:
    """Time generation with incidents injected and the checks run vs without incidents, ``repeat``
    times alternately (each run in its own process); print every pair and the medians."""
    from importlib.util import find_spec
    from statistics import median

    mode = "checked" if find_spec("tools.checks") else "incidents"
    what = "injection" + " + checks" * (mode == "checked")
    pairs = []
    for i in range(repeat):
        inc = measure(pack, rows, mode, yardstick=False)[0]
        plain = measure(pack, rows, "plain", yardstick=False)[0]
        pairs.append((plain["seconds"], inc["seconds"], inc["checks"], inc["seconds"] / plain["seconds"] - 1,
                      inc["cpu"] / plain["cpu"] - 1))
        if repeat > 1:
            print(f"incidents run {i + 1}/{repeat}: without {pairs[-1][0]:.2f}s, with {what} {pairs[-1][1]:.2f}s "
                  f"(checks {pairs[-1][2]:.2f}s): {100 * pairs[-1][3]:+.0f}% (CPU time {100 * pairs[-1][4]:+.0f}%)")
    plain_s, inc_s, checks_s, extra, extra_cpu = (median(p[k] for p in pairs) for k in range(5))
    print(f"incidents: without {plain_s:.2f}s, with {what} {inc_s:.2f}s (checks {checks_s:.2f}s): "
          f"{100 * extra:+.0f}%" + (f" (medians of {repeat} paired runs)" if repeat > 1 else ""))
    print(f"incidents: CPU time (all threads of the process) {100 * extra_cpu:+.0f}%")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rows", type=int, default=10_000_000, help="target rows (default 10M)")
    ap.add_argument("--pack", default="iot", help="pack or spec path (periodic tables only)")
    ap.add_argument("--short", action="store_true", help="CI smoke mode: 300k rows")
    ap.add_argument("--incidents", action="store_true", help="also time injection (+ checks) vs none")
    ap.add_argument("--repeat", type=int, default=1, metavar="N",
                    help="with --incidents: N alternating runs with and without, medians reported (default 1)")
    ap.add_argument("--flat", type=int, metavar="ROWS", help="also run ROWS rows and report peak-RSS growth")
    ap.add_argument("--child", nargs="+", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.child:
        kind, *rest = a.child
        if kind == "generate":
            child_generate(rest[0], float(rest[1]), rest[2], rest[3] if len(rest) > 3 else "plain")
        else:
            child_raw(int(rest[0]), int(rest[1]), rest[2])
        return
    rows = 300_000 if a.short else a.rows
    if a.incidents:
        incident_overhead(a.pack, rows, a.repeat)
    if a.flat:
        big, _, _, _ = measure(a.pack, a.flat)
    gen, raw, scale, columns = measure(a.pack, rows)
    ratio = gen["seconds"] / raw["seconds"]
    print(f"pack={a.pack} scale={scale:.3f} value_columns={columns}")
    print(f"generate: {gen['seconds']:.2f}s peak RSS {gen['rss']:.0f} MB; "
          f"raw numpy+parquet yardstick: {raw['seconds']:.2f}s peak RSS {raw['rss']:.0f} MB")
    if a.flat:
        print(f"memory: {big['rows']} rows peak RSS {big['rss']:.0f} MB vs {gen['rows']} rows {gen['rss']:.0f} MB "
              f"(growth {100 * (big['rss'] / gen['rss'] - 1):+.1f}%), {big['seconds']:.2f}s")
    print(f"rows={gen['rows']} seconds={gen['seconds']:.2f} rows_per_s={gen['rows'] / gen['seconds']:.0f} "
          f"peak_rss_mb={gen['rss']:.0f} ratio_vs_raw={ratio:.2f}")


if __name__ == "__main__":
    main()
