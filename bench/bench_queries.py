"""Benchmark: synthesize and execute the default question suite on a large generated world.

Generates the pack scaled to about N rows (with its incidents), then times `build_suite`
(candidate exploration in DuckDB, pandas reference + SQL for every candidate, window-robustness
re-runs, qa.jsonl and report). Issue target: the 10M-row iot world in at most 60 s.

    python bench/bench_queries.py --rows 10000000 [--pack iot] [--keep DIR]

The last line is: questions=<n> seconds=<s>
"""

from __future__ import annotations

import argparse
import resource
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rows", type=int, default=10_000_000)
    ap.add_argument("--pack", default="iot")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--keep", type=Path, help="Generate into (or reuse) this bundle directory.")
    args = ap.parse_args()

    from bench.bench_generate import rows_at_scale_one
    from knowledge.packs import resolve_spec
    from tools.generate import generate_bundle
    from tools.queries.suite import build_suite

    spec = resolve_spec(args.pack)
    tmp = None
    out = args.keep
    if out is None:
        tmp = Path(tempfile.mkdtemp(prefix="bench-queries-"))
        out = tmp / "bundle"
    try:
        if not (out / "data.duckdb").is_file():
            base, _ = rows_at_scale_one(spec)
            t = time.perf_counter()
            generate_bundle(spec, out, scale=args.rows / base, force=True)
            print(f"generated {args.pack} at {args.rows / base:.2f}x in {time.perf_counter() - t:.1f} s")
        t = time.perf_counter()
        suite = build_suite(out, seed=args.seed)
        seconds = time.perf_counter() - t
        fams = {f: sum(r["family"] == f for r in suite.records) for f in ("stateless", "stateful", "incident")}
        rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(f"families={fams} dropped={len(suite.dropped)} disagreements={len(suite.disagreements)} "
              f"peak_rss_mb={rss:.0f}")
        print(f"questions={len(suite.records)} seconds={seconds:.2f}")
    finally:
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
