"""DuckDB SQL for the stateless templates; each query returns the answer as one row, one column.

Written independently of ``tools/queries/reference/stateless.py``; the conventions are the same:
rows are the filtered ``base`` relation, nulls in the key are skipped, an aggregate over no value
is NULL (``count`` gives 0).
"""

from __future__ import annotations

from tools.queries.spec import QuerySpec
from tools.queries.sql.common import base_cte, ident, lit, ts

SQL_AGGS = {"mean": "avg", "sum": "sum", "min": "min", "max": "max", "count": "count"}


def _hours(q: QuerySpec) -> str:
    """The window's length in hours, computed by DuckDB from its bounds."""
    if q.window is None:
        raise ValueError(f"{q.template} needs a window")
    return f"(date_diff('second', {ts(q.window.start)}, {ts(q.window.end)}) / 3600.0)"


def event_count(q: QuerySpec) -> str:
    return f"WITH {base_cte(q)} SELECT count(*) FROM base"


def distinct_count(q: QuerySpec) -> str:
    return f"WITH {base_cte(q)} SELECT count(DISTINCT {ident(q.p('of', q.entity))}) FROM base"


def event_rate(q: QuerySpec) -> str:
    key = q.p("key")
    num = "CAST(count(*) AS DOUBLE)" if key is None else f"CAST(coalesce(sum({ident(key)}), 0) AS DOUBLE)"
    return f"WITH {base_cte(q)} SELECT {num} / {_hours(q)} FROM base"


def attribute_mean(q: QuerySpec) -> str:
    return f"WITH {base_cte(q)} SELECT avg({ident(q.p('key'))}) FROM base"


def attribute_std(q: QuerySpec) -> str:
    return f"WITH {base_cte(q)} SELECT stddev_samp({ident(q.p('key'))}) FROM base"


def attribute_percentile(q: QuerySpec) -> str:
    p = float(q.p("p"))
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"percentile p={p} outside [0, 1]")
    return f"WITH {base_cte(q)} SELECT CAST(quantile_cont({ident(q.p('key'))}, {lit(p)}) AS DOUBLE) FROM base"


def attribute_extreme(q: QuerySpec) -> str:
    agg = q.p("agg", "max")
    if agg not in ("max", "min"):
        raise ValueError(f"extreme agg {agg!r}")
    return f"WITH {base_cte(q)} SELECT {agg}({ident(q.p('key'))}) FROM base"


def conditional_aggregate(q: QuerySpec) -> str:
    if q.while_ is None:
        raise ValueError("conditional_aggregate needs a while predicate")
    agg = q.p("agg", "mean")
    if agg not in ("mean", "sum", "min", "max"):
        raise ValueError(f"conditional agg {agg!r}")
    return f"WITH {base_cte(q)} SELECT CAST({SQL_AGGS[agg]}({ident(q.p('key'))}) AS DOUBLE) FROM base"


def _group_source(q: QuerySpec) -> tuple[str, str]:
    """(FROM clause, group expression): the row's column, or the static table's through a join."""
    table = q.p("group_table")
    if table is None:
        return "base b", f"CAST(b.{ident(q.group_by)} AS VARCHAR)"
    join = (f"base b JOIN {ident(table)} g ON b.{ident(q.p('group_key'))} = g.{ident(q.p('group_ref'))}")
    return join, f"CAST(g.{ident(q.group_by)} AS VARCHAR)"


def group_aggregate(q: QuerySpec) -> str:
    src, grp = _group_source(q)
    key, agg = q.p("key"), q.p("agg", "mean")
    if agg == "distinct":
        val, cond = f"count(DISTINCT b.{ident(q.entity)})", "TRUE"
    elif key is None:
        if agg != "count":
            raise ValueError(f"group agg {agg!r} needs a key")
        val, cond = "count(*)", "TRUE"
    else:
        val, cond = f"{SQL_AGGS[agg]}(b.{ident(key)})", f"b.{ident(key)} IS NOT NULL"
    return (f"WITH {base_cte(q)}, per AS (SELECT {grp} AS grp, {val} AS v FROM {src} "
            f"WHERE {cond} AND {grp} IS NOT NULL GROUP BY 1) "
            f"SELECT map_from_entries(list((grp, v) ORDER BY grp)) FROM per")


def exists(q: QuerySpec) -> str:
    return f"WITH {base_cte(q)} SELECT EXISTS (SELECT 1 FROM base)"
