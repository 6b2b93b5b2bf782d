"""DuckDB SQL for the state-machine templates (state_duration, first_passage_time,
transition_counts, common_paths, revisit_count, state_occupancy, threshold_without_outcome).

Semantics as in ``tools/queries/reference/states.py``, written independently with window
functions: ``lab`` holds each row's state (null → '<null>'; predicated → 'in'/'out'), ``eps`` keeps
the first row of each episode with ``en`` (the next episode's start, NULL when open) and ``nx``
(the next episode's state). Each query returns the answer as one row, one column. No pandas here.

Speed: the per-entity sort behind ``lag``/``lead`` is the cost on 10M-row tables, so windowed
queries sort only the rows they need (``red``): the rows inside the time range, plus each entity's
last row before it (found by a hash aggregate, it tells whether the first row inside continues an
episode) and, where episode ends matter, each entity's first row after the range whose state
differs from its last state before the range end (the end of an episode still running there).
"""

from __future__ import annotations

from tools.queries.spec import QuerySpec
from tools.queries.sql.common import ident, lit, state_expr, ts, where_clause

NULL_STATE = "<null>"


def _check(q: QuerySpec) -> None:
    if q.while_ is not None or q.event_filter:
        raise ValueError(f"{q.template} takes no while window or event filter")


def _lab(state: dict) -> str:
    return f"coalesce({state_expr(state)}, {lit(NULL_STATE)})"


def _win(q: QuerySpec, col: str) -> str:
    if q.window is None:
        return "TRUE"
    return f"{col} >= {ts(q.window.start)} AND {col} < {ts(q.window.end)}"


def _secs(a: str, b: str) -> str:
    return f"date_diff('microsecond', {a}, {b}) / 1000000.0"


def _rows(q: QuerySpec, extra: dict[str, str] | None = None) -> str:
    """``base`` (entity filter only) and ``lab`` (e, t, lab and the ``extra`` name → expression columns)."""
    _check(q)
    cols = "".join(f", {expr} AS {name}" for name, expr in (extra or {}).items())
    # NOT MATERIALIZED: ``lab`` is read several times; recomputing it is cheaper than storing 10M rows
    return (f"base AS NOT MATERIALIZED (SELECT * FROM {ident(q.table)} "
            f"WHERE {where_clause(q, events=False, window=False)}), "
            f"lab AS NOT MATERIALIZED (SELECT {ident(q.entity)} AS e, {ident(q.time)} AS t, "
            f"{_lab(q.p('state'))} AS lab{cols} FROM base)")


def _reduced(q: QuerySpec, cols: list[str], *, pad_us: int = 0, tail: bool = False) -> str:
    """``red``: the rows a windowed query needs (all of ``lab`` without a window): rows in
    [start, end + pad), each entity's last row before start, and (``tail``) its first row at or
    after end whose state differs from its last state before end."""
    if q.window is None:
        return "red AS (SELECT * FROM lab)"
    lo, hi = ts(q.window.start), ts(q.window.end)
    hi_pad = f"{hi} + to_microseconds({pad_us})" if pad_us else hi
    names = ", ".join(cols)
    last = ", ".join(f"arg_max({c}, t) AS {c}" for c in cols)
    parts = [f"SELECT e, t, {names} FROM lab WHERE t >= {lo} AND t < {hi_pad}",
             f"SELECT e, max(t) AS t, {last} FROM lab WHERE t < {lo} GROUP BY e"]
    pre = ""
    if tail:
        pre = f"lastl AS (SELECT e, arg_max(lab, t) AS l FROM lab WHERE t < {hi} GROUP BY e), "
        first = ", ".join(f"arg_min(lab.{c}, lab.t) AS {c}" for c in cols)
        parts.append(f"SELECT lab.e, min(lab.t) AS t, {first} FROM lab JOIN lastl ON lab.e = lastl.e "
                     f"WHERE lab.t >= {hi} AND lab.lab <> lastl.l GROUP BY lab.e")
    return pre + "red AS (" + " UNION ALL ".join(parts) + ")"


