"""The build graph's state: JSON-native values and file paths only (never DataFrames), so a
``SqliteSaver`` checkpoint can hold it and a new process can resume it."""

from __future__ import annotations

import operator
from typing import Annotated, TypedDict


class BuildState(TypedDict, total=False):
    """What the supervisor reads to decide the next step; each agent fills its part."""

    request: str
    """The user's plain-language description of the domain."""
    pack: str | None
    """A built-in pack to start from instead of the description (``--pack``)."""
    samples: list[str]
    """Sample table files to fit the spec from (``--sample``)."""
    ddl: str | None
    """A SQL DDL file to take the tables from (``--ddl``)."""
    out: str
    """The bundle directory to write."""
    world_only: bool
    """Build the world only (spec, data, incidents, checks): no questions or paraphrases."""
    draft: dict | None
    """The ``DomainDraft`` (JSON) the schema-inference agent read from the request."""
    inferred_yaml: str | None
    """A spec fitted from ``samples``/``ddl`` by the schema-inference agent (YAML with provenance)."""
    spec_yaml: str | None
    """The spec the spec writer produced (YAML text), validated."""
    not_understood: list[str]
    """What the description names that could not be placed or had to be adjusted (review, report.md)."""
    review: str | None
    """The human review's answer: ``approved``, or the edit instructions still to apply."""
    edits: list[str]
    """Edit instructions the user gave at review, in order (applied to the draft)."""
    bundle_ready: bool
    """Data, incidents and checks are written to ``out``."""
    checks_failed: list[str]
    """Names of the pattern checks still failing after the injector's retries."""
    questions: int
    """How many canonical questions the suite has (0 = not synthesized yet)."""
    shortfall: dict[str, int]
    """Questions the plan asked for that the suite could not keep, per family (empty: the plan is met)."""
    paraphrased: bool
    """Paraphrase variants were added (or the step was skipped on purpose)."""
    stale: list[str]
    """Stages whose outputs are outdated after a change: ``data``, ``questions``, ``paraphrases``."""
    decisions: Annotated[list[dict], operator.add]
    """The decision log: ``{step, agent, decision, reason}`` entries, appended by every node."""
    iterations: int
    """How many times the supervisor has routed (bounded by the context's ``max_iterations``)."""
    finished: bool
    """The supervisor has finished the build (successfully or not)."""
    error: str | None
    """Why the build stopped early, for the user."""
    error_code: int | None
    """The exit code that error means (3: incident checks still failing; default 1)."""


def decision(step: str, agent: str, what: str, why: str = "") -> dict:
    """One decision-log entry."""
    return {"step": step, "agent": agent, "decision": what, "reason": why}
