"""DuckDB SQL for ``entity_count_streak`` (semantics in ``tools/queries/reference/streaks.py``; written
independently). Portable window functions only (``lead`` with an offset, a running ``sum``), so the
Postgres and Spark translations run it: "n+1 X rows within T" is "the n-th next X row is at most T
later"; runs "without Y in between" are numbered by the running count of Y rows (the default RANGE
frame gives rows at one time the same number)."""

from __future__ import annotations

from tools.queries.composite import key_columns, key_sql
from tools.queries.spec import Predicate, QuerySpec
from tools.queries.sql.common import base_cte, ident, pred


def _flag(p: dict) -> str:
    return f"CASE WHEN {pred(Predicate.model_validate(p))} THEN 1 ELSE 0 END"


def entity_count_streak(q: QuerySpec) -> str:
    if q.event_filter:
        raise ValueError("entity_count_streak takes its counted rows in params.a, not an event filter")
    n, t = int(q.p("n")), ident(q.time)
    cols = key_columns(q)  # the entity's id columns (a composite key: all of them), as k0, k1, ...
    e = ", ".join(f"{ident(c)} AS k{i}" for i, c in enumerate(cols))
    ks = ", ".join(f"k{i}" for i in range(len(cols)))
    head = f"WITH {base_cte(q, events=False)}"
    if q.p("within_s") is not None:
        secs = float(q.p("within_s"))
        if secs != int(secs):
            raise ValueError("entity_count_streak: within_s must be whole seconds")
        x = pred(Predicate.model_validate(q.p("a")))
        return (f"{head}, x AS (SELECT {e}, {t} AS t FROM base WHERE {x}), "
                f"l AS (SELECT {ks}, t, lead(t, {n}) OVER (PARTITION BY {ks} ORDER BY t) AS tn FROM x) "
                f"SELECT count(*) FROM (SELECT DISTINCT {ks} FROM l WHERE tn <= t + INTERVAL '{int(secs)} seconds') hit")
    if q.p("without") is not None:
        part = key_sql(q)
        return (f"{head}, r AS (SELECT {e}, {_flag(q.p('a'))} AS x, "
                f"sum({_flag(q.p('without'))}) OVER (PARTITION BY {part} ORDER BY {t}) AS run FROM base), "
                f"per AS (SELECT {ks}, run FROM r GROUP BY {ks}, run HAVING sum(x) > {n}) "
                f"SELECT count(*) FROM (SELECT DISTINCT {ks} FROM per) hit")
    raise ValueError("entity_count_streak needs params.within_s or params.without")