def _episodes(src: str = "red") -> str:
    """``fl`` (previous state) and ``eps`` (one row per episode) over the relation ``src``."""
    return (f"fl AS (SELECT *, lag(lab) OVER (PARTITION BY e ORDER BY t) AS prev FROM {src}), "
            "eps AS (SELECT *, lead(t) OVER w AS en, lead(lab) OVER w AS nx FROM fl "
            "WHERE prev IS NULL OR prev <> lab WINDOW w AS (PARTITION BY e ORDER BY t))")


def state_duration(q: QuerySpec) -> str:
    """Mean seconds of completed episodes of ``value`` starting in the window (``to``: followed by
    ``to``); with ``group_by`` a map group → mean."""
    cond = f"lab = {lit(q.p('value'))} AND en IS NOT NULL AND {_win(q, 't')}"
    if q.p("to") is not None:
        cond += f" AND nx = {lit(q.p('to'))}"
    dur = f"avg({_secs('t', 'en')})"
    via = q.p("group_via")
    if q.group_by is None:
        extra: dict[str, str] = {}
    elif via is None:
        extra = {"grp": f"CAST({ident(q.group_by)} AS VARCHAR)"}
    else:
        extra = {"gk": f"CAST({ident(via['key'])} AS VARCHAR)"}
    head = f"WITH {_rows(q, extra)}, {_reduced(q, ['lab', *extra], tail=True)}, {_episodes()}"
    if q.group_by is None:
        return f"{head} SELECT {dur} FROM eps WHERE {cond}"
    if via is None:
        per = f"SELECT grp, {dur} AS v FROM eps WHERE {cond} AND grp IS NOT NULL GROUP BY grp"
    else:
        per = (f"SELECT CAST(st.{ident(q.group_by)} AS VARCHAR) AS grp, {dur} AS v FROM eps "
               f"JOIN {ident(via['table'])} st ON eps.gk = CAST(st.{ident(via['ref'])} AS VARCHAR) "
               f"WHERE {cond} AND st.{ident(q.group_by)} IS NOT NULL GROUP BY 1")
    return f"{head}, per AS ({per}) SELECT map_from_entries(list((grp, v) ORDER BY grp)) FROM per"


def first_passage_time(q: QuerySpec) -> str:
    """Mean seconds from each entity's first row to its first row in ``value`` (entities reaching it,
    first row in the window)."""
    return (f"WITH {_rows(q)}, per AS (SELECT e, min(t) AS t0, min(t) FILTER (WHERE lab = {lit(q.p('value'))}) "
            f"AS ts FROM lab GROUP BY e) "
            f"SELECT avg({_secs('t0', 'ts')}) FROM per WHERE ts IS NOT NULL AND {_win(q, 't0')}")


def transition_counts(q: QuerySpec) -> str:
    """Map next state → transitions out of ``value`` whose next episode starts in the window."""
    return (f"WITH {_rows(q)}, {_reduced(q, ['lab'])}, {_episodes()}, "
            f"per AS (SELECT nx, count(*) AS n FROM eps WHERE lab = {lit(q.p('value'))} "
            f"AND nx IS NOT NULL AND {_win(q, 'en')} GROUP BY nx) "
            "SELECT map_from_entries(list((nx, n) ORDER BY nx)) FROM per")


