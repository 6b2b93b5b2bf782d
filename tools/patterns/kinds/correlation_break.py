"""correlation_break: derived keys stop tracking their inputs."""

from typing import Literal

from tools.patterns.params import KeysIncident
from tools.patterns.registry import PatternKind


class CorrelationBreak(KeysIncident):
    """Derived keys stop tracking their inputs: an independent series with the same mean and std."""

    kind: Literal["correlation_break"]


def correlation_break(inc, x, tau, span, amount, rng, ctx):
    return ctx["mean"] + ctx["std"] * rng.standard_normal(x.shape)


KIND = PatternKind(
    name="correlation_break", model=CorrelationBreak, rank=110,
    summary="a derived key stops tracking its inputs (independent series, same mean/std)",
    inject=correlation_break, direction="decoupled", phrase=lambda w: f"break in the {w.keys} relationship",
)
