"""DuckDB SQL for ``entity_count_streak`` (semantics in ``tools/queries/reference/streaks.py``; written
independently). Portable window functions only (``lead`` with an offset, a running ``sum``), so the
Postgres and Spark translations run it: "n+1 X rows within T" is "the n-th next X row is at most T
later"; runs "without Y in between" are numbered by the running count of Y rows (the default RANGE
frame gives rows at one time the same number)."""

from __future__ import annotations

from tools.queries.spec import Predicate, QuerySpec
from tools.queries.sql.common import base_cte, ident, pred


def _flag(p: dict) -> str:
    return f"CASE WHEN {pred(Predicate.model_validate(p))} THEN 1 ELSE 0 END"


def entity_count_streak(q: QuerySpec) -> str:
    if q.event_filter:
        raise ValueError("entity_count_streak takes its counted rows in params.a, not an event filter")
    n, e, t = int(q.p("n")), ident(q.entity), ident(q.time)
    head = f"WITH {base_cte(q, events=False)}"
    if q.p("within_s") is not None:
        secs = float(q.p("within_s"))
        if secs != int(secs):
            raise ValueError("entity_count_streak: within_s must be whole seconds")
        x = pred(Predicate.model_validate(q.p("a")))
        return (f"{head}, x AS (SELECT {e} AS e, {t} AS t FROM base WHERE {x}), "
                f"l AS (SELECT e, t, lead(t, {n}) OVER (PARTITION BY e ORDER BY t) AS tn FROM x) "
                f"SELECT count(DISTINCT e) FROM l WHERE tn <= t + INTERVAL '{int(secs)} seconds'")
    if q.p("without") is not None:
        return (f"{head}, r AS (SELECT {e} AS e, {_flag(q.p('a'))} AS x, "
                f"sum({_flag(q.p('without'))}) OVER (PARTITION BY {e} ORDER BY {t}) AS run FROM base), "
                f"per AS (SELECT e, run FROM r GROUP BY e, run HAVING sum(x) > {n}) "
                "SELECT count(DISTINCT e) FROM per")
    raise ValueError("entity_count_streak needs params.within_s or params.without")
