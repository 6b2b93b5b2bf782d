"""Benchmark: the RAG memory (knowledge/).

1. Embed and index N documents (default 10,000) with the real bundled all-MiniLM-L6-v2 on CPU,
   through ``Memory.add_documents`` (model load included). Documents are synthetic experience-note
   style texts of 25-60 words drawn by seed from a domain vocabulary. Target: at most 60 s.
2. Query latency at M documents (default 100,000): the index holds M synthetic unit vectors
   (clustered, like real embeddings; no model needed to make them) plus their documents. Timed:
   the FAISS search alone (flat and the default IVF) and the whole ``Memory.search`` call with the
   real model embedding each query. Target: p95 at most 20 ms.

    python bench/bench_memory.py [--docs 10000] [--index-docs 100000] [--queries 300]

The last line is: embed_docs=<n> embed_seconds=<s> index_docs=<m> search_p95_ms=<ms>
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

WORDS = ("cell site outage backhaul link packet loss latency jitter sensor stuck flatline battery drain "
         "firmware offline humidity temperature cold storage session cart checkout purchase abandon "
         "referrer premium host login failed brute force exfiltration outbound bytes process deploy "
         "error rate p95 cpu memory leak request rate availability zone agent failed questions "
         "sequence match window boundary baseline threshold entity incident cascade drift spike dip "
         "user prefers cadence minutes hours judge rejected wording ambiguous answer tolerance").split()
QUERIES = ["cell tower outage", "users abandoning carts", "stuck temperature sensor", "memory leak on a server",
           "brute force logins", "agent matched exact sequences", "user prefers a 5-minute cadence",
           "judge rejected an ambiguous question", "packet loss on backhaul", "battery drains fast"]


def synthetic_docs(n: int, seed: int = 0):
    """n deterministic note-like documents of 25-60 words."""
    from knowledge.documents import Doc

    rng = np.random.default_rng(seed)
    lengths = rng.integers(25, 61, size=n)
    return [Doc(id=f"doc:{i}", kind="doc", title=f"note {i}",
                text=" ".join(rng.choice(WORDS, size=int(lengths[i])))) for i in range(n)]


def clustered_vectors(n: int, dim: int, seed: int = 0, clusters: int = 2000) -> np.ndarray:
    """Unit vectors around random centres (real embeddings cluster by topic)."""
    from knowledge.embed import normalize

    rng = np.random.default_rng(seed)
    centres = normalize(rng.standard_normal((clusters, dim)).astype(np.float32))
    which = rng.integers(0, clusters, size=n)
    return normalize(centres[which] + 0.08 * rng.standard_normal((n, dim)).astype(np.float32))


def percentiles(ms: list[float]) -> str:
    a = np.array(ms)
    return f"p50 {np.percentile(a, 50):.2f} ms, p95 {np.percentile(a, 95):.2f} ms, max {a.max():.2f} ms"


def bench_embed(n: int, tmp: Path) -> float:
    from knowledge.memory import Memory

    docs = synthetic_docs(n)
    t0 = time.perf_counter()
    mem = Memory(tmp / "embed", include_builtin=False)
    added = mem.add_documents(docs)
    seconds = time.perf_counter() - t0
    assert added == n
    print(f"embed+index {n:,} documents (real all-MiniLM-L6-v2, model load included): {seconds:.1f} s "
          f"({n / seconds:.0f} docs/s)")
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
        np.float32)
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
    return float(np.percentile(ms, 95))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--docs", type=int, default=10_000, help="documents to embed with the real model")
    ap.add_argument("--index-docs", type=int, default=100_000, help="documents in the query-latency index")
    ap.add_argument("--queries", type=int, default=300)
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="bench-memory-"))
    try:
        seconds = bench_embed(args.docs, tmp)
        p95 = bench_query(args.index_docs, args.queries, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"embed_docs={args.docs} embed_seconds={seconds:.1f} index_docs={args.index_docs} search_p95_ms={p95:.2f}")


if __name__ == "__main__":
    main()
