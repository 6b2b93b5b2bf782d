"""What the memory stores: ``Doc`` (one retrievable chunk), ``ExperienceNote`` (a lesson written
by the graph or a user) and ``Hit`` (a search result)."""

from __future__ import annotations

import hashlib
import uuid
from datetime import UTC, datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from knowledge.kinds import BUILTIN_KINDS, DOC_KINDS, NOTE_KINDS, DocKind, NoteKind  # noqa: F401 (DOC_KINDS, NOTE_KINDS: re-exported)


class Doc(BaseModel):
    """One retrievable chunk. ``domains`` empty means general (not tied to a domain pack).

    ``kind``: pack (a chunk of a domain pack), pattern (an incident kind), template (a query
    template), persona, note (an experience note; ``note_kind`` says which), catalog (a domain-catalog
    archetype: ``catalog:<part>:<id>``) or doc (added by a caller).
    """

    model_config = ConfigDict(extra="forbid")

    id: str = Field(min_length=1)
    kind: DocKind
    title: str
    text: str
    domains: list[str] = []
    tags: list[str] = []
    source: str = ""
    note_kind: NoteKind | None = None
    count: int = Field(default=1, ge=1)
    time: str | None = None

    def embed_text(self) -> str:
        """The text the embedder sees: title first (the model reads at most ~256 word pieces)."""
        return f"{self.title}. {self.text}" if self.title else self.text

    def text_hash(self) -> str:
        return hashlib.sha256(self.embed_text().encode()).hexdigest()[:16]


class ExperienceNote(BaseModel):
    """A lesson from a build, a chat refinement or an eval run, e.g. "agent X failed 9/12
    sequence_match questions by matching exact instead of sub-sequences".

    ``source`` names the bundle directory or run id it came from; ``domain`` the pack/spec domain
    it applies to (None: any). ``duplicate_of`` is set by the store when the note was merged into an
    earlier near-duplicate; ``count`` is how many notes a kept note stands for.
    """

    model_config = ConfigDict(extra="forbid")

    kind: NoteKind
    text: str = Field(min_length=1)
    tags: list[str] = []
    source: str = ""
    domain: str | None = None
    id: str = Field(default_factory=lambda: f"n-{uuid.uuid4().hex[:12]}")
    time: str = Field(default_factory=lambda: datetime.now(UTC).isoformat(timespec="seconds"))
    duplicate_of: str | None = None
    count: int = Field(default=1, ge=1)

    @field_validator("text")
    @classmethod
    def _strip(cls, v: str) -> str:
        if not v.strip():
            raise ValueError("a note needs some text")
        return v.strip()

    def to_doc(self) -> Doc:
        """The note as a retrievable document (id ``note:<id>``)."""
        return Doc(id=f"note:{self.id}", kind="note", note_kind=self.kind, title=self.kind.replace("_", " "),
                   text=self.text, domains=[self.domain] if self.domain else [], tags=list(self.tags),
                   source=self.source, count=self.count, time=self.time)


class Hit(BaseModel):
    """A search result: cosine similarity (higher is closer) and the document."""

    score: float
    doc: Doc


def may_match_builtin(filters: dict | None) -> bool:
    """Whether ``filters`` can pass any packaged document: a kind filter naming only notes or added
    documents cannot, and then listing need not parse the packs and catalog (seconds of YAML)."""
    want = (filters or {}).get("kind")
    if want is None:
        return True
    return bool(({want} if isinstance(want, str) else set(want)) & BUILTIN_KINDS)


def matches(doc: Doc, filters: dict | None) -> bool:
    """Whether a document passes ``filters``: keys ``kind`` (a doc kind or a note kind), ``domain``,
    ``tag``/``tags``, ``source``, ``id_prefix``; each value a string or a list meaning any-of.
    A ``domain`` filter also passes general documents (no domain: templates, personas for any
    domain, notes without a domain) unless ``general`` is False."""
    if not filters:
        return True
    if "kind" not in filters and doc.kind == "catalog":
        return False  # catalog archetypes are looked up on purpose (kind: catalog), never by the way
    for key, want in filters.items():
        if want is None or key == "general":
            continue
        wants = {want} if isinstance(want, str) else set(want)
        if key == "kind":
            ok = doc.kind in wants or (doc.note_kind is not None and doc.note_kind in wants)
        elif key == "domain":
            ok = bool(wants & set(doc.domains)) or (not doc.domains and filters.get("general", True))
        elif key in ("tag", "tags"):
            ok = bool(wants & set(doc.tags))
        elif key == "source":
            ok = doc.source in wants
        elif key == "id_prefix":
            ok = any(doc.id.startswith(w) for w in wants)
        else:
            raise ValueError(f"unknown filter {key!r}; use kind, domain, general, tag, source or id_prefix")
        if not ok:
            return False
    return True


def cap_per_pack(scores: Any, ids: Any, docs: list[Doc], k: int,
                  per_pack: int | None) -> list[tuple[float, int]]:
    """The first ``k`` (score, id) pairs, keeping at most ``per_pack`` chunks of each domain pack. An
    unfiltered search (``per_pack`` set) never returns catalog archetypes: they are looked up on purpose."""
    out: list[tuple[float, int]] = []
    seen: dict[str, int] = {}
    for s, i in zip(scores, ids, strict=True):
        if i < 0:
            continue
        doc = docs[i]
        if per_pack is not None and doc.kind == "catalog":
            continue
        if per_pack is not None and doc.kind == "pack":
            group = doc.id.split(":")[1]
            seen[group] = seen.get(group, 0) + 1
            if seen[group] > per_pack:
                continue
        out.append((float(s), int(i)))
        if len(out) == k:
            break
    return out
