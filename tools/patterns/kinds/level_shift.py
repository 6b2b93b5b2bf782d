"""level_shift: an abrupt step for the whole window."""

from typing import Literal

from tools.patterns.params import EffectsIncident
from tools.patterns.registry import PatternKind


class LevelShift(EffectsIncident):
    """An abrupt step for the whole window."""

    kind: Literal["level_shift"]


def level_shift(inc, x, tau, span, amount, rng, ctx):
    return x + amount


KIND = PatternKind(
    name="level_shift", model=LevelShift, rank=100, summary="an abrupt step for the window", inject=level_shift,
    phrase=lambda w: f"shift in {w.keys}", placement="effects", placeable=True,
)
