"""seasonality_break: the spec's seasonal cycle is removed, inverted or shifted in time."""

from typing import Literal

from tools.common.base import Duration
from tools.patterns.params import KeysIncident
from tools.patterns.registry import PatternKind


class SeasonalityBreak(KeysIncident):
    """The spec's seasonal cycle is removed, inverted or shifted in time inside the window."""

    kind: Literal["seasonality_break"]
    mode: Literal["remove", "invert", "shift"] = "remove"
    shift: Duration = "6h"


def seasonality_break(inc, x, tau, span, amount, rng, ctx):
    add, mul = ctx["season"], ctx["season_factor"]
    if inc.mode == "remove":
        return (x - add) / mul
    if inc.mode == "invert":
        return (x - 2 * add) / mul * (2 - mul)
    return (x - add + ctx["season_shifted"]) / mul * ctx["season_factor_shifted"]


def problems(inc, e, path: str) -> list[tuple[str, str]]:
    out = []
    for k in inc.keys:
        m = next((m for m in e.measurements if m.name == k), None)
        if m is not None and not m.seasonality:
            out.append((f"{path}.keys", f"'{k}' has no seasonality to break"))
    return out


KIND = PatternKind(
    name="seasonality_break", model=SeasonalityBreak, rank=120,
    summary="the spec's cycle is removed, inverted or shifted", inject=seasonality_break, needs_season=True,
    direction="seasonality", phrase=lambda w: f"break in the daily pattern of {w.keys}", problems=problems,
)
