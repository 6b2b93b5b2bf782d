"""DuckDB SQL for ``top_k_by_aggregate`` (semantics in ``tools/queries/reference/stateless_rank.py``).

Returns ``list((entity, value) ORDER BY rank)`` for the first k entities, or NULL when fewer than
k entities have a value or two neighbours among the first k+1 differ by less than 10^-decimals.
"""

from __future__ import annotations

from tools.queries.spec import QuerySpec
from tools.queries.sql.common import base_cte, ident

_AGGS = {"mean": "avg", "sum": "sum", "max": "max", "min": "min"}


def top_k_by_aggregate(q: QuerySpec) -> str:
    k = int(q.p("k"))
    agg = q.p("agg", "mean")
    direction = "DESC" if q.p("order", "desc") == "desc" else "ASC"
    eps = 10.0 ** -int(q.p("decimals", 2))
    ent = ident(q.entity)
    if agg == "count":
        per = f"SELECT CAST({ent} AS VARCHAR) AS e, count(*) AS v FROM base GROUP BY 1"
    elif agg in _AGGS:
        key = ident(q.p("key"))
        per = (f"SELECT CAST({ent} AS VARCHAR) AS e, CAST({_AGGS[agg]}({key}) AS DOUBLE) AS v FROM base "
               f"WHERE {key} IS NOT NULL GROUP BY 1")
    else:
        raise ValueError(f"ranking agg {agg!r}")
    return (f"WITH {base_cte(q)}, per AS ({per}), "
            f"ranked AS (SELECT e, v, row_number() OVER (ORDER BY v {direction}, e) AS rn FROM per), "
            f"head AS (SELECT e, v, rn, lead(v) OVER (ORDER BY rn) AS nxt FROM ranked WHERE rn <= {k + 1}) "
            f"SELECT CASE WHEN count(*) >= {k} AND coalesce(bool_and(abs(CAST(v AS DOUBLE) - nxt) >= {eps!r}) "
            f"FILTER (WHERE nxt IS NOT NULL), TRUE) "
            f"THEN list((e, v) ORDER BY rn) FILTER (WHERE rn <= {k}) END FROM head")
