"""DuckDB SQL of the shape templates (definitions in tools/queries/reference/shapes.py), written with
window functions: ``row_number`` positions, ``lag`` differences, islands of flagged rows
(``i - row_number()`` over the flagged rows), ``quantile_disc`` lower medians, framed min/max."""

from __future__ import annotations

from tools.queries.spec import QuerySpec
from tools.queries.sql.common import ident, lit, ts, where_clause


def _num(v, what: str) -> str:
    """A parameter as a DOUBLE literal (only numbers reach SQL)."""
    if isinstance(v, bool) or not isinstance(v, int | float):
        raise ValueError(f"shape parameter {what} must be a number, got {v!r}")
    return f"CAST({lit(repr(float(v)))} AS DOUBLE)"  # parsed from text: exactly the Python float


def _int(v, what: str) -> int:
    if isinstance(v, bool) or not isinstance(v, int) or v < 1:
        raise ValueError(f"shape parameter {what} must be a positive whole number, got {v!r}")
    return v


def _ordered(q: QuerySpec) -> str:
    """``base`` (entity e, value x) and ``o`` (with position i per entity)."""
    if q.p("series") == "hourly_count":
        by, tm, w = ident(q.p("by")), ident(q.time), where_clause(q, events=False)
        n = int((q.window.end_dt - q.window.start_dt).total_seconds() // 3600)
        hour = f"date_diff('second', {ts(q.window.start)}, {tm}) // 3600"
        return (f"hours AS (SELECT unnest(range({n})) AS t), "
                f"cnt AS (SELECT CAST({by} AS VARCHAR) AS e, {hour} AS t, count(*) AS x "
                f"FROM {ident(q.table)} WHERE {w} AND {by} IS NOT NULL GROUP BY 1, 2), "
                f"grp AS (SELECT DISTINCT e FROM cnt WHERE t < {n}), "
                f"base AS (SELECT g.e, h.t, CAST(coalesce(c.x, 0) AS DOUBLE) AS x FROM grp g CROSS JOIN hours h "
                f"LEFT JOIN cnt c ON c.e = g.e AND c.t = h.t), "
                f"o AS (SELECT e, t, x, row_number() OVER (PARTITION BY e ORDER BY t) AS i FROM base)")
    key = ident(q.p("key"))
    return (f"base AS (SELECT CAST({ident(q.entity)} AS VARCHAR) AS e, {ident(q.time)} AS t, CAST({key} AS DOUBLE) "
            f"AS x FROM {ident(q.table)} WHERE {where_clause(q, events=False)} AND {key} IS NOT NULL), "
            f"o AS (SELECT e, t, x, row_number() OVER (PARTITION BY e ORDER BY t) AS i FROM base)")


def _list(source: str) -> str:
    return f"SELECT coalesce(list(DISTINCT e ORDER BY e), CAST([] AS VARCHAR[])) FROM ({source})"


def _runs(flagged: str, having: str) -> str:
    """Entities with an island of consecutive flagged positions whose length satisfies ``having``."""
    return (f"SELECT e FROM (SELECT e, i - row_number() OVER (PARTITION BY e ORDER BY i) AS g FROM ({flagged})) "
            f"GROUP BY e, g HAVING {having}")


def _medians() -> str:
    return ("m AS (SELECT e, quantile_disc(x, 0.5) AS med FROM o GROUP BY e), "
            "d AS (SELECT o.e, m.med, quantile_disc(abs(o.x - m.med), 0.5) AS mad FROM o JOIN m USING (e) "
            "GROUP BY o.e, m.med)")


def shape_spike(q: QuerySpec) -> str:
    w, mult = _int(q.p("width"), "width"), _num(q.p("mult"), "mult")
    flagged = f"SELECT o.e, o.i FROM o JOIN d USING (e) WHERE o.x > d.med + {mult} * d.mad"
    return f"WITH {_ordered(q)}, {_medians()} " + _list(_runs(flagged, f"count(*) <= {w}"))


def shape_rise(q: QuerySpec) -> str:
    lag, n, delta = _int(q.p("lag"), "lag"), _int(q.p("min_len"), "min_len"), _num(q.p("delta"), "delta")
    flagged = (f"SELECT e, i FROM (SELECT e, i, x - lag(x, {lag}) OVER (PARTITION BY e ORDER BY i) AS dx FROM o) "
               f"WHERE dx > {delta}")
    return f"WITH {_ordered(q)} " + _list(_runs(flagged, f"count(*) >= {n}"))


def shape_plateau(q: QuerySpec) -> str:
    n = _int(q.p("min_len"), "min_len")
    flagged = "SELECT e, i FROM (SELECT e, i, x = lag(x) OVER (PARTITION BY e ORDER BY i) AS same FROM o) WHERE same"
    return f"WITH {_ordered(q)} " + _list(_runs(flagged, f"count(*) >= {n - 1}"))


def shape_oscillation(q: QuerySpec) -> str:
    rate = _int(q.p("rate_pct"), "rate_pct")
    signs = ("SELECT o.e, o.i, sign(o.x - m.med) AS s FROM o JOIN (SELECT e, quantile_disc(x, 0.5) AS med FROM o "
             "GROUP BY e) m USING (e) WHERE o.x <> m.med")
    per = (f"SELECT e, count(*) AS n, count(*) FILTER (WHERE s <> prev) AS ch FROM (SELECT e, s, "
           f"lag(s) OVER (PARTITION BY e ORDER BY i) AS prev FROM ({signs})) GROUP BY e")
    return f"WITH {_ordered(q)} " + _list(f"SELECT e FROM ({per}) WHERE n >= 3 AND 100 * ch >= {rate} * (n - 1)")


def shape_level_shift(q: QuerySpec) -> str:
    span, delta = _int(q.p("span"), "span"), _num(q.p("delta"), "delta")
    after = f"OVER (PARTITION BY e ORDER BY i ROWS BETWEEN CURRENT ROW AND {span - 1} FOLLOWING)"
    before = f"OVER (PARTITION BY e ORDER BY i ROWS BETWEEN {span} PRECEDING AND 1 PRECEDING)"
    frames = (f"SELECT e, min(x) {after} AS lo_a, max(x) {after} AS hi_a, count(*) {after} AS n_a, "
              f"min(x) {before} AS lo_b, max(x) {before} AS hi_b, count(*) {before} AS n_b FROM o")
    return f"WITH {_ordered(q)} " + _list(
        f"SELECT e FROM ({frames}) WHERE n_a = {span} AND n_b = {span} AND "
        f"(lo_a > hi_b + {delta} OR hi_a < lo_b - {delta})")
