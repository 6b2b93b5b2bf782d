"""Benchmark: the harness's own cost per question, and what concurrency buys.

1. Overhead: N calls (default 10,000) to a no-op agent through the full runner path (adapter with
   its timeout thread, grading, the fsynced responses.jsonl writer), one call at a time. Issue
   target: at most 5 ms per question beyond agent time.
2. Concurrency: a suite of M questions (default 48) answered by an agent that sleeps 100 ms, with
   1 and with 8 calls in flight. Issue target: 8-way throughput at least 6x the 1-way throughput.

    python bench/bench_harness.py [--calls 10000] [--sleep-questions 48] [--dir DIR]

The last line is: overhead_ms=<x> speedup=<y>; exit code 1 if a target is missed.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def suite(n: int) -> list[dict]:
    """n synthetic integer questions (the grader's common path: a number in prose)."""
    return [{"id": f"q{i:05d}", "question": f"How many sessions reached step {i}?", "canonical_question": "",
             "family": ("stateless", "stateful", "incident")[i % 3], "template": "event_count", "persona": None,
             "variant_of": None, "answer": 63, "answer_type": "integer", "answer_text": "63",
             "tolerance": {"rel": 0.0, "abs": 0.0}, "naive_answer": 118 if i % 2 else None} for i in range(n)]


def timed_run(records, agent, work: Path, concurrency: int) -> float:
    from tools.harness import AgentContext, run_suite

    ctx = AgentContext(backend="duckdb", db_path="/dev/null", tables=["t"], schema_={"t": [("x", "BIGINT")]})
    t0 = time.perf_counter()
    run_suite(records, agent, ctx, work, trials=1, concurrency=concurrency, timeout=30)
    return time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--calls", type=int, default=10_000)
    ap.add_argument("--sleep-questions", type=int, default=48)
    ap.add_argument("--dir", type=Path, help="Where to write the runs (default: a temp dir; the disk matters "
                                             "because every answer is fsynced).")
    args = ap.parse_args()
    base = Path(tempfile.mkdtemp(prefix="bench-harness-", dir=args.dir))
    try:
        secs = timed_run(suite(args.calls), lambda q, c: "There were 63 sessions.", base / "noop", 1)
        overhead_ms = 1000 * secs / args.calls
        print(f"overhead: {args.calls} no-op calls in {secs:.2f} s = {overhead_ms:.3f} ms per question (target <= 5)")

        def sleeper(q, c):
            time.sleep(0.1)
            return "63"

        recs = suite(args.sleep_questions)
        one = timed_run(recs, sleeper, base / "c1", 1)
        eight = timed_run(recs, sleeper, base / "c8", 8)
        speedup = one / eight
        print(f"concurrency: {len(recs)} questions x 100 ms agent: 1-way {one:.2f} s, 8-way {eight:.2f} s, "
              f"throughput {speedup:.2f}x (target >= 6)")
    finally:
        shutil.rmtree(base, ignore_errors=True)
    print(f"overhead_ms={overhead_ms:.3f} speedup={speedup:.2f}")
    sys.exit(0 if overhead_ms <= 5 and speedup >= 6 else 1)


if __name__ == "__main__":
    main()
