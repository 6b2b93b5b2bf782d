"""toy_plateau: a test-only pattern kind, the whole of it in this one file (see
docs/EXTENDING.md, "Adding a pattern kind"): values sit a constant amount higher for the whole
window, whichever sign the magnitude has."""

from typing import Literal

import numpy as np

from tools.patterns.params import EffectsIncident
from tools.patterns.registry import PatternKind


class ToyPlateau(EffectsIncident):
    """Values sit ``|magnitude|`` higher for the whole window."""

    kind: Literal["toy_plateau"]


def toy_plateau(inc, x, tau, span, amount, rng, ctx):
    return x + np.abs(amount)


KIND = PatternKind(
    name="toy_plateau", model=ToyPlateau, summary="values sit higher for the whole window", inject=toy_plateau,
    direction="up", phrase=lambda w: f"plateau in {w.keys}", placement="effects", placeable=True,
    words=r"plateau",
)
