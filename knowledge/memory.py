"""``Memory``: retrieval over the built-in documents, caller documents and experience notes.

    mem = Memory(Path("~/.local/share/chronoeval/memory").expanduser())
    mem.search("cell tower outage", k=5, filters={"domain": "telecom"})   # -> [Hit(score, doc)]
    mem.remember(ExperienceNote(kind="agent_failure", text="...", tags=["sequence_match"]))
    mem.rebuild()

The index is built on first use and rebuilt by itself when the embedder (name or dimension) or the
built-in documents change; vectors of unchanged texts are reused when the embedder is the same.
Listing notes and documents never embeds (no model, no torch).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np

from knowledge.documents import Doc, ExperienceNote, Hit, cap_per_pack, matches, may_match_builtin
from knowledge.embed import Embedder, SentenceTransformerEmbedder
from knowledge.index import IVF_THRESHOLD, VectorIndex
from knowledge.notes import read_notes
from knowledge.rebuild import Progress, RebuildSummary, embed_batched, replace_index_dir, vectors_for
from knowledge.store import (
    IndexMeta,
    append_index_files,
    append_jsonl,
    dir_lock,
    read_index_files,
    read_jsonl,
    read_meta,
)

DUPLICATE_COSINE = 0.95
PER_PACK = 2


class Memory:
    """Retrieval memory persisted in ``dir`` (see knowledge/store.py for the layout).

    ``embedder``: any ``Embedder``; default the bundled all-MiniLM-L6-v2 (loaded on first embed).
    ``include_builtin``: index the shipped packs/patterns/templates/personas (default True).
    """

    def __init__(self, dir: Path | str, embedder: Embedder | None = None, *, include_builtin: bool = True,
                 ivf_threshold: int = IVF_THRESHOLD, duplicate_cosine: float = DUPLICATE_COSINE,
                 progress: Progress | None = None):
        self.dir = Path(dir).expanduser()
        self.embedder = embedder if embedder is not None else SentenceTransformerEmbedder()
        self.include_builtin = include_builtin
        self.ivf_threshold = ivf_threshold
        self.duplicate_cosine = duplicate_cosine
        self.progress = progress
        self._docs: list[Doc] | None = None
        self._index: VectorIndex | None = None
        self._meta: IndexMeta | None = None
        self._pos: dict[str, int] = {}
        self._lock_depth = 0
        self._queries: dict[str, np.ndarray] = {}
        self.last_rebuild: RebuildSummary | None = None

    @property
    def index_dir(self) -> Path:
        return self.dir / "index"

    @property
    def notes_path(self) -> Path:
        return self.dir / "notes.jsonl"

    @property
    def documents_path(self) -> Path:
        return self.dir / "documents.jsonl"

    # ----------------------------------------------------------------- reading without embedding
    def notes(self, kind: str | Iterable[str] | None = None, domain: str | None = None) -> list[ExperienceNote]:
        """Kept experience notes (near-duplicates folded into ``count``), oldest first."""
        return read_notes(self.notes_path, kind, domain)

    def documents(self, filters: dict | None = None) -> list[Doc]:
        """Every document the memory serves (built-in, added, notes), without embedding anything."""
        from knowledge.builtin import builtin_docs

        docs = builtin_docs() if self.include_builtin and may_match_builtin(filters) else []
        docs += [Doc.model_validate(r) for r in read_jsonl(self.documents_path)]
        docs += [n.to_doc() for n in self.notes()]
        return [d for d in docs if matches(d, filters)]

    # ------------------------------------------------------------------------------ the index
    @contextmanager
    def _writing(self, open_index: bool = True) -> Iterator[None]:
        """Hold the directory's write lock (other processes may share the memory) and make sure
        this process sees their appends before adding its own."""
        if self._lock_depth:
            self._lock_depth += 1
            try:
                yield
            finally:
                self._lock_depth -= 1
            return
        with dir_lock(self.dir):
            self._lock_depth = 1
            try:
                on_disk = read_meta(self.index_dir)
                if self._meta is not None and (on_disk is None or on_disk.to_json() != self._meta.to_json()):
                    self._index = None  # someone else appended or rebuilt: reload
                if open_index:
                    self._open()
                yield
            finally:
                self._lock_depth = 0

    def _fingerprint(self) -> str:
        from knowledge.builtin import builtin_fingerprint

        return builtin_fingerprint() if self.include_builtin else "none"

    def _open(self) -> None:
        """Load the persisted index, rebuilding it when missing, stale or damaged."""
        if self._index is not None:
            return
        meta = read_meta(self.index_dir)
        loaded = None
        reason = "no index yet"
        if meta is not None:
            if meta.embedder != self.embedder.name or meta.dim != self.embedder.dim:
                reason = f"embedder changed ({meta.embedder}/{meta.dim} -> {self.embedder.name}/{self.embedder.dim})"
            elif meta.builtin != self._fingerprint():
                reason = "built-in documents changed"
            else:
                loaded = read_index_files(self.index_dir, meta)
                reason = "index files are incomplete"
        if loaded is None:
            self.rebuild(reason=reason)
            return
        docs, vecs = loaded
        self._set(docs, vecs, meta)
        self._index.load_ivf(self.index_dir / "ivf.faiss")

    def _set(self, docs: list[Doc], vecs: np.ndarray, meta: IndexMeta) -> None:
        self._docs, self._meta = docs, meta
        self._subsets: dict[str, np.ndarray] = {}
        self._pos = {d.id: i for i, d in enumerate(docs)}
        self._index = VectorIndex(meta.dim, self.ivf_threshold)
        self._index.add(vecs)

    def rebuild(self, reason: str = "requested") -> RebuildSummary:
        """Re-index everything from the built-in documents, documents.jsonl and notes.jsonl.
        Vectors of unchanged texts are reused when the embedder is the same."""
        with self._writing(open_index=False):
            return self._rebuild(reason)

    def _rebuild(self, reason: str) -> RebuildSummary:
        import time

        t0 = time.perf_counter()
        docs = self.documents()
        vecs, embedded = vectors_for(docs, self.index_dir, self.embedder, self.progress)
        new_meta = IndexMeta(self.embedder.name, self.embedder.dim, 0, self._fingerprint())

        def keep_ivf(tmp: Path) -> None:
            self._set(docs, vecs, new_meta)
            self._index.save_ivf(tmp / "ivf.faiss")

        replace_index_dir(self.dir, self.index_dir, docs, vecs, new_meta, keep_ivf)
        self.last_rebuild = RebuildSummary(len(docs), embedded, reason, time.perf_counter() - t0)
        return self.last_rebuild

    def _query_vector(self, query: str) -> np.ndarray:
        """The query's embedding; the last few hundred are kept (agents repeat their lookups)."""
        if query not in self._queries:
            if len(self._queries) >= 512:
                self._queries.pop(next(iter(self._queries)))
            self._queries[query] = self.embedder.embed([query])
        return self._queries[query]

    def _subset(self, filters: dict) -> np.ndarray:
        """Positions of the documents passing ``filters`` (cached until the next add)."""
        key = repr(sorted((k, v if isinstance(v, str | bool) else sorted(v)) for k, v in filters.items()
                          if v is not None))
        if key not in self._subsets:
            self._subsets[key] = np.array([i for i, d in enumerate(self._docs) if matches(d, filters)],
                                          dtype=np.int64)
        return self._subsets[key]

    def _append(self, docs: list[Doc], vecs: np.ndarray) -> None:
        self._subsets.clear()
        append_index_files(self.index_dir, docs, vecs, self._meta)
        for d in docs:
            self._pos[d.id] = len(self._docs)
            self._docs.append(d)
        self._index.add(vecs)

    # ----------------------------------------------------------------------------- public API
    def search(self, query: str, k: int = 5, filters: dict | None = None,
               per_pack: int | None = PER_PACK) -> list[Hit]:
        """The ``k`` documents closest to ``query`` (cosine, best first) that pass ``filters``
        (keys kind, domain, tag, source, id_prefix; values a string or a list meaning any-of).

        Without filters, at most ``per_pack`` chunks of one domain pack are returned (None: no
        cap), so a domain's many chunks do not crowd out the patterns and templates it needs;
        with filters the caller has chosen what to see and there is no cap."""
        if k <= 0:
            return []
        self._open()
        q = self._query_vector(query)
        subset = None
        if filters:
            subset = self._subset(filters)
            if not len(subset):
                return []
            per_pack = None
        n = len(self._docs) if subset is None else len(subset)
        fetch = k if per_pack is None else k * 4 + 8
        while True:
            scores, ids = self._index.search(q, min(fetch, max(n, 1)), subset)
            picked = cap_per_pack(scores[0], ids[0], self._docs, k, per_pack)
            if len(picked) >= k or fetch >= n:
                break
            fetch *= 4
        counts = {f"note:{n.id}": n.count for n in self.notes()} if any(
            self._docs[i].kind == "note" for _, i in picked) else {}
        hits = []
        for s, i in picked:
            doc = self._docs[i]
            if doc.id in counts:
                doc = doc.model_copy(update={"count": counts[doc.id]})
            hits.append(Hit(score=float(s), doc=doc))
        return hits

    def remember(self, note: ExperienceNote) -> ExperienceNote:
        """Store an experience note. A near-duplicate (cosine > ``duplicate_cosine``) of a kept note
        of the same kind and domain is merged into it: the returned note is the kept one, with its
        ``count`` (and tags) updated, and the new note is recorded with ``duplicate_of``."""
        with self._writing():
            return self._remember(note)

    def _remember(self, note: ExperienceNote) -> ExperienceNote:
        vec = self.embedder.embed([note.text])
        kept = {n.id: n for n in self.notes()}
        same = np.array([i for i, d in enumerate(self._docs) if d.kind == "note" and d.note_kind == note.kind
                         and d.domains == ([note.domain] if note.domain else [])
                         and d.id.removeprefix("note:") in kept], dtype=np.int64)
        if len(same):
            scores, ids = self._index.search(vec, 1, same)
            if scores[0, 0] > self.duplicate_cosine:
                original = kept[self._docs[ids[0, 0]].id.removeprefix("note:")]
                append_jsonl(self.notes_path, [note.model_copy(update={"duplicate_of": original.id})
                                               .model_dump(mode="json")])
                return next(n for n in self.notes() if n.id == original.id)
        if f"note:{note.id}" in self._pos:
            raise ValueError(f"a note with id {note.id} is already stored; leave id unset for a new one")
        note = note.model_copy(update={"duplicate_of": None, "count": 1})
        append_jsonl(self.notes_path, [note.model_dump(mode="json")])
        self._append([note.to_doc()], vec)
        return note

    def add_documents(self, docs: Iterable[Doc]) -> int:
        """Index caller documents (kept in documents.jsonl, so rebuilds keep them). Documents whose
        id is already indexed are skipped; returns how many were added."""
        with self._writing():
            return self._add_documents(list(docs))

    def _add_documents(self, docs: list[Doc]) -> int:
        seen: set[str] = set()
        new = [d for d in docs if d.id not in self._pos and not (d.id in seen or seen.add(d.id))]
        if not new:
            return 0
        vecs = embed_batched(self.embedder, [d.embed_text() for d in new], self.progress)
        append_jsonl(self.documents_path, [d.model_dump(exclude_defaults=True) | {"id": d.id, "kind": d.kind}
                                           for d in new])
        self._append(new, vecs)
        if self._index.kind == "ivf" and not (self.index_dir / "ivf.faiss").is_file():
            self._index.save_ivf(self.index_dir / "ivf.faiss")
        return len(new)

    def __len__(self) -> int:
        self._open()
        return len(self._docs)

