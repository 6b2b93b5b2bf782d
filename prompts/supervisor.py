"""Prompt of the supervisor: the build's state → the next step (``Route``).

The steps are the build's (``agents.steps.STEPS``): ``supervisor_prompt`` makes the prompt and its
``Route`` model from their names and what each does, so the list is kept once.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from pydantic import BaseModel, create_model

from prompts.base import Prompt


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


class RouteBase(BaseModel):
    """The next step and why (``args`` are optional hints for that step)."""

    next: str
    reason: str
    args: dict[str, str] = {}


def route_model(names: Sequence[str]) -> type[RouteBase]:
    """``Route``: ``RouteBase`` with ``next`` restricted to the step names."""
    return create_model("Route", __base__=RouteBase, __doc__=RouteBase.__doc__,
                        next=(Literal[tuple(names)], ...))


def supervisor_prompt(steps: Sequence[tuple[str, str]]) -> Prompt:
    """The supervisor's prompt over ``steps`` (name, what it does; in their usual order)."""
    listed = [f"{name} ({does})" if does else name for name, does in steps]
    lines = [", ".join(listed[i:i + 2]) for i in range(0, len(listed), 2)]
    route = route_model([name for name, _ in steps])
    return Prompt(
        name="supervisor",
        instruction="You orchestrate the build of an eval benchmark. Steps, in their usual order:\n"
                    + ",\n".join(lines)
                    + ". Pick the next step whose prerequisites exist and whose output is missing or stale.",
        input_model=BuildStatus,
        output_model=route,
        examples=[(BuildStatus(request="40 turbines ...", has_draft=True, has_spec=True, approved=True,
                               bundle_ready=False, questions=0, paraphrased=False),
                   route(next="pattern_injector", reason="the spec is approved and no data has been generated yet"))],
    )
