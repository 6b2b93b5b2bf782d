"""Benchmark: understanding descriptions offline (issue 14's budget: under 2 s per description,
embeddings included) and a whole offline build of a lifecycle domain (budget: under 60 s).

1. Opens a private RAG memory with the real embedding model (all-MiniLM-L6-v2 from its package; the
   first use indexes the packs, docs and the domain catalog), then reads every description of the
   acceptance corpus (tests/data/descriptions) with the memory's embedding search as the semantic
   scorer: per description, the time of ``understand`` (rules + catalog matching + embedding queries).
2. Runs ``chronoeval build DESCRIPTION -o OUT --yes`` (offline, questions and paraphrases included)
   on a lifecycle description and times it end to end, process start included.

    python bench/bench_describe.py [--only SLUG] [--build SLUG] [--no-build]

The last lines are: understand_median_s=<s> understand_max_s=<s> (budget 2 s) and
build_s=<s> (budget 60 s).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
CORPUS = ROOT / "tests" / "data" / "descriptions"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", help="one corpus slug")
    parser.add_argument("--build", default="ride_hailing_trips", help="the lifecycle description to build")
    parser.add_argument("--no-build", action="store_true")
    args = parser.parse_args()
    from agents.schema_inference import catalog_scorer
    from knowledge import Memory
    from knowledge.catalog import load_catalog
    from tools.describe.understand import understand

    files = sorted(p for p in CORPUS.glob("*.yaml") if args.only in (None, p.stem) and p.name != "known_unmet.yaml")
    with tempfile.TemporaryDirectory(prefix="bench-describe-") as tmp:
        t0 = time.perf_counter()
        memory = Memory(Path(tmp) / "memory")  # the bundled all-MiniLM-L6-v2
        memory.search("warm up", k=1, filters={"kind": "catalog"})
        print(f"memory opened and indexed (model load included): {time.perf_counter() - t0:.1f} s", flush=True)
        catalog, scorer = load_catalog(), catalog_scorer(memory)
        times = []
        for path in files:
            text = yaml.safe_load(path.read_text())["description"]
            t = time.perf_counter()
            draft = understand(text, catalog, scorer)
            times.append(time.perf_counter() - t)
            print(f"{path.stem}: {times[-1]:.3f} s ({len(draft.entities)} entity types, "
                  f"{sum(len(e.measurements) for e in draft.entities)} measurements)", flush=True)
        print(f"understand_median_s={statistics.median(times):.3f} understand_max_s={max(times):.3f} (budget 2 s)")
        if args.no_build:
            return 0
        text = yaml.safe_load((CORPUS / f"{args.build}.yaml").read_text())["description"]
        env = {**os.environ, "CHRONOEVAL_MODEL": "none", "CHRONOEVAL_HOME": str(Path(tmp) / "home"),
               "CHRONOEVAL_MEMORY_DIR": str(Path(tmp) / "memory")}
        t = time.perf_counter()
        r = subprocess.run([sys.executable, "-m", "graph.cli", "build", text, "-o", str(Path(tmp) / "out"), "--yes"],
                           cwd=ROOT, env=env, capture_output=True, text=True)
        took = time.perf_counter() - t
        if r.returncode != 0:
            print(r.stderr[-2000:], file=sys.stderr)
            return 1
        print(r.stdout.strip().splitlines()[-1])
        print(f"build_s={took:.1f} (budget 60 s, {args.build})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
