"""Benchmark: grade N responses of the labelled grader corpus (tests/data/grader/corpus.jsonl), cycling
through it, with the deterministic grader (no judge). Target: 1,000 responses in under 2 s.

    python bench/bench_grade.py [--n 1000] [--repeat 3]

The last line is: responses=<n> seconds=<best of repeats> per_response_ms=<ms> decided=<share>
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def main() -> None:
    """Time grading ``--n`` corpus responses, best of ``--repeat`` runs."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=1000)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    from tools.grade import grade_response

    rows = [json.loads(x) for x in (ROOT / "tests/data/grader/corpus.jsonl").read_text().splitlines() if x.strip()]
    cases = []
    for i in range(args.n):
        r = rows[i % len(rows)]
        record = {"id": f"q{i}", "question": r["question"] + ("" if i < len(rows) else f" (variant {i})"),
                  "answer_type": r["answer_type"], "answer": r["expected"], "answer_text": r["answer_text"],
                  "tolerance": r["tolerance"], "template": r["template"], "naive_answer": r["naive_answer"]}
        cases.append((record, r["response"]))
    best, decided = float("inf"), 0
    for _ in range(args.repeat):
        t0 = time.perf_counter()
        grades = [grade_response(rec, resp) for rec, resp in cases]
        best = min(best, time.perf_counter() - t0)
        decided = sum(g.decided for g in grades)
    print(f"responses={args.n} seconds={best:.3f} per_response_ms={1000 * best / args.n:.3f} "
          f"decided={decided / args.n:.3f}")


if __name__ == "__main__":
    main()
