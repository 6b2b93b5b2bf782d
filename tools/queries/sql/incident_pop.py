"""DuckDB SQL of issue 19's incident variants (semantics in ``tools/queries/reference/incident_pop.py``).

Written apart from the pandas executor; portable SQL (scalar subqueries, FILTER, a struct literal that
sqlglot writes for every gold SQL dialect).
"""

from __future__ import annotations

from tools.queries.spec import EntityFilter, QuerySpec, Window
from tools.queries.sql.common import ident, lit, where_clause
from tools.queries.sql.incident import agg_sql

_CMP = {">": ">", ">=": ">=", "<": "<", "<=": "<="}


def _other(q: QuerySpec) -> QuerySpec:
    be, b = q.p("baseline_entities"), q.p("baseline")
    f = None if be == "all" else EntityFilter.model_validate(be)
    return q.model_copy(update={"entity_filter": f, "window": Window(start=b["start"], end=b["end"])})


def vs_population(q: QuerySpec) -> str:
    """``incident_vs_baseline`` against another population's rows in the baseline window."""
    agg, t = agg_sql(q), ident(q.table)
    cmp = ">" if q.p("direction", "up") == "up" else "<"
    name = q.p("figure", "ratio")
    fig = "vi / nullif(vb, 0)" if name == "ratio" else "vi - vb"
    return (f"WITH v AS (SELECT (SELECT CAST({agg} AS DOUBLE) FROM {t} WHERE {where_clause(q)}) AS vi, "
            f"(SELECT CAST({agg} AS DOUBLE) FROM {t} WHERE {where_clause(_other(q))}) AS vb) "
            f"SELECT {{'value': coalesce(vi {cmp} vb, FALSE), {lit(name)}: {fig}}} FROM v")


def threshold_count(q: QuerySpec) -> str:
    """``incident_affected_count`` with ``rule: threshold``: entities with a reading past the threshold."""
    hit = f"{ident(q.p('key'))} {_CMP[q.p('op')]} {lit(q.p('value'))}"
    return f"SELECT count(DISTINCT {ident(q.entity)}) FROM {ident(q.table)} WHERE {where_clause(q)} AND {hit}"
