"""The kinds of what the memory stores, kept once: document kinds and experience-note kinds.

A plain module (no pydantic) so the CLI can list them in its help without loading the memory.
"""

from __future__ import annotations

from typing import Literal, get_args

DocKind = Literal["pack", "pattern", "template", "persona", "note", "doc", "catalog"]
NoteKind = Literal["user_preference", "agent_failure", "generation_lesson", "judge_rejection"]

# catalog archetypes are searched through describe's own filter, not offered as a --kind choice
DOC_KINDS: tuple[str, ...] = tuple(k for k in get_args(DocKind) if k != "catalog")
NOTE_KINDS: tuple[str, ...] = get_args(NoteKind)
# what the packaged (built-in) documents can be: a listing filtered to other kinds skips parsing them
BUILTIN_KINDS: frozenset[str] = frozenset({"pack", "pattern", "template", "persona", "catalog"})
