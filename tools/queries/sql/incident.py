"""DuckDB SQL for the incident templates (semantics in ``tools/queries/reference/incident.py``).

Written independently of the pandas executor; every query returns one row, one column. Hours are
``floor(epoch(ts) / 3600)`` so they do not depend on the session time zone.
"""

from __future__ import annotations

from tools.queries.spec import QuerySpec
from tools.queries.sql.common import base_cte, ident, lit, ts

_VALUE_AGGS = {"mean": "avg", "sum": "sum", "max": "max", "min": "min", "std": "stddev_samp"}
_CMP = {">": ">", ">=": ">=", "<": "<", "<=": "<="}


def agg_sql(q: QuerySpec, cond: str | None = None) -> str:
    """The aggregate expression of ``params.agg``/``params.key``, restricted to rows where ``cond``."""
    agg, key = q.p("agg", "mean"), q.p("key")
    f = f" FILTER (WHERE {cond})" if cond else ""
    if agg == "rows":
        return f"count(*){f}"
    if agg == "entities":
        return f"count(DISTINCT {ident(q.entity)}){f}"
    k = ident(key)
    if agg == "nulls":
        return f"count(*) FILTER (WHERE {k} IS NULL{' AND (' + cond + ')' if cond else ''})"
    if agg == "range":
        return f"(CASE WHEN count({k}){f} >= 2 THEN max({k}){f} - min({k}){f} END)"
    if agg not in _VALUE_AGGS:
        raise ValueError(f"unknown aggregate {agg!r}")
    return f"{_VALUE_AGGS[agg]}({k}){f}"


def _between(col: str, start: str, end: str) -> str:
    return f"({ident(col)} >= {ts(start)} AND {ident(col)} < {ts(end)})"


def _flags(q: QuerySpec) -> tuple[str, str]:
    """(in-window condition, baseline condition) over the unwindowed base relation."""
    inw = _between(q.time, q.window.start, q.window.end)
    b = q.p("baseline")
    inb = _between(q.time, b["start"], b["end"]) if isinstance(b, dict) else f"NOT {inw}"
    return inw, inb


def _hour(q: QuerySpec) -> str:
    return f"CAST(floor(epoch({ident(q.time)}) / 3600) AS BIGINT)"


def incident_exists(q: QuerySpec) -> str:
    op, thr = _CMP[q.p("op")], lit(q.p("value"))
    lo = f"CAST(ceil(epoch({ts(q.window.start)}) / 3600) AS BIGINT)"
    hi = f"CAST(floor(epoch({ts(q.window.end)}) / 3600) AS BIGINT)"
    whole = f"{_hour(q)} >= {lo} AND {_hour(q)} < {hi}"
    if q.p("per", "entity") == "entity":
        return (f"WITH {base_cte(q)}, g AS (SELECT {ident(q.entity)}, {_hour(q)} AS h, {agg_sql(q)} AS v "
                f"FROM base WHERE {whole} GROUP BY ALL) SELECT coalesce(bool_or(v {op} {thr}), FALSE) FROM g")
    fill = "0" if q.p("agg") in ("rows", "nulls", "entities") else "NULL"
    return (f"WITH {base_cte(q)}, g AS (SELECT {_hour(q)} AS h, {agg_sql(q)} AS v FROM base WHERE {whole} "
            f"GROUP BY 1), "
            f"grid AS (SELECT unnest(range({lo}, {hi})) AS h), "
            f"j AS (SELECT coalesce(g.v, {fill}) AS v FROM grid LEFT JOIN g ON g.h = grid.h) "
            f"SELECT coalesce(bool_or(v {op} {thr}), FALSE) FROM j")


def incident_kpi(q: QuerySpec) -> str:
    return f"WITH {base_cte(q)} SELECT {agg_sql(q)} FROM base"


def incident_affected_count(q: QuerySpec) -> str:
    inw, inb = _flags(q)
    e, k = ident(q.entity), ident(q.p("key"))
    if q.p("rule") == "flat":
        return (f"WITH {base_cte(q, window=False)}, per AS (SELECT {e}, count({k}) FILTER (WHERE {inw}) AS n, "
                f"max({k}) FILTER (WHERE {inw}) AS hi, min({k}) FILTER (WHERE {inw}) AS lo FROM base GROUP BY 1) "
                f"SELECT count(*) FROM per WHERE n >= 2 AND hi = lo")
    cmp = f"mi - mb > {lit(float(q.p('n')))} * sb" if q.p("direction") == "up" else \
        f"mi - mb < -{lit(float(q.p('n')))} * sb"
    return (f"WITH {base_cte(q, window=False)}, per AS (SELECT {e}, avg({k}) FILTER (WHERE {inw}) AS mi, "
            f"avg({k}) FILTER (WHERE {inb}) AS mb, stddev_samp({k}) FILTER (WHERE {inb}) AS sb "
            f"FROM base GROUP BY 1) SELECT count(*) FROM per WHERE {cmp}")


def _order(q: QuerySpec) -> str:
    return "DESC" if q.p("order", "desc") == "desc" else "ASC"


def incident_top_k(q: QuerySpec) -> str:
    o = _order(q)
    return (f"WITH {base_cte(q)}, per AS (SELECT CAST({ident(q.entity)} AS VARCHAR) AS e, {agg_sql(q)} AS v "
            f"FROM base GROUP BY 1), top AS (SELECT e, CAST(v AS DOUBLE) AS v FROM per WHERE v IS NOT NULL "
            f"ORDER BY v {o}, e LIMIT {int(q.p('k'))}) SELECT list((e, v) ORDER BY v {o}, e) FROM top")


def incident_worst_entity(q: QuerySpec) -> str:
    inw, inb = _flags(q)
    score = agg_sql(q, inw)
    if q.p("baseline") is not None:
        score = f"{score} - {agg_sql(q, inb)}"
    return (f"WITH {base_cte(q, window=False)}, per AS (SELECT CAST({ident(q.entity)} AS VARCHAR) AS e, "
            f"CAST({score} AS DOUBLE) AS s FROM base GROUP BY 1) "
            f"SELECT e FROM per WHERE s IS NOT NULL ORDER BY s {_order(q)}, e LIMIT 1")


def incident_vs_baseline(q: QuerySpec) -> str:
    inw, inb = _flags(q)
    cmp = ">" if q.p("direction", "up") == "up" else "<"
    fig = "vi / nullif(vb, 0)" if q.p("figure", "ratio") == "ratio" else "vi - vb"
    name = q.p("figure", "ratio")
    return (f"WITH {base_cte(q, window=False)}, v AS (SELECT CAST({agg_sql(q, inw)} AS DOUBLE) AS vi, "
            f"CAST({agg_sql(q, inb)} AS DOUBLE) AS vb FROM base) "
            f"SELECT {{'value': coalesce(vi {cmp} vb, FALSE), {lit(name)}: {fig}}} FROM v")
