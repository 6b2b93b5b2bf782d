"""Reading experience notes back: near-duplicates recorded with ``duplicate_of`` fold into the note
they repeat (its ``count`` and tags grow)."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from knowledge.documents import ExperienceNote
from knowledge.store import read_jsonl


def read_notes(path: Path, kind: str | Iterable[str] | None = None, domain: str | None = None) -> list[ExperienceNote]:
    """The kept notes of the notes file ``path`` (near-duplicates folded into ``count``), oldest first,
    of ``kind`` (one or several) and ``domain`` when given."""
    kept: dict[str, ExperienceNote] = {}
    for row in read_jsonl(path):
        note = ExperienceNote.model_validate(row)
        target = kept.get(note.duplicate_of or "")
        if target is not None:
            target.count += 1
            target.tags = list(dict.fromkeys([*target.tags, *note.tags]))
        elif note.duplicate_of is None:
            kept[note.id] = note
    kinds = {kind} if isinstance(kind, str) else set(kind) if kind else None
    return [n for n in kept.values() if (kinds is None or n.kind in kinds) and
            (domain is None or n.domain == domain)]
