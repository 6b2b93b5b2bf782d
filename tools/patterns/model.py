"""The incident models the spec uses, derived from the registry of pattern kinds: one parameter model
per kind (GutenTAG style), discriminated by ``kind``, plus cascades.

Building these unions freezes the registry: register plug-in kinds before importing this module.
"""

from __future__ import annotations

from functools import reduce
from operator import or_
from typing import Annotated, Literal

from pydantic import Field

from tools.common.base import SpecModel
from tools.patterns.params import CascadeStep, EffectsIncident, IncidentBase, KeysIncident, Target, Window
from tools.patterns.registry import freeze

_MODELS = [k.model for k in freeze("the spec's incident union (tools.patterns.model)")]

RootIncident = Annotated[reduce(or_, _MODELS), Field(discriminator="kind")]


class Cascade(SpecModel):
    """A root incident whose effect propagates through relations, level by level."""

    kind: Literal["cascade"]
    id: str
    description: str = ""
    root: RootIncident
    children: list[CascadeStep] = Field(min_length=1)


Incident = Annotated[reduce(or_, [*_MODELS, Cascade]), Field(discriminator="kind")]

KINDS = [m.model_fields["kind"].annotation.__args__[0] for m in _MODELS] + ["cascade"]
"""Every incident kind a spec may use, in registry rank order (``cascade`` last)."""

__all__ = ["KINDS", "Cascade", "CascadeStep", "EffectsIncident", "Incident", "IncidentBase", "KeysIncident",
           "RootIncident", "Target", "Window"]
