"""spike: values jump up by the magnitude inside a short window (one or a few readings)."""

from typing import Literal

import numpy as np

from tools.patterns.params import EffectsIncident
from tools.patterns.registry import PatternKind


class Spike(EffectsIncident):
    """Values jump up by the magnitude inside a short window (one or a few readings)."""

    kind: Literal["spike"]


def spike(inc, x, tau, span, amount, rng, ctx):
    return x + np.abs(amount)


KIND = PatternKind(
    name="spike", model=Spike, rank=30, summary="values jump up for a short window", inject=spike,
    direction="up", phrase=lambda w: f"spike in {w.keys}", extremes=True,
    placement="effects", placeable=True, words=r"spike|burst|jump",
)
