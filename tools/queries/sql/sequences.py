"""DuckDB SQL for the event-sequence templates (stateful family, first half).

Each query replays the entity-filtered stream over the whole history (``base`` has no window) and
applies the window to the anchor events' times. Events are row predicates, evaluated once per row
into booleans (NULL → FALSE) in a relation ``x(e, t, ...)``. Durations are averaged as microsecond
differences (``epoch_us``), returned as seconds (DOUBLE). Written independently of the pandas
reference (``tools/queries/reference/sequences.py``).
"""

from __future__ import annotations

from tools.queries.spec import Predicate, QuerySpec
from tools.queries.sql.common import base_cte, ident, pred, ts


def check_spec(q: QuerySpec) -> None:
    """Reject the QuerySpec parts these templates do not use (they take their events from params)."""
    if q.event_filter or q.while_ is not None or q.group_by is not None:
        raise ValueError(f"{q.template} takes no event_filter, while or group_by")


def flag(p: dict | None) -> str:
    """A row predicate as a non-null boolean expression."""
    if p is None:
        return "FALSE"
    return f"coalesce({pred(Predicate.model_validate(p))}, FALSE)"


def win(col: str, q: QuerySpec) -> str:
    """``col`` in the half-open window (TRUE without a window)."""
    if q.window is None:
        return "TRUE"
    return f"{col} >= {ts(q.window.start)} AND {col} < {ts(q.window.end)}"


def events_cte(q: QuerySpec, flags: dict[str, dict | None], where: str = "TRUE") -> str:
    """``base`` (entity filter only) and ``x(e, t, <flag>...)`` with one boolean per event, keeping
    only rows that are some event (the others never change these templates' answers)."""
    check_spec(q)
    cols = "".join(f", {flag(p)} AS {name}" for name, p in flags.items())
    anyf = " OR ".join(flag(p) for p in flags.values())
    return (f"{base_cte(q, events=False, window=False)}, "
            f"x AS (SELECT {ident(q.entity)} AS e, {ident(q.time)} AS t{cols} FROM base "
            f"WHERE ({anyf}) AND {where})")


def avg_time_between(q: QuerySpec) -> str:
    """Mean seconds from each entity's first A to its first B after it (first A in the window);
    ``pairing: each``: every A row in the window to the first B strictly later. Written with a window
    function over one row per (entity, time), A rows counted, rather than an ASOF join, so the gold SQL
    also runs in the warehouses' dialects (Postgres and Spark have no ASOF join)."""
    if q.p("pairing", "first") == "each":
        return (f"WITH {events_cte(q, {'is_a': q.p('a'), 'is_b': q.p('b')})}, "
                "g AS (SELECT e, t, sum(CASE WHEN is_a THEN 1 ELSE 0 END) AS na, "
                "max(CASE WHEN is_b THEN 1 ELSE 0 END) AS hb FROM x GROUP BY e, t), "
                "n AS (SELECT e, t, na, min(CASE WHEN hb = 1 THEN t END) OVER (PARTITION BY e ORDER BY t "
                "ROWS BETWEEN 1 FOLLOWING AND UNBOUNDED FOLLOWING) AS tb FROM g) "
                "SELECT CAST(sum(na * (epoch_us(tb) - epoch_us(t))) AS DOUBLE) / sum(na) / 1e6 FROM n "
                f"WHERE na > 0 AND tb IS NOT NULL AND {win('t', q)}")
    if q.p("pairing", "first") != "first":
        raise ValueError(f"pairing {q.p('pairing')!r}: use first or each")
    return (f"WITH {events_cte(q, {'is_a': q.p('a'), 'is_b': q.p('b')})}, "
            "fa AS (SELECT e, min(t) AS ta FROM x WHERE is_a GROUP BY e), "
            "pairs AS (SELECT fa.e, fa.ta, min(x.t) AS tb FROM fa JOIN x ON x.e = fa.e AND x.t > fa.ta "
            "WHERE x.is_b GROUP BY fa.e, fa.ta) "
            f"SELECT avg(epoch_us(tb) - epoch_us(ta)) / 1e6 FROM pairs WHERE {win('ta', q)}")


def sequence_match(q: QuerySpec) -> str:
    """Entities whose in-window events contain the steps as a subsequence (greedy earliest match)."""
    steps = q.p("steps")
    parts = [events_cte(q, {f"s{i}": p for i, p in enumerate(steps)}, win(ident(q.time), q)),
             "m0 AS (SELECT e, min(t) AS t FROM x WHERE s0 GROUP BY e)"]
    for i in range(1, len(steps)):
        parts.append(f"m{i} AS (SELECT x.e, min(x.t) AS t FROM m{i - 1} JOIN x ON x.e = m{i - 1}.e "
                     f"AND x.t > m{i - 1}.t WHERE x.s{i} GROUP BY x.e)")
    return f"WITH {', '.join(parts)} SELECT count(*) FROM m{len(steps) - 1}"


def count_after_trigger(q: QuerySpec) -> str:
    """X rows in the window with a Y row of the same entity strictly before and at most H before."""
    h = int(round(float(q.p("horizon_s")) * 1e6))
    return (f"WITH {events_cte(q, {'is_x': q.p('x'), 'is_y': q.p('y')})}, "
            "lagged AS (SELECT t, is_x, max(CASE WHEN is_y THEN t END) OVER (PARTITION BY e ORDER BY t "
            "ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS ly FROM x) "
            f"SELECT count(*) FROM lagged WHERE is_x AND ly IS NOT NULL "
            f"AND epoch_us(t) - epoch_us(ly) <= {h} AND {win('t', q)}")


def conversion_rate(q: QuerySpec) -> str:
    """Percent of entities whose first A is in the window that have a B after that first A."""
    return (f"WITH {events_cte(q, {'is_a': q.p('a'), 'is_b': q.p('b')})}, "
            "fa AS (SELECT e, min(t) AS ta FROM x WHERE is_a GROUP BY e), "
            "conv AS (SELECT fa.e, bool_or(x.is_b AND x.t > fa.ta) AS ok FROM fa JOIN x ON x.e = fa.e "
            f"WHERE {win('fa.ta', q)} GROUP BY fa.e) "
            "SELECT CASE WHEN count(*) = 0 THEN NULL "
            "ELSE 100 * CAST(count(*) FILTER (WHERE ok) AS DOUBLE) / count(*) END FROM conv")


def count_in_state(q: QuerySpec) -> str:
    """X rows in the window strictly between the entity's first ``open`` row and the first
    ``close`` row after it (no close: open to the end)."""
    flags = {"is_x": q.p("x"), "is_o": q.p("open"), "is_c": q.p("close")}
    return (f"WITH {events_cte(q, flags)}, "
            "op AS (SELECT e, min(t) AS t_open FROM x WHERE is_o GROUP BY e), "
            "cl AS (SELECT op.e, min(x.t) AS t_close FROM op JOIN x ON x.e = op.e AND x.t > op.t_open "
            "WHERE x.is_c GROUP BY op.e) "
            "SELECT count(*) FROM x JOIN op ON x.e = op.e LEFT JOIN cl ON x.e = cl.e "
            "WHERE x.is_x AND x.t > op.t_open AND (cl.t_close IS NULL OR x.t < cl.t_close) "
            f"AND {win('x.t', q)}")
