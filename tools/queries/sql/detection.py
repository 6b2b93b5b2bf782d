"""DuckDB SQL of the calibrated-detection templates (semantics in tools/queries/reference/detection.py):
per-entity ``quantile_disc`` thresholds over the reference period, joined to the window's readings."""

from __future__ import annotations

from tools.queries.spec import QuerySpec
from tools.queries.sql.common import ident, lit, ts, where_clause


def _flagged(q: QuerySpec) -> str:
    pct = q.p("pct")
    if isinstance(pct, bool) or not isinstance(pct, int | float) or not 0 < pct <= 100:
        raise ValueError(f"detection: pct must be a percentile in (0, 100], got {pct!r}")
    key, ent, tm = ident(q.p("key")), ident(q.entity), ident(q.time)
    ref = q.p("ref")
    return (f"ref AS (SELECT CAST({ent} AS VARCHAR) AS e, quantile_disc({key}, {lit(pct / 100)}) AS thr "
            f"FROM {ident(q.table)} WHERE {tm} >= {ts(ref['start'])} AND {tm} < {ts(ref['end'])} "
            f"AND {key} IS NOT NULL GROUP BY 1), "
            f"tgt AS (SELECT CAST({ent} AS VARCHAR) AS e, {key} AS x FROM {ident(q.table)} "
            f"WHERE {where_clause(q, events=False)} AND {key} IS NOT NULL), "
            f"fl AS (SELECT tgt.e FROM tgt JOIN ref USING (e) WHERE tgt.x > ref.thr)")


def detect_entities(q: QuerySpec) -> str:
    n = q.p("min_count")
    if isinstance(n, bool) or not isinstance(n, int):
        raise ValueError(f"detect_entities: min_count must be a whole number, got {n!r}")
    return (f"WITH {_flagged(q)} SELECT coalesce(list(e ORDER BY e), CAST([] AS VARCHAR[])) FROM "
            f"(SELECT e FROM fl GROUP BY e HAVING count(*) > {n})")


def detect_count(q: QuerySpec) -> str:
    return f"WITH {_flagged(q)} SELECT count(*) FROM fl"
