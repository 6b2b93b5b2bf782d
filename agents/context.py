"""Run-scoped context of the build graph (LangGraph ``context_schema``): not checkpointed, given
again by each process that runs or resumes a thread."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class BuildContext:
    """Models, switches and limits for one run of the graph."""

    model: Any = None
    """A LangChain chat model, or None for the deterministic offline path."""
    auto_approve: bool = False
    """Skip the human review point (``--yes``)."""
    seed: int = 0
    """Seed of the generated world and of question synthesis."""
    n_questions: int | None = None
    """Canonical questions to synthesize (None: the spec's query plan)."""
    max_iterations: int = 24
    """The supervisor stops (with an error) after this many routing decisions."""
    max_injection_retries: int = 2
    """How often the pattern injector re-places or strengthens a failing incident."""
    memory: Any = None
    """A ``knowledge`` memory to retrieve from and record notes in, or None."""
    use_notes: bool = False
    """Let experience notes in the memory steer the build (``--use-notes``). Off by default, so a
    build depends only on its inputs, seed and the packaged knowledge; when on, the notes used are
    recorded (ids and digest) in the decision log and manifest.json."""
    progress: Any = None
    """A progress sink for generation (e.g. the CLI's ``RichProgress``), or None."""
    on_step: Any = field(default=None, repr=False)
    """Called with each decision-log entry as it is made (for the CLI), or None."""
