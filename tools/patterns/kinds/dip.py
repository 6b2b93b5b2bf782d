"""dip: values drop by the magnitude inside a short window."""

from typing import Literal

import numpy as np

from tools.patterns.params import EffectsIncident
from tools.patterns.registry import PatternKind


class Dip(EffectsIncident):
    """Values drop by the magnitude inside a short window."""

    kind: Literal["dip"]


def dip(inc, x, tau, span, amount, rng, ctx):
    return x - np.abs(amount)


KIND = PatternKind(
    name="dip", model=Dip, rank=40, summary="values drop for a short window", inject=dip,
    direction="down", phrase=lambda w: f"dip in {w.keys}", extremes=True,
    placement="effects", placeable=True, effect_way="down", words=r"dip\b|drop in\b", in_descriptions=False,
)
