"""A FAISS inner-product index over unit vectors (so scores are cosine similarities).

Exact (``IndexFlatIP``) below ``ivf_threshold`` vectors, ``IndexIVFFlat`` at or above it (trained
on the vectors it holds, ``nlist ≈ √n`` lists, ``nprobe`` of them searched). The raw vectors are kept
too: they are the persisted form (an append-only float32 file), they let a filtered search score
an arbitrary subset exactly, and they let the IVF be retrained without re-embedding. faiss is
imported on first search.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

IVF_THRESHOLD = 50_000
NPROBE = 32


class VectorIndex:
    """Vectors with ids ``0..n-1`` (the document positions) and top-k search."""

    def __init__(self, dim: int, ivf_threshold: int = IVF_THRESHOLD, nprobe: int = NPROBE):
        self.dim = int(dim)
        self.ivf_threshold = int(ivf_threshold)
        self.nprobe = int(nprobe)
        self._chunks: list[np.ndarray] = []
        self._vectors = np.zeros((0, self.dim), dtype=np.float32)
        self._faiss = None  # built lazily; reset when it no longer fits the size

    def __len__(self) -> int:
        return len(self._vectors) + sum(len(c) for c in self._chunks)

    @property
    def vectors(self) -> np.ndarray:
        """All vectors, ``(n, dim)`` float32 (row i is document i)."""
        if self._chunks:
            self._vectors = np.concatenate([self._vectors, *self._chunks])
            self._chunks = []
        return self._vectors

    @property
    def kind(self) -> str:
        """``flat`` (exact) or ``ivf`` (approximate), by size."""
        return "ivf" if len(self) >= self.ivf_threshold else "flat"

    def add(self, vecs: np.ndarray) -> None:
        """Append unit vectors (ids continue from the current size)."""
        vecs = np.ascontiguousarray(vecs, dtype=np.float32).reshape(-1, self.dim)
        if not len(vecs):
            return
        before = self.kind
        self._chunks.append(vecs)
        if self._faiss is not None:
            if self.kind != before:
                self._faiss = None  # crossed the threshold: train an IVF on next search
            else:
                self._faiss.add(vecs)

    def _index(self):
        if self._faiss is not None:
            return self._faiss
        import faiss

        data = self.vectors
        if self.kind == "flat":
            index = faiss.IndexFlatIP(self.dim)
        else:
            nlist = max(16, int(np.sqrt(len(data))))
            index = faiss.IndexIVFFlat(faiss.IndexFlatIP(self.dim), self.dim, nlist, faiss.METRIC_INNER_PRODUCT)
            # A fixed, spread-out training sample keeps the lists the same for the same data.
            step = max(1, len(data) // (64 * nlist))
            index.train(np.ascontiguousarray(data[::step]))
            index.nprobe = min(self.nprobe, nlist)
        index.add(data)
        self._faiss = index
        return index

    def save_ivf(self, path: Path) -> None:
        """Persist the trained IVF (nothing for a flat index: it is rebuilt from the vectors)."""
        if self.kind == "ivf":
            import faiss

            faiss.write_index(self._index(), str(path))

    def load_ivf(self, path: Path) -> None:
        """Reuse a persisted IVF if it fits these vectors (it may lack the newest ones)."""
        if self.kind != "ivf" or not path.is_file():
            return
        import faiss

        index = faiss.read_index(str(path))
        if index.d != self.dim or index.ntotal > len(self):
            return
        index.add(self.vectors[index.ntotal:])
        index.nprobe = min(self.nprobe, index.nlist)
        self._faiss = index

    def search(self, queries: np.ndarray, k: int, subset: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Top-``k`` (scores, ids) per query row, best first; ids of ``-1`` pad short results.
        With ``subset`` (document ids), only those are scored, exactly."""
        q = np.ascontiguousarray(queries, dtype=np.float32).reshape(-1, self.dim)
        k = max(1, int(k))
        if subset is not None:
            subset = np.asarray(subset, dtype=np.int64)
            scores = q @ self.vectors[subset].T
            take = min(k, len(subset))
            order = np.argsort(-scores, axis=1, kind="stable")[:, :take]
            out_s = np.full((len(q), k), -np.inf, dtype=np.float32)
            out_i = np.full((len(q), k), -1, dtype=np.int64)
            out_s[:, :take] = np.take_along_axis(scores, order, axis=1)
            out_i[:, :take] = subset[order]
            return out_s, out_i
        if len(self) == 0:
            return np.full((len(q), k), -np.inf, dtype=np.float32), np.full((len(q), k), -1, dtype=np.int64)
        index = self._index()
        import faiss

        threads = faiss.omp_get_max_threads()
        if len(q) < 16:  # OpenMP fan-out costs more than it saves for a few queries (and stalls on a busy box)
            faiss.omp_set_num_threads(1)
        try:
            return index.search(q, k)
        finally:
            faiss.omp_set_num_threads(threads)
