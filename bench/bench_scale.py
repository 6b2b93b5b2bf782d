"""Benchmark: a world bigger than one process's comfort zone, generated with ``--engine dask``.

Generates the pack scaled to about N rows on a LocalCluster of W single-threaded worker processes
(partitioned Parquet, data.duckdb views above the threshold), then runs the checks and the question
suite on the result, each in its own process under a DuckDB memory limit. Reports wall time, peak
RSS of every dask worker and of the driver, of `check` and of `queries`, and whether the pandas and
SQL executors agreed on every question.

    nice -n 10 python bench/bench_scale.py --rows 10000000 [--workers 2] [--memory-limit 4GB]
        [--keep DIR] [--skip-check] [--skip-queries] [--views] [--questions N] [--family F,G] [--json OUT.json]

`--keep DIR` on an existing bundle (data.duckdb present) skips generation: `--keep B --skip-check` runs
only `queries` on B.

`queries` runs in its own process (`build_suite`, as `chronoeval queries OUT --memory-limit 4GB`): its
figures are the wall time, the peak RSS of that whole process (DuckDB and the pandas reference, which
streams the parts: tools/queries/stream.py), the questions kept, the executor disagreements and how
many kept questions each streaming path answered.

The last line is: rows=<n> generate_s=<s> worker_peak_mb=<max> check_s=<s> queries_s=<s> agree=<bool>
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


def _rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def stream_pass(bundle: Path) -> dict:
    """The pandas reference alone on the biggest table, whole-table queries: one merged template
    (event_count: one part in memory at a time), one selection template (attribute_mean over a seventh
    of the horizon: the part plus the selected values) and two entity-path templates (state_duration,
    transition_counts over the whole horizon, naive readings in the same pass); peak RSS of this
    process after each, and one part's size."""
    import pyarrow.parquet as pq

    from tools.bundle.layout import table_files
    from tools.queries.catalog import build_catalog
    from tools.queries.reference.frames import Frames
    from tools.queries.registry import load_templates
    from tools.queries.spec import QuerySpec, Window
    from tools.queries.stream import StreamExecutor
    from tools.spec.io import load_spec

    cat = build_catalog(load_spec(bundle / "spec.yaml"))
    t = max(cat.tables.values(), key=lambda v: len(table_files(bundle, v.name)))
    parts = table_files(bundle, t.name)
    key = next(f.name for f in pq.read_schema(parts[0]) if str(f.type) == "double")
    templates, ex, out = load_templates(), StreamExecutor(bundle), {"table": t.name, "parts": len(parts)}
    out["part_rows"] = pq.ParquetFile(parts[0]).metadata.num_rows
    base = dict(table=t.name, entity=t.entity, time=t.time)
    day = Window(start=t.start.isoformat().replace("+00:00", "Z"),
                 end=(t.start + (t.end - t.start) / 7).isoformat().replace("+00:00", "Z"))
    runs = [("event_count", QuerySpec(template="event_count", **base))]
    st = next((c for c in t.states if c.is_state and len(c.values) > 1), None)
    if st is not None:  # the entity path: per-episode durations (a mean) and transition counts, whole horizon
        state = {"state": {"column": st.name}, "value": st.values[1]}
        runs += [(n, QuerySpec(template=n, params=state, **base)) for n in ("state_duration", "transition_counts")]
    runs.append(("attribute_mean", QuerySpec(template="attribute_mean", window=day, params={"key": key}, **base)))
    for name, q in runs:
        s = time.perf_counter()
        answer = ex.run(templates[name], q, Frames(bundle))
        out[name] = {"answer": answer, "seconds": round(time.perf_counter() - s, 1), "peak_rss_mb": round(_rss_mb())}
        if templates[name].naive is not None:  # computed in the same pass on the entity path
            out[name]["naive"] = ex.run(templates[name], q, Frames(bundle), naive=True)
    return out


QUESTIONS: int | None = None  # --questions: the suite's size (default: the spec's plan)
FAMILIES: list[str] = []  # --family: extra families asked besides the plan's


def child(phase: str, bundle: str, memory_limit: str) -> None:
    """One phase in a fresh process: prints one JSON line with its figures."""
    from tools.bundle.layout import set_memory_limit

    set_memory_limit(memory_limit)
    t = time.perf_counter()
    if phase == "stream":
        out = stream_pass(Path(bundle))
    elif phase == "check":
        from tools.checks import check_bundle

        checks = check_bundle(Path(bundle))
        out = {"checks": len(checks), "failed": sum(not c.passed for c in checks)}
    else:
        from tools.queries.suite import build_suite

        def progress(done: int, total: int) -> None:  # on stderr: a long run shows where it is
            print(f"queries: {done}/{total} kept, {time.perf_counter() - t:.0f} s, peak RSS {_rss_mb():.0f} MB",
                  file=sys.stderr, flush=True)

        suite = build_suite(Path(bundle), n=QUESTIONS, progress=progress, families=FAMILIES)
        from collections import Counter

        from tools.queries.stream import how

        out = {"questions": len(suite.records), "disagreements": len(suite.disagreements),
               "dropped": len(suite.dropped),
               "paths": dict(Counter(how(r["template"]) for r in suite.records)),
               "families": dict(Counter(r["family"] for r in suite.records))}
    print(json.dumps({**out, "seconds": round(time.perf_counter() - t, 1), "peak_rss_mb": round(_rss_mb())}))


