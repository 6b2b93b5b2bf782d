"""pandas reference of ``incident_cross_table``: a conjunction across related tables ("did core CPU also
rise during the link incident?").

The question's window is an incident's window on one table (``params.source.table``); the answer counts
the entities of *another* table (``QuerySpec.table``, optionally narrowed by the entity filter) whose mean
``key`` over their rows in that window is more than ``n`` sample standard deviations above (``direction``
up) or below (down) their own mean over the ``baseline`` window: the ``shift`` rule of
``incident_affected_count`` (``tools/queries/reference/incident.py``), applied to the related table.
0 means no: the related table did not move.

The naive reading looks only at the incident table: the same rule on the source table's own key
(``source.key``, ``source.direction``) over all its entities, i.e. it counts the incident's entities.
"""

from __future__ import annotations

from tools.queries.reference.frames import Frames
from tools.queries.reference.incident import incident_affected_count
from tools.queries.spec import QuerySpec

SHIFT = ("key", "direction", "n", "baseline")


def shift_query(q: QuerySpec) -> QuerySpec:
    """The related table's count as an ``incident_affected_count`` query with the ``shift`` rule."""
    return q.model_copy(update={"template": "incident_affected_count",
                                "params": {**{k: q.p(k) for k in SHIFT}, "agg": "mean", "rule": "shift"}})


def source_query(q: QuerySpec) -> QuerySpec:
    """The same rule on the incident's own table and key (every entity of it; the naive reading)."""
    s = q.p("source")
    return QuerySpec(template="incident_affected_count", table=s["table"], entity=s["entity"], time=s["time"],
                     window=q.window, params={"key": s["key"], "direction": s["direction"], "n": q.p("n"),
                                              "baseline": q.p("baseline"), "agg": "mean", "rule": "shift"})


def incident_cross_table(frames: Frames, q: QuerySpec) -> int:
    """Entities of the related table whose in-window mean moved more than ``n`` own-baseline SDs."""
    return incident_affected_count(frames, shift_query(q))


def incident_cross_table_naive(frames: Frames, q: QuerySpec) -> int:
    """The misreading that answers from the incident table alone (how many of *its* entities moved)."""
    return incident_affected_count(frames, source_query(q))
