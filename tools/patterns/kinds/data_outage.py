"""data_outage: no rows at all from the target entities inside the window."""

from typing import Literal

from tools.patterns.params import IncidentBase
from tools.patterns.registry import PatternKind


class DataOutage(IncidentBase):
    """No rows at all from the target entities inside the window."""

    kind: Literal["data_outage"]


def problems(inc, e, path: str) -> list[tuple[str, str]]:
    return [(f"{path}.target.entity", f"'{e.name}' writes no rows (no emission)")] if e.emission is None else []


KIND = PatternKind(
    name="data_outage", model=DataOutage, rank=10, summary="no rows at all from the targets", removes_rows=True,
    direction="missing", check=lambda rec: "missing_rows", phrase=lambda w: "data outage", placement="rows",
    words=r"outage|blackout|dropout|goes? down|went down|offline for|data loss|stops? reporting",
    problems=problems,
)
