"""DuckDB SQL of the calibrated-detection templates (semantics in tools/queries/reference/detection.py):
per-entity ``quantile_disc`` thresholds over the reference period, joined to the window's readings."""

from __future__ import annotations

from tools.queries.spec import QuerySpec
from tools.queries.sql.common import ident, lit, ts, where_clause


def _flagged(q: QuerySpec) -> str:
    pct = q.p("pct")
    if isinstance(pct, bool) or not isinstance(pct, int | float) or not 0 < pct <= 100:
        raise ValueError(f"detection: pct must be a percentile in (0, 100], got {pct!r}")
    if q.p("series") == "hourly_count":
        return _hourly_flagged(q, pct)
    key, ent, tm = ident(q.p("key")), ident(q.entity), ident(q.time)
    ref = q.p("ref")
    return (f"ref AS (SELECT CAST({ent} AS VARCHAR) AS e, quantile_disc({key}, {lit(pct / 100)}) AS thr "
            f"FROM {ident(q.table)} WHERE {tm} >= {ts(ref['start'])} AND {tm} < {ts(ref['end'])} "
            f"AND {key} IS NOT NULL GROUP BY 1), "
            f"tgt AS (SELECT CAST({ent} AS VARCHAR) AS e, {key} AS x FROM {ident(q.table)} "
            f"WHERE {where_clause(q, events=False)} AND {key} IS NOT NULL), "
            f"fl AS (SELECT tgt.e FROM tgt JOIN ref USING (e) WHERE tgt.x > ref.thr)")


def _hourly_flagged(q: QuerySpec, pct: float) -> str:
    """Event logs: ``fl`` holds one row per flagged (group, hour) of the window."""
    from tools.queries.spec import Window
    from tools.queries.sql.shapes import _ordered

    ref = q.model_copy(update={"window": Window.model_validate(q.p("ref"))})
    rename = ("hours", "cnt", "grp", "base", "o")

    def scoped(x: QuerySpec, pre: str) -> str:
        sql = _ordered(x)
        for name in rename:
            sql = sql.replace(f"{name} AS (", f"{pre}{name} AS (").replace(f"FROM {name}", f"FROM {pre}{name}") \
                .replace(f"JOIN {name} ", f"JOIN {pre}{name} ").replace(f"CROSS JOIN {name}", f"CROSS JOIN {pre}{name}")
        return sql

    return (f"{scoped(ref, 'r_')}, {scoped(q, 't_')}, "
            f"ref AS (SELECT e, quantile_disc(x, {lit(pct / 100)}) AS thr FROM r_o GROUP BY e), "
            f"fl AS (SELECT t_o.e FROM t_o JOIN ref USING (e) WHERE t_o.x > ref.thr)")


def detect_entities(q: QuerySpec) -> str:
    n = q.p("min_count")
    if isinstance(n, bool) or not isinstance(n, int):
        raise ValueError(f"detect_entities: min_count must be a whole number, got {n!r}")
    return (f"WITH {_flagged(q)} SELECT coalesce(list(e ORDER BY e), CAST([] AS VARCHAR[])) FROM "
            f"(SELECT e FROM fl GROUP BY e HAVING count(*) > {n})")


def detect_count(q: QuerySpec) -> str:
    return f"WITH {_flagged(q)} SELECT count(*) FROM fl"
