"""The build's steps: the one list the supervisor routes over, the build graph's nodes are made
from and the supervisor's prompt names.

Each ``Step`` is a graph node ``(state, runtime) -> update`` with what it does (for the prompt),
when it may run (its prerequisites exist) and why it is due now. The deterministic planner takes
the first due step in this order; an LLM's route is accepted only for a step that is ready.
Adding an agent to the build = one ``Step`` here (see docs/EXTENDING.md).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from agents.finish import finish
from agents.paraphraser import paraphraser
from agents.pattern_injector import pattern_injector
from agents.query_synthesizer import query_synthesizer
from agents.review import review
from agents.schema_inference import schema_inference
from agents.spec_writer import spec_writer
from agents.state import BuildState


@dataclass(frozen=True)
class Step:
    """One step of the build."""

    name: str
    node: Callable[..., dict]
    """The graph node: ``(state, runtime) -> state update``; it returns to the supervisor."""
    does: str
    """What it does, in the supervisor prompt's words ('' for none)."""
    ready: Callable[[BuildState], bool]
    """Its prerequisites exist (an LLM's route to a step that is not ready is overruled)."""
    due: Callable[[BuildState], str | None]
    """Why it should run now, or None when its output exists and is up to date."""


def _stale(state: BuildState, part: str) -> bool:
    return part in state.get("stale", [])


def _data_due(s: BuildState) -> str | None:
    if not s.get("bundle_ready"):
        return "no data with incidents yet"
    return "data is stale" if _stale(s, "data") else None


def _questions_due(s: BuildState) -> str | None:
    if s.get("world_only"):
        return None
    if not s.get("questions"):
        return "no question suite yet"
    return "questions are stale" if _stale(s, "questions") else None


def _finish_due(s: BuildState) -> str:
    if s.get("world_only"):
        return "only the world was asked for (--world-only): data, incidents and checks are up to date"
    return "data, checks, questions and paraphrases are up to date"


STEPS: tuple[Step, ...] = (
    Step("schema_inference", schema_inference, "read the description into a draft",
         ready=lambda s: True,
         due=lambda s: "no draft of the domain yet" if s.get("draft") is None and not s.get("pack") else None),
    Step("spec_writer", spec_writer, "draft → validated spec",
         ready=lambda s: s.get("draft") is not None or bool(s.get("pack")),
         due=lambda s: None if s.get("spec_yaml") else "no spec yet"),
    Step("review", review, "the user approves the spec",
         ready=lambda s: bool(s.get("spec_yaml")),
         due=lambda s: None if s.get("review") == "approved" else "the spec has not been approved"),
    Step("pattern_injector", pattern_injector, "generate data with incidents and check them",
         ready=lambda s: bool(s.get("spec_yaml")) and s.get("review") == "approved",
         due=_data_due),
    Step("query_synthesizer", query_synthesizer, "questions with computed answers",
         ready=lambda s: bool(s.get("bundle_ready")),
         due=_questions_due),
    Step("paraphraser", paraphraser, "reword questions per persona",
         ready=lambda s: bool(s.get("questions")),
         due=lambda s: None if s.get("world_only") or (s.get("paraphrased") and not _stale(s, "paraphrases"))
         else "the questions have no persona variants yet"),
    Step("finish", finish, "",
         ready=lambda s: plan(s)[0] == "finish",  # an LLM cannot end a build early
         due=_finish_due),
)
BY_NAME: dict[str, Step] = {s.name: s for s in STEPS}


def plan(state: BuildState) -> tuple[str, str]:
    """The deterministic next step and why: the first step that is due."""
    for step in STEPS:
        why = step.due(state)
        if why is not None:
            return step.name, why
    raise AssertionError("the last step is always due")  # pragma: no cover - finish always is
