"""behavior_shift: the targets' state machine changes inside the window."""

from typing import Literal

from pydantic import model_validator

from tools.common.dwell import DwellDistribution
from tools.patterns.params import IncidentBase
from tools.patterns.registry import PatternKind


class BehaviorShift(IncidentBase):
    """The targets' state machine changes inside the window (replacement rows and dwell times)."""

    kind: Literal["behavior_shift"]
    transitions: dict[str, dict[str, float]] = {}
    dwell: dict[str, DwellDistribution] = {}

    @model_validator(mode="after")
    def _some(self):
        if not self.transitions and not self.dwell:
            raise ValueError("behavior_shift needs transitions and/or dwell overrides")
        return self


def problems(inc, e, path: str) -> list[tuple[str, str]]:
    out = [(f"{path}.target.entity", f"'{e.name}' writes no rows (no emission)")] if e.emission is None else []
    states = set(e.states.states) if e.states else set()
    if not states:
        out.append((path, f"'{e.name}' has no state machine to shift"))
    for s, row in inc.transitions.items():
        bad = [x for x in [s, *row] if x not in states]
        if bad:
            out.append((f"{path}.transitions.{s}", f"unknown state(s) {', '.join(bad)}"))
        elif abs(sum(row.values()) - 1) > 1e-6:
            out.append((f"{path}.transitions.{s}", f"probabilities sum to {sum(row.values()):.2f}, must sum to 1"))
    return out


KIND = PatternKind(
    name="behavior_shift", model=BehaviorShift, rank=130,
    summary="the targets' state machine changes in the window (e.g. checkout failures)", shifts_behaviour=True,
    direction="behavior", check=lambda rec: "behavior",
    phrase=lambda w: f"change in {w.noun} behaviour" + (f" at the {w.states} step" if w.states else ""),
    problems=problems,
)
