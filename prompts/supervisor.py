"""Prompt of the supervisor: the build's state → the next step (``Route``)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel

from prompts.base import Prompt

STEPS = ("schema_inference", "spec_writer", "review", "pattern_injector", "query_synthesizer", "paraphraser", "finish")


class BuildStatus(BaseModel):
    """What exists and what is stale, as the supervisor sees it."""

    request: str
    has_draft: bool
    has_spec: bool
    approved: bool
    bundle_ready: bool
    questions: int
    paraphrased: bool
    stale: list[str] = []


class Route(BaseModel):
    """The next step and why (``args`` are optional hints for that step)."""

    next: Literal["schema_inference", "spec_writer", "review", "pattern_injector", "query_synthesizer",
                  "paraphraser", "finish"]
    reason: str
    args: dict[str, str] = {}


SUPERVISOR = Prompt(
    name="supervisor",
    instruction="""You orchestrate the build of an eval benchmark. Steps, in their usual order:
schema_inference (read the description into a draft), spec_writer (draft → validated spec),
review (the user approves the spec), pattern_injector (generate data with incidents and check them),
query_synthesizer (questions with computed answers), paraphraser (reword questions per persona),
finish. Pick the next step whose prerequisites exist and whose output is missing or stale.""",
    input_model=BuildStatus,
    output_model=Route,
    examples=[(BuildStatus(request="40 turbines ...", has_draft=True, has_spec=True, approved=True, bundle_ready=False,
                           questions=0, paraphrased=False),
               Route(next="pattern_injector", reason="the spec is approved and no data has been generated yet"))],
)
