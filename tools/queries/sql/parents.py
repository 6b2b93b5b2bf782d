"""DuckDB SQL for ``parent_sequence_count`` (semantics in ``tools/queries/reference/parents.py``; written
independently): per child its first A time and last B time, the children with B after A, then the
distinct parent ids on their rows. Plain aggregates only, so Postgres and Spark run it as is."""

from __future__ import annotations

from tools.queries.spec import Predicate, QuerySpec
from tools.queries.sql.common import base_cte, ident, pred


def parent_sequence_count(q: QuerySpec) -> str:
    if q.event_filter:
        raise ValueError("parent_sequence_count takes its events in params.a and params.b, not an event filter")
    e, t = ident(q.entity), ident(q.time)
    a, b = (pred(Predicate.model_validate(q.p(k))) for k in ("a", "b"))
    return (f"WITH {base_cte(q, events=False)}, f AS (SELECT {e} AS e, min(CASE WHEN {a} THEN {t} END) AS ta, "
            f"max(CASE WHEN {b} THEN {t} END) AS tb FROM base GROUP BY {e}), ok AS (SELECT e FROM f WHERE tb > ta) "
            f"SELECT count(DISTINCT {ident(q.p('of'))}) FROM base WHERE {e} IN (SELECT e FROM ok)")