def common_paths(q: QuerySpec) -> str:
    """Ranking of the first ``n`` episode states per entity (first row in the window), top ``k``
    by count then path."""
    n, k = int(q.p("n", 3)), int(q.p("k", 3))
    keep = ("red AS (SELECT * FROM lab)" if q.window is None else
            f"starts AS (SELECT e FROM lab GROUP BY e HAVING {_win(q, 'min(t)')}), "
            "red AS (SELECT * FROM lab WHERE e IN (SELECT e FROM starts))")
    return (f"WITH {_rows(q)}, {keep}, {_episodes()}, "
            "r AS (SELECT e, lab, row_number() OVER (PARTITION BY e ORDER BY t) AS rn, "
            "count(*) OVER (PARTITION BY e) AS ne FROM eps), "
            f"paths AS (SELECT e, string_agg(lab, ' > ' ORDER BY rn) AS path FROM r "
            f"WHERE rn <= {n} AND ne >= {n} GROUP BY e), "
            "cnt AS (SELECT path, count(*) AS c FROM paths GROUP BY path), "
            f"top AS (SELECT path, c FROM cnt ORDER BY c DESC, path LIMIT {k}) "
            "SELECT list((path, c) ORDER BY c DESC, path) FROM top")


def revisit_count(q: QuerySpec) -> str:
    """Entities with at least 2 episodes of ``value`` starting in the window."""
    return (f"WITH {_rows(q)}, {_reduced(q, ['lab'])}, {_episodes()} "
            f"SELECT count(*) FROM (SELECT e FROM eps WHERE lab = {lit(q.p('value'))} "
            f"AND {_win(q, 't')} GROUP BY e HAVING count(*) >= 2)")


def state_occupancy(q: QuerySpec) -> str:
    """Map state → percent of the summed row intervals (row to the entity's next row) starting in
    the window."""
    red = "red AS (SELECT * FROM lab)"
    if q.window is not None:
        hi = ts(q.window.end)
        red = (f"red AS (SELECT e, t, lab FROM lab WHERE {_win(q, 't')} UNION ALL "
               f"SELECT e, min(t) AS t, arg_min(lab, t) AS lab FROM lab WHERE t >= {hi} GROUP BY e)")
    return (f"WITH {_rows(q)}, {red}, "
            f"iv AS (SELECT lab, t, {_secs('t', 'lead(t) OVER (PARTITION BY e ORDER BY t)')} AS d FROM red), "
            f"per AS (SELECT lab, sum(d) AS d FROM iv WHERE d IS NOT NULL AND {_win(q, 't')} GROUP BY lab), "
            "tot AS (SELECT lab, d, sum(d) OVER () AS s FROM per) "
            "SELECT map_from_entries(list((lab, 100.0 * d / s) ORDER BY lab)) FROM tot WHERE s > 0")


def threshold_without_outcome(q: QuerySpec) -> str:
    """Entities with an entry into ``value`` in the window not followed by a row in ``outcome``
    from the entry up to ``horizon_s`` later (both included). With the outcome on the same state,
    the first such row is the start of an outcome episode, so the search runs on ``eps``."""
    os_ = q.p("outcome_state") or q.p("state")
    h_us = int(round(float(q.p("horizon_s")) * 1e6))
    a, b = lit(q.p("value")), lit(q.p("outcome"))
    tail = (f"SELECT count(DISTINCT e) FROM nb WHERE (prev IS NULL OR prev <> lab) AND lab = {a} "
            f"AND {_win(q, 't')} AND (nbt IS NULL OR date_diff('microsecond', t, nbt) > {h_us})")
    nxt = "OVER (PARTITION BY e ORDER BY t ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING) AS nbt"
    pad = h_us + 1  # rows up to (window end + horizon), that end included
    if os_ == q.p("state"):
        return (f"WITH {_rows(q)}, {_reduced(q, ['lab'], pad_us=pad)}, {_episodes()}, "
                f"nb AS (SELECT *, min(CASE WHEN lab = {b} THEN t END) {nxt} FROM eps) {tail}")
    return (f"WITH {_rows(q, {'olab': _lab(os_)})}, {_reduced(q, ['lab', 'olab'], pad_us=pad)}, "
            "nb AS (SELECT *, lag(lab) OVER (PARTITION BY e ORDER BY t) AS prev, "
            f"min(CASE WHEN olab = {b} THEN t END) {nxt} FROM red) {tail}")
