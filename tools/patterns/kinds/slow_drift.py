"""slow_drift: linear drift reaching the magnitude at the window's end (gradual growth or decline)."""

from typing import Literal

from tools.patterns.params import EffectsIncident
from tools.patterns.registry import PatternKind


class SlowDrift(EffectsIncident):
    """Linear drift reaching the magnitude at the window's end (gradual growth or decline)."""

    kind: Literal["slow_drift"]


def slow_drift(inc, x, tau, span, amount, rng, ctx):
    return x + amount * (tau / span)


KIND = PatternKind(
    name="slow_drift", model=SlowDrift, rank=60, summary="linear drift reaching the magnitude at the window's end",
    inject=slow_drift, check_last=4, phrase=lambda w: f"gradual {w.keys} drift", placement="effects",
    placeable=True, words=r"drift|slowly (?:rising|falling|degrad)|leak",
)
