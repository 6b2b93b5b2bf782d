"""Benchmark: the RAG memory (knowledge/).

1. Embed and index N documents (default 10,000) with the real bundled all-MiniLM-L6-v2 on CPU,
   through ``Memory.add_documents`` (model load included). Documents are synthetic experience-note
   texts (agent failures, user preferences, judge rejections; ~30 word pieces each) drawn by seed.
   Target: at most 60 s.
2. Query latency at M documents (default 100,000): the index holds M synthetic unit vectors
   (clustered, like real embeddings; no model needed to make them) plus their documents. Timed:
   the FAISS search alone (flat and the default IVF) and the whole ``Memory.search`` call with the
   real model embedding each query. Target: p95 at most 20 ms.

    python bench/bench_memory.py [--docs 10000] [--index-docs 100000] [--queries 300]

The last line is: embed_docs=<n> embed_seconds=<s> index_docs=<m> search_p95_ms=<ms>
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

AGENTS = ("sql-agent", "pandas-agent", "react-gpt", "copilot-x", "baseline", "planner-v2")
TEMPLATES = ("sequence_match", "state_duration", "count_in_state", "conversion_rate", "incident_exists",
             "incident_top_k", "attribute_percentile", "event_rate", "state_occupancy", "avg_time_between")
FAILURES = ("matching exact instead of sub-sequences", "counting rows instead of sessions",
            "using a global threshold instead of each entity's baseline", "including open episodes",
            "answering no incident without looking", "shifting the window by one interval",
            "averaging per entity instead of per row", "ignoring the while condition")
PACKS = ("telecom", "iot", "ecommerce", "observability", "security")
PREFS = ("a 5-minute cadence", "three days of data", "fewer cell sites", "UTC timestamps", "terse questions",
         "more incident questions", "a weekly cycle", "premium users only")
QUERIES = ["cell tower outage", "users abandoning carts", "stuck temperature sensor", "memory leak on a server",
           "brute force logins", "agent matched exact sequences", "user prefers a 5-minute cadence",
           "judge rejected an ambiguous question", "packet loss on backhaul", "battery drains fast"]


def synthetic_docs(n: int, seed: int = 0):
    """n deterministic experience-note documents (one or two sentences, like the notes the graph
    writes; the memory reaches 10k documents through notes, the built-in documents are ~150)."""
    from knowledge.documents import Doc

    rng = np.random.default_rng(seed)
    docs = []
    for i in range(n):
        pick = lambda xs: xs[int(rng.integers(len(xs)))]  # noqa: E731
        a, b = int(rng.integers(1, 13)), 12
        if i % 3 == 0:
            text = (f"agent {pick(AGENTS)} failed {a}/{b} {pick(TEMPLATES)} questions on the {pick(PACKS)} bundle "
                    f"by {pick(FAILURES)}.")
        elif i % 3 == 1:
            text = f"user prefers {pick(PREFS)} for {pick(PACKS)}; asked in chat refinement {i}."
        else:
            text = (f"judge rejected a {pick(TEMPLATES)} paraphrase for {pick(PACKS)}: the window and the "
                    f"{pick(PREFS)} were ambiguous, run {i}.")
        docs.append(Doc(id=f"doc:{i}", kind="doc", title="", text=text))
    return docs
QUERIES = ["cell tower outage", "users abandoning carts", "stuck temperature sensor", "memory leak on a server",
           "brute force logins", "agent matched exact sequences", "user prefers a 5-minute cadence",
           "judge rejected an ambiguous question", "packet loss on backhaul", "battery drains fast"]


def clustered_vectors(n: int, dim: int, seed: int = 0, clusters: int = 2000) -> np.ndarray:
    """Unit vectors around random centres (real embeddings cluster by topic)."""
    from knowledge.embed import normalize

    rng = np.random.default_rng(seed)
    centres = normalize(rng.standard_normal((clusters, dim)).astype(np.float32))
    which = rng.integers(0, clusters, size=n)
    return normalize(centres[which] + 0.05 * rng.standard_normal((n, dim)).astype(np.float32))


def percentiles(ms: list[float]) -> str:
    a = np.array(ms)
    return f"p50 {np.percentile(a, 50):.2f} ms, p95 {np.percentile(a, 95):.2f} ms, max {a.max():.2f} ms"


def bench_embed(n: int, tmp: Path) -> float:
    import resource

    from knowledge.memory import Memory

    docs = synthetic_docs(n)
    cpu0 = resource.getrusage(resource.RUSAGE_SELF)
    t0 = time.perf_counter()
    mem = Memory(tmp / "embed", include_builtin=False)
    added = mem.add_documents(docs)
    seconds = time.perf_counter() - t0
    cpu1 = resource.getrusage(resource.RUSAGE_SELF)
    cpu = (cpu1.ru_utime - cpu0.ru_utime) + (cpu1.ru_stime - cpu0.ru_stime)
    assert added == n
    tokens = np.mean([len(mem.embedder._load().tokenizer(d.embed_text())["input_ids"]) for d in docs[:1000]])
    print(f"embed+index {n:,} documents (mean {tokens:.0f} word pieces; real all-MiniLM-L6-v2, model load "
          f"included): {seconds:.1f} s ({n / seconds:.0f} docs/s), CPU time {cpu:.0f} s, "
          f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    return seconds


def bench_query(m: int, n_queries: int, tmp: Path) -> float:
    from knowledge.embed import SentenceTransformerEmbedder
    from knowledge.index import VectorIndex
    from knowledge.memory import Memory
    from knowledge.store import IndexMeta, write_index_dir

    dim = 384
    vecs = clustered_vectors(m, dim)
    rng = np.random.default_rng(1)
    queries = vecs[rng.integers(0, m, size=n_queries)] + 0.05 * rng.standard_normal((n_queries, dim)).astype(
        np.float32)  # unit-ish: inner products rank the same as cosines
    results = {}
    for label, threshold in (("flat (exact)", m + 1), ("ivf", 50_000)):
        index = VectorIndex(dim, ivf_threshold=threshold)
        index.add(vecs)
        t0 = time.perf_counter()
        index.search(queries[:1], 5)
        build = time.perf_counter() - t0
        ms, ids = [], []
        for q in queries:
            t0 = time.perf_counter()
            ids.append(index.search(q[None, :], 5)[1][0])
            ms.append((time.perf_counter() - t0) * 1000)
        results[label] = ids
        print(f"faiss {label} at {m:,} vectors: build {build:.1f} s; search {percentiles(ms)}")
    overlap = np.mean([len(set(a) & set(b)) / 5 for a, b in zip(results["flat (exact)"], results["ivf"],
                                                                    strict=True)])
    print(f"ivf top-5 agreement with exact search: {overlap:.3f}")

    emb = SentenceTransformerEmbedder()
    docs = synthetic_docs(m, seed=2)
    d = tmp / "query"
    meta = IndexMeta(emb.name, dim, 0, "none")
    write_index_dir(d / "index", docs, vecs, meta)
    mem = Memory(d, emb, include_builtin=False)
    mem.search("warm up", k=5)  # loads the index, the model and trains the IVF
    ms = []
    for i in range(n_queries):
        t0 = time.perf_counter()
        mem.search(QUERIES[i % len(QUERIES)] + f" {i}", k=5)
        ms.append((time.perf_counter() - t0) * 1000)
    print(f"Memory.search at {m:,} documents (real query embedding + {mem._index.kind} search): {percentiles(ms)}")
    alone = []
    for i in range(n_queries):
        t0 = time.perf_counter()
        emb.embed([QUERIES[i % len(QUERIES)] + f" {i}"])
        alone.append((time.perf_counter() - t0) * 1000)
    print(f"  of which the query embedding alone: {percentiles(alone)}; load average {os.getloadavg()[0]:.1f}")
    return float(np.percentile(ms, 95))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--docs", type=int, default=10_000, help="documents to embed with the real model (0: skip)")
    ap.add_argument("--index-docs", type=int, default=100_000, help="documents in the query-latency index")
    ap.add_argument("--queries", type=int, default=300)
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="bench-memory-"))
    try:
        seconds = bench_embed(args.docs, tmp) if args.docs else float("nan")
        p95 = bench_query(args.index_docs, args.queries, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"embed_docs={args.docs} embed_seconds={seconds:.1f} index_docs={args.index_docs} search_p95_ms={p95:.2f}")


if __name__ == "__main__":
    main()
