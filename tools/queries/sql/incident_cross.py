"""DuckDB SQL of ``incident_cross_table`` (semantics in ``tools/queries/reference/incident_cross.py``): the
``shift`` count of ``incident_affected_count`` over the related table, whose window is the incident's."""

from __future__ import annotations

from tools.queries.spec import QuerySpec
from tools.queries.sql.incident import incident_affected_count

_SHIFT = ("key", "direction", "n", "baseline")


def incident_cross_table(q: QuerySpec) -> str:
    """Count of the related table's entities whose in-window mean moved beyond ``n`` own-baseline SDs."""
    if not isinstance(q.p("baseline"), dict):
        raise ValueError("incident_cross_table needs a baseline window")
    params = {**{k: q.p(k) for k in _SHIFT}, "agg": "mean", "rule": "shift"}
    return incident_affected_count(q.model_copy(update={"params": params}))