def run_child(phase: str, bundle: Path, memory_limit: str) -> dict:
    extra = (["--questions", str(QUESTIONS)] if QUESTIONS else []) + (["--family", ",".join(FAMILIES)] if FAMILIES else [])
    proc = subprocess.run([sys.executable, __file__, "--child", phase, "--keep", str(bundle),
                           "--memory-limit", memory_limit, *extra], stdout=subprocess.PIPE, text=True)
    if proc.returncode != 0:  # its progress and error went to this process's stderr, as they happened
        raise SystemExit(f"{phase} failed (exit {proc.returncode}): its error is above")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rows", type=int, default=10_000_000)
    ap.add_argument("--pack", default="iot")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--memory-limit", default="4GB", help="DuckDB memory limit of check and queries")
    ap.add_argument("--keep", type=Path, help="Generate into (or reuse) this bundle directory.")
    ap.add_argument("--skip-check", action="store_true", help="Reusing a checked bundle: only run queries.")
    ap.add_argument("--skip-queries", action="store_true")
    ap.add_argument("--json", type=Path, help="Also write the figures here.")
    ap.add_argument("--views", action="store_true",
                    help="Rebuild data.duckdb as views over the parts (what generate does above 50M rows).")
    ap.add_argument("--questions", type=int, help="Questions in the suite (queries --n; default: the spec's plan).")
    ap.add_argument("--family", default="", help="Extra families, comma-separated (queries --family; forecast "
                    "holds back the last day of the bundle: use a copy).")
    ap.add_argument("--child", choices=["check", "queries", "stream"], help=argparse.SUPPRESS)
    ap.add_argument("--stream", action="store_true", help="Also time the pandas reference alone on parts.")
    args = ap.parse_args()
    global QUESTIONS, FAMILIES
    QUESTIONS = args.questions
    FAMILIES = [f for f in args.family.split(",") if f]
    if args.child:
        return child(args.child, str(args.keep), args.memory_limit)

    from bench.bench_generate import rows_at_scale_one
    from knowledge.packs import resolve_spec
    from tools.generate import generate_bundle
    from tools.generate.distributed import cluster_client

    spec = resolve_spec(args.pack)
    tmp = None
    out = args.keep
    if out is None:
        tmp = Path(tempfile.mkdtemp(prefix="bench-scale-"))
        out = tmp / "bundle"
    fig: dict = {"rows_target": args.rows, "pack": args.pack, "workers": args.workers}
    try:
        if not (out / "data.duckdb").is_file():
            base, _ = rows_at_scale_one(spec)
            client, cluster = cluster_client(None, n_workers=args.workers, memory_limit=None)
            try:
                t = time.perf_counter()
                summary = generate_bundle(spec, out, scale=args.rows / base, force=True, engine="dask", client=client)
                fig["generate_s"] = round(time.perf_counter() - t, 1)
            finally:
                client.close()
                cluster.close()
            fig["rows"] = summary.total_rows
            fig["worker_peak_rss_mb"] = sorted(round(v / 2**20) for v in summary.worker_peak_rss.values())
            fig["driver_peak_rss_mb"] = round(_rss_mb())
            fig["parquet_mb"] = round(sum(p.stat().st_size for p in (out / "data").rglob("*.parquet")) / 2**20)
            print(f"generated {fig['rows']:,} rows in {fig['generate_s']} s; worker peak RSS "
                  f"{fig['worker_peak_rss_mb']} MB; driver {fig['driver_peak_rss_mb']} MB", flush=True)
        if args.views:  # the big-world path on a small world: data.duckdb as views over the parts
            from tools.generate.duck_views import write_duckdb

            (out / "data.duckdb").unlink()
            write_duckdb(out, str(out / "data"), sorted(p.name for p in (out / "data").iterdir() if p.is_dir()),
                         views=True)
        if not args.skip_check:
            fig["check"] = run_child("check", out, args.memory_limit)
            print(f"check: {fig['check']}", flush=True)
        if args.stream:
            fig["stream"] = run_child("stream", out, args.memory_limit)
            print(f"stream: {fig['stream']}", flush=True)
        if not args.skip_queries:
            fig["queries"] = run_child("queries", out, args.memory_limit)
            print(f"queries: {fig['queries']}", flush=True)
        if args.json:
            args.json.write_text(json.dumps(fig, indent=2) + "\n")
        q = fig.get("queries", {})
        print(f"rows={fig.get('rows', '?')} generate_s={fig.get('generate_s', '?')} "
              f"worker_peak_mb={max(fig.get('worker_peak_rss_mb', [0]))} check_s={fig.get('check', {}).get('seconds', '-')} "
              f"queries_s={q.get('seconds', '-')} queries_peak_mb={q.get('peak_rss_mb', '-')} agree={q.get('disagreements', 0) == 0 if q else '-'}")
    finally:
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
