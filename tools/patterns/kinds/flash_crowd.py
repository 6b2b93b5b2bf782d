"""flash_crowd: a surge of arrivals (arriving entities) or of rate/count keys (metrics)."""

from typing import Literal

from pydantic import field_validator

from tools.common.base import Duration
from tools.common.durations import parse_duration
from tools.patterns.library import trapezoid
from tools.patterns.magnitude import parse_magnitude
from tools.patterns.params import IncidentBase, MagnitudeText
from tools.patterns.registry import PatternKind


class FlashCrowd(IncidentBase):
    """A surge: for arriving entities (sessions) ``surge`` more arrivals than usual in the window;
    for metrics, the ``keys`` (rates/counts) multiplied by ``1 + surge`` with ramps."""

    kind: Literal["flash_crowd"]
    surge: MagnitudeText = "+200%"
    keys: list[str] = []
    ramp_in: Duration = "0s"
    ramp_out: Duration = "0s"

    @field_validator("surge")
    @classmethod
    def _surge(cls, v):
        if parse_magnitude(v).unit != "relative":
            raise ValueError("surge is relative, e.g. '+200%' (three times the usual)")
        return v


def flash_crowd(inc, x, tau, span, amount, rng, ctx):
    env = trapezoid(tau, span, parse_duration(inc.ramp_in), parse_duration(inc.ramp_out))
    return x * (1 + amount * env)


def problems(inc, e, path: str) -> list[tuple[str, str]]:
    out = []
    if e.arrival and not inc.keys and e.emission is None:
        out.append((f"{path}.target.entity", f"'{e.name}' writes no rows (no emission)"))
    if not inc.keys and e.arrival is None:
        out.append((path, f"'{e.name}' has no arrival process: name the rate/count keys to surge (keys: [...])"))
    return out


KIND = PatternKind(
    name="flash_crowd", model=FlashCrowd, rank=20,
    summary="arriving entities: `surge` times the usual arrivals as extra sessions; metrics: `keys` x (1 + surge)",
    inject=flash_crowd, amount_field="surge", adds_arrivals=True, direction="up",
    check=lambda rec: "values" if rec["keys"] else "arrivals",
    phrase=lambda w: f"surge in {w.keys}" if w.keys else f"surge of {w.nouns}", placement="arrivals",
    words=r"flash crowd|traffic surge|surge(?!\s*(?:pric|multipl|factor|fee|charge|rate))|rush", problems=problems,
)
