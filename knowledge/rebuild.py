"""Building a memory's index from scratch: embed in batches, reuse the vectors of texts the old
index already holds (same embedder), and swap the new index directory in whole."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from knowledge.documents import Doc
from knowledge.embed import Embedder
from knowledge.store import IndexMeta, read_index_files, read_meta, write_index_dir

EMBED_BATCH = 256
Progress = Callable[[int, int], None]


@dataclass
class RebuildSummary:
    """What a rebuild did: documents indexed, how many were embedded (the rest reused), why."""

    documents: int
    embedded: int
    reason: str
    seconds: float


def embed_batched(embedder: Embedder, texts: list[str], progress: Progress | None = None, done: int = 0,
                  total: int | None = None) -> np.ndarray:
    """The embeddings of ``texts``, ``EMBED_BATCH`` at a time, reporting ``progress(done, total)``."""
    out = []
    total = total if total is not None else len(texts)
    for i in range(0, len(texts), EMBED_BATCH):
        out.append(embedder.embed(texts[i:i + EMBED_BATCH]))
        if progress:
            progress(done + i + len(out[-1]), total)
    return np.concatenate(out) if out else np.zeros((0, embedder.dim), dtype=np.float32)


def vectors_for(docs: list[Doc], index_dir: Path, embedder: Embedder,
                progress: Progress | None = None) -> tuple[np.ndarray, int]:
    """One vector per document, reused from the index in ``index_dir`` when it was made by the same
    embedder and holds the same text; and how many had to be embedded."""
    cache: dict[str, np.ndarray] = {}
    meta = read_meta(index_dir)
    if meta is not None and meta.embedder == embedder.name and meta.dim == embedder.dim:
        old = read_index_files(index_dir, meta)
        if old is not None:
            cache = {d.text_hash(): v for d, v in zip(old[0], old[1], strict=True)}
    todo = [i for i, d in enumerate(docs) if d.text_hash() not in cache]
    fresh = embed_batched(embedder, [docs[i].embed_text() for i in todo], progress)
    vecs = np.zeros((len(docs), embedder.dim), dtype=np.float32)
    for i, d in enumerate(docs):
        if d.text_hash() in cache:
            vecs[i] = cache[d.text_hash()]
    if todo:
        vecs[todo] = fresh
    return vecs, len(todo)


def replace_index_dir(memory_dir: Path, index_dir: Path, docs: list[Doc], vecs: np.ndarray, meta: IndexMeta,
                      write_extra: Callable[[Path], None]) -> None:
    """Write the index files into a temporary directory beside ``index_dir`` (``write_extra(tmp)``
    adds what the caller keeps, e.g. the IVF file) and swap it in for the old one."""
    memory_dir.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=".index.tmp-", dir=memory_dir))
    try:
        write_index_dir(tmp, docs, vecs, meta)
        write_extra(tmp)
        if index_dir.exists():
            shutil.rmtree(index_dir)
        tmp.rename(index_dir)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
