"""On-disk layout of a memory directory.

```
DIR/notes.jsonl        experience notes, append-only (the source of truth for notes)
DIR/documents.jsonl    documents added by callers, append-only
DIR/index/meta.json    embedder name and dimension, document count, built-in fingerprint
DIR/index/docs.jsonl   the indexed documents; line i is vector i
DIR/index/vectors.f32  the vectors, raw float32, appended
DIR/index/ivf.faiss    the trained IVF (only at or above the IVF threshold)
```

The index directory is derived data: it is rebuilt (into a temp directory, then renamed) from the
built-in documents and the two JSONL files. Appends write the documents and vectors first and the
meta (with the new count) last, so a crash leaves at worst an unreferenced tail that is ignored.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from knowledge.documents import Doc

FORMAT = 1


@dataclass
class IndexMeta:
    """What an index was built with; a different embedder or fingerprint means rebuild."""

    embedder: str
    dim: int
    count: int
    builtin: str
    docs_bytes: int = 0
    format: int = FORMAT

    def to_json(self) -> str:
        return json.dumps(self.__dict__, indent=2, sort_keys=True) + "\n"


def append_jsonl(path: Path, rows: list[dict]) -> None:
    """Append JSON lines (creating the file and its directory)."""
    if not rows:
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a", encoding="utf-8") as f:
        f.write("".join(json.dumps(r, ensure_ascii=False, sort_keys=True) + "\n" for r in rows))


def read_jsonl(path: Path, limit: int | None = None) -> list[dict]:
    """The JSON objects of a JSONL file (blank lines and a torn last line are skipped)."""
    if not path.is_file():
        return []
    rows = []
    with path.open(encoding="utf-8") as f:
        for line in f:
            if limit is not None and len(rows) >= limit:
                break
            if line.strip():
                try:
                    rows.append(json.loads(line))
                except json.JSONDecodeError:
                    if line.endswith("\n"):
                        raise ValueError(f"{path}: line {len(rows) + 1} is not JSON; fix or delete the line") from None
    return rows


def read_meta(index_dir: Path) -> IndexMeta | None:
    """The index meta, or None when there is no usable index."""
    try:
        data = json.loads((index_dir / "meta.json").read_text(encoding="utf-8"))
        meta = IndexMeta(**data)
    except (OSError, ValueError, TypeError):
        return None
    return meta if meta.format == FORMAT else None


def write_meta(index_dir: Path, meta: IndexMeta) -> None:
    from tools.bundle.atomic import atomic_write_text

    atomic_write_text(index_dir / "meta.json", meta.to_json())


def read_index_files(index_dir: Path, meta: IndexMeta) -> tuple[list[Doc], np.ndarray] | None:
    """The first ``meta.count`` documents and vectors, or None when the files are short (corrupt)."""
    docs = [Doc.model_validate(r) for r in read_jsonl(index_dir / "docs.jsonl", limit=meta.count)]
    path = index_dir / "vectors.f32"
    n_vec = path.stat().st_size // (4 * meta.dim) if path.is_file() else 0
    if len(docs) < meta.count or n_vec < meta.count:
        return None
    vecs = np.fromfile(path, dtype=np.float32, count=meta.count * meta.dim).reshape(meta.count, meta.dim)
    return docs, vecs


def append_index_files(index_dir: Path, docs: list[Doc], vecs: np.ndarray, meta: IndexMeta) -> None:
    """Append documents and their vectors, then commit the new count in the meta."""
    _truncate(index_dir / "docs.jsonl", meta.docs_bytes)  # drop the tail of an interrupted append
    _truncate(index_dir / "vectors.f32", meta.count * meta.dim * 4)
    rows = [d.model_dump(exclude_defaults=True) | {"id": d.id, "kind": d.kind} for d in docs]
    append_jsonl(index_dir / "docs.jsonl", rows)
    with (index_dir / "vectors.f32").open("ab") as f:
        f.write(np.ascontiguousarray(vecs, dtype=np.float32).tobytes())
    meta.count += len(docs)
    meta.docs_bytes = (index_dir / "docs.jsonl").stat().st_size
    write_meta(index_dir, meta)


def _truncate(path: Path, size: int) -> None:
    if path.is_file() and path.stat().st_size > size:
        with path.open("r+b") as f:
            f.truncate(size)


def write_index_dir(index_dir: Path, docs: list[Doc], vecs: np.ndarray, meta: IndexMeta) -> None:
    """Write a complete index directory in place (the caller renames it into position)."""
    index_dir.mkdir(parents=True, exist_ok=True)
    meta.count = meta.docs_bytes = 0
    for name in ("docs.jsonl", "vectors.f32"):
        (index_dir / name).write_bytes(b"")
    append_index_files(index_dir, docs, vecs, meta)


@contextmanager
def dir_lock(directory: Path) -> Iterator[None]:
    """An exclusive advisory lock on ``directory/.lock`` (flock; no-op where flock does not exist)."""
    directory.mkdir(parents=True, exist_ok=True)
    with (directory / ".lock").open("a") as f:
        try:
            import fcntl
        except ImportError:  # Windows: single writer assumed
            yield
            return
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)
