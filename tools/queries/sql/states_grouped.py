"""DuckDB SQL for ``transition_count_by``, ``occupancy_by``, ``reached_by`` and ``top_transitions``
(semantics in ``tools/queries/reference/states_grouped.py``; written independently with window
functions over each entity's whole stream: ``lab`` holds each row's state and group, ``eps`` the first
row of each episode with the next episode's start ``en``, state ``nx`` and group ``ng``)."""

from __future__ import annotations

from tools.queries.spec import QuerySpec
from tools.queries.sql.common import ident, lit, state_expr, ts, where_clause

NULL_STATE = "<null>"


def _win(q: QuerySpec, col: str) -> str:
    if q.window is None:
        return "TRUE"
    return f"{col} >= {ts(q.window.start)} AND {col} < {ts(q.window.end)}"


def _lab(q: QuerySpec) -> str:
    """``base`` (entity filter), ``lab(e, t, lab, g)``."""
    if q.while_ is not None or q.event_filter:
        raise ValueError(f"{q.template} takes no while window or event filter")
    via = q.p("group_via")
    if q.group_by is None:
        g, join = "CAST(NULL AS VARCHAR)", ""
    elif via is None:
        g, join = f"CAST(b.{ident(q.group_by)} AS VARCHAR)", ""
    else:
        g = "CAST(gv.gval AS VARCHAR)"
        join = (f" LEFT JOIN (SELECT {ident(via['ref'])} AS gkey, {ident(q.group_by)} AS gval FROM "
                f"{ident(via['table'])}) gv ON b.{ident(via['key'])} = gv.gkey")
    return (f"base AS (SELECT * FROM {ident(q.table)} WHERE {where_clause(q, events=False, window=False)}), "
            f"lab AS (SELECT b.{ident(q.entity)} AS e, b.{ident(q.time)} AS t, "
            f"coalesce({state_expr(q.p('state'))}, {lit(NULL_STATE)}) AS lab, {g} AS g FROM base b{join})")


def _eps(q: QuerySpec) -> str:
    return (f"WITH {_lab(q)}, fl AS (SELECT *, lag(lab) OVER (PARTITION BY e ORDER BY t) AS prev FROM lab), "
            "eps AS (SELECT e, t, lab, g, lead(t) OVER w AS en, lead(lab) OVER w AS nx, lead(g) OVER w AS ng "
            "FROM fl WHERE prev IS NULL OR prev <> lab WINDOW w AS (PARTITION BY e ORDER BY t))")


def _mapping(rel: str, key: str, val: str) -> str:
    return f"SELECT map_from_entries(list(({key}, {val}) ORDER BY {key})) FROM {rel}"


def transition_count_by(q: QuerySpec) -> str:
    per = (f"(SELECT ng, count(*) AS n FROM eps WHERE lab = {lit(q.p('value'))} AND nx = {lit(q.p('to'))} "
           f"AND {_win(q, 'en')} AND ng IS NOT NULL GROUP BY ng) per")
    return f"{_eps(q)} {_mapping(per, 'ng', 'n')}"


def occupancy_by(q: QuerySpec) -> str:
    v = lit(q.p("value"))
    per = ("(SELECT g, sum(d) AS d, sum(CASE WHEN lab = " + v + " THEN d ELSE 0 END) AS dv FROM iv "
           f"WHERE d IS NOT NULL AND {_win(q, 't')} AND g IS NOT NULL GROUP BY g) per WHERE d > 0")
    return (f"WITH {_lab(q)}, iv AS (SELECT lab, g, t, date_diff('microsecond', t, "
            "lead(t) OVER (PARTITION BY e ORDER BY t)) / 1000000.0 AS d FROM lab) "
            + _mapping(per, "g", "100.0 * dv / d"))


def reached_by(q: QuerySpec) -> str:
    per = (f"(SELECT g, count(DISTINCT e) AS n FROM eps WHERE lab = {lit(q.p('value'))} AND {_win(q, 't')} "
           "AND g IS NOT NULL GROUP BY g) per")
    return f"{_eps(q)} {_mapping(per, 'g', 'n')}"


def top_transitions(q: QuerySpec) -> str:
    k = int(q.p("k", 3))
    return (f"{_eps(q)}, cnt AS (SELECT lab || ' > ' || nx AS path, count(*) AS c FROM eps "
            f"WHERE nx IS NOT NULL AND {_win(q, 'en')} GROUP BY lab || ' > ' || nx), "
            f"top AS (SELECT path, c FROM cnt ORDER BY c DESC, path LIMIT {k}) "
            "SELECT list((path, c) ORDER BY c DESC, path) FROM top")
