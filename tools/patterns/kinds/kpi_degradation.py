"""kpi_degradation: ramp in, hold, ramp out (a trapezoid inside the window)."""

from typing import Literal

from tools.common.base import Duration
from tools.common.durations import parse_duration
from tools.patterns.library import trapezoid
from tools.patterns.params import EffectsIncident
from tools.patterns.registry import PatternKind


class KpiDegradation(EffectsIncident):
    """Ramp in, hold, ramp out (a trapezoid inside the window)."""

    kind: Literal["kpi_degradation"]
    ramp_in: Duration = "0s"
    ramp_out: Duration = "0s"


def kpi_degradation(inc, x, tau, span, amount, rng, ctx):
    env = trapezoid(tau, span, parse_duration(inc.ramp_in), parse_duration(inc.ramp_out))
    return x + amount * env


KIND = PatternKind(
    name="kpi_degradation", model=KpiDegradation, rank=70, summary="ramp in, hold, ramp out",
    inject=kpi_degradation, phrase=lambda w: f"{w.keys} degradation", placement="effects",
    words=r"degradation|slowdown|slow down|degrad",
)
