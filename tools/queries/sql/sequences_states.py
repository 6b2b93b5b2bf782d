"""DuckDB SQL for the episode-based sequence templates: state_reached, alternating_count,
cross_window_delta.

Episodes come from ``lag`` over the entity's whole stream (entity filter only): a row starts an
episode when it is the entity's first row or its state differs from the previous row's (a NULL
state is a state of its own, spelled ``'<null>'``). The window selects episode starts (half-open).
Written independently of the pandas reference.
"""

from __future__ import annotations

from tools.queries.spec import QuerySpec
from tools.queries.sql.common import base_cte, ident, lit, state_expr, ts
from tools.queries.sql.sequences import check_spec, flag, win

NULL_STATE = "<null>"


def starts_cte(q: QuerySpec, windows: list[tuple[str, str]] | None = None, run_end: str | None = None) -> str:
    """``base``, ``lab(e, t, s)`` and ``st(e, t, s)``: the rows that start an episode.

    With ``windows`` (SQL bounds ``[lo, hi)``), only the starts inside them are exact: ``lag`` then runs
    over the rows in the windows plus each entity's last row before each window (which is what a
    row's previous row is), instead of sorting the whole history. With ``run_end`` (a state literal
    S), each entity's first row at or after a window's end whose state is not S is kept too, so an S
    episode running past the window end is followed by the episode that really comes next."""
    check_spec(q)
    rows = "lab"
    parts = [base_cte(q, events=False, window=False),
             f"lab AS (SELECT {ident(q.entity)} AS e, {ident(q.time)} AS t, "
             f"coalesce({state_expr(q.p('state'))}, {lit(NULL_STATE)}) AS s FROM base)"]
    if windows:
        inside = " OR ".join(f"(t >= {lo} AND t < {hi})" for lo, hi in windows)
        priors = " UNION ".join(f"SELECT e, max(t) AS t, arg_max(s, t) AS s FROM lab WHERE t < {lo} GROUP BY e"
                                for lo, _hi in windows)
        if run_end is not None:
            priors += "".join(f" UNION SELECT e, min(t) AS t, arg_min(s, t) AS s FROM lab WHERE t >= {hi} "
                              f"AND s <> {run_end} GROUP BY e" for _lo, hi in windows)
        parts.append(f"near AS (SELECT e, t, s FROM lab WHERE {inside} UNION {priors})")
        rows = "near"
    parts += [f"lagged AS (SELECT e, t, s, lag(s) OVER (PARTITION BY e ORDER BY t) AS p FROM {rows})",
              "st AS (SELECT e, t, s FROM lagged WHERE p IS NULL OR p <> s)"]
    return ", ".join(parts)


def state_reached(q: QuerySpec) -> str:
    """Distinct entities with an episode of ``value`` starting in the window."""
    wins = None if q.window is None else [(ts(q.window.start), ts(q.window.end))]
    return (f"WITH {starts_cte(q, wins)} SELECT count(DISTINCT e) FROM st "
            f"WHERE s = {lit(q.p('value'))} AND {win('t', q)}")


def alternating_count(q: QuerySpec) -> str:
    """B episodes directly between two A episodes, starting in the window (or entities with >= k)."""
    a, b = lit(q.p("a")), lit(q.p("b"))
    wins = None if q.window is None else [(ts(q.window.start), ts(q.window.end))]
    trips = (f"WITH {starts_cte(q, wins, run_end=b)}, "
             "nb AS (SELECT e, t, s, lag(s) OVER w AS ps, lead(s) OVER w AS ns FROM st "
             "WINDOW w AS (PARTITION BY e ORDER BY t)), "
             f"trips AS (SELECT e FROM nb WHERE s = {b} AND ps = {a} AND ns = {a} AND {win('t', q)}) ")
    k = q.p("k")
    if k is None:
        return trips + "SELECT count(*) FROM trips"
    return trips + f"SELECT count(*) FROM (SELECT e FROM trips GROUP BY e HAVING count(*) >= {int(k)})"


def _bounds(q: QuerySpec) -> list[tuple[str, str]]:
    """SQL bounds of (the later window, the earlier window)."""
    if q.window is None:
        raise ValueError("cross_window_delta needs a window (the later one)")
    off = float(q.p("offset_s"))
    if off != int(off):
        raise ValueError("cross_window_delta: offset_s must be whole seconds")
    lo, hi = ts(q.window.start), ts(q.window.end)
    sh = f"INTERVAL '{int(off)} seconds'"
    return [(lo, hi), (f"({lo} - {sh})", f"({hi} - {sh})")]


def _windows(q: QuerySpec, col: str) -> tuple[str, str]:
    """(in the later window, in the earlier window) conditions on ``col``."""
    return tuple(f"{col} >= {lo} AND {col} < {hi}" for lo, hi in _bounds(q))


def cross_window_delta(q: QuerySpec) -> str:
    """The measure in the later window minus the measure in the earlier window (a DOUBLE)."""
    measure = q.p("measure")
    if measure == "entries":
        later, earlier = _windows(q, "t")
        return (f"WITH {starts_cte(q, _bounds(q))} SELECT CAST(count(*) FILTER (WHERE {later}) AS DOUBLE) "
                f"- count(*) FILTER (WHERE {earlier}) FROM st WHERE s = {lit(q.p('value'))}")
    check_spec(q)
    later, earlier = _windows(q, ident(q.time))
    if measure == "events":
        ev = flag(q.p("event"))
        return (f"WITH {base_cte(q, events=False, window=False)} "
                f"SELECT CAST(count(*) FILTER (WHERE {later} AND {ev}) AS DOUBLE) "
                f"- count(*) FILTER (WHERE {earlier} AND {ev}) FROM base")
    if measure == "mean":
        k = ident(q.p("key"))
        return (f"WITH {base_cte(q, events=False, window=False)} "
                f"SELECT avg(CAST({k} AS DOUBLE)) FILTER (WHERE {later}) "
                f"- avg(CAST({k} AS DOUBLE)) FILTER (WHERE {earlier}) FROM base")
    raise ValueError(f"cross_window_delta: unknown measure {measure!r}")

