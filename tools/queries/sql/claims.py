"""DuckDB SQL of the claim, false-premise and unanswerable templates (semantics in
tools/queries/reference/claims.py; written independently of it: the premise and schema checks
read data.duckdb and its information_schema, the reference reads the Parquet files)."""

from __future__ import annotations

from tools.queries.reference.claims import premise_message
from tools.queries.spec import Predicate, QuerySpec
from tools.queries.sql.common import base_cte, ident, lit, pred, ts


def claim_check(q: QuerySpec) -> str:
    """The claim's truth, NULL when the window selects no row."""
    kind = q.p("kind")
    if q.p("op", ">") not in (">", ">=", "<", "<="):
        raise ValueError(f"claim_check: op must be one of > >= < <=, got {q.p('op')!r}")
    base = f"WITH {base_cte(q, events=False)} "
    if kind == "mean":
        return base + f"SELECT avg({ident(q.p('key'))}) {q.p('op')} {lit(q.p('value'))} FROM base"
    p = pred(Predicate.model_validate(q.p("pred")) if q.p("pred") else
             Predicate(column=q.p("key"), op=q.p("op"), value=q.p("value")))
    if kind == "count":
        return base + (f"SELECT CASE WHEN count(*) = 0 THEN NULL ELSE count(DISTINCT {ident(q.entity)}) "
                       f"FILTER (WHERE {p}) > {lit(int(q.p('n')))} END FROM base")
    if kind == "none":
        return base + f"SELECT CASE WHEN count(*) = 0 THEN NULL ELSE count(*) FILTER (WHERE {p}) = 0 END FROM base"
    return base + (f"SELECT CASE WHEN count(*) = 0 THEN NULL ELSE count(*) FILTER (WHERE NOT ok) = 0 END FROM "
                   f"(SELECT {ident(q.entity)}, bool_or(coalesce({p}, false)) AS ok FROM base GROUP BY 1)")


def false_premise(q: QuerySpec) -> str:
    """The premise message when no row supports the premise, else NULL."""
    msg = lit(premise_message(q, q.p("noun", "entity")))
    tbl, ent = ident(q.table), ident(q.entity)
    me = f"CAST({ent} AS VARCHAR) = {lit(str(q.p('id', '')))}"
    kind = q.p("kind")
    if kind == "entity":
        return f"SELECT CASE WHEN count(*) = 0 THEN {msg} END FROM {tbl} WHERE {me}"
    inw = f"{ident(q.time)} >= {ts(q.window.start)} AND {ident(q.time)} < {ts(q.window.end)}"
    if kind == "date":
        return f"SELECT CASE WHEN count(*) = 0 THEN {msg} END FROM {tbl} WHERE {inw}"
    ev = pred(Predicate.model_validate(q.p("event")))
    return (f"SELECT CASE WHEN count(*) > 0 AND count(*) FILTER (WHERE {ev}) = 0 THEN {msg} END "
            f"FROM {tbl} WHERE {inw} AND {me}")


def unanswerable(q: QuerySpec) -> str:
    """The 'missing data' message when no column (or table, for kind ``entity``) is named by ``missing``."""
    word = "".join(c for c in str(q.p("missing")).lower() if c.isalnum())
    norm = "regexp_replace(lower({}), '[^a-z0-9]', '', 'g')"
    names = f"SELECT {norm.format('column_name')} AS n FROM information_schema.columns WHERE table_schema = 'main'"
    if q.p("kind") == "entity":
        names += (f" UNION ALL SELECT {norm.format('table_name')} FROM information_schema.tables "
                  f"WHERE table_schema = 'main'")
    return (f"SELECT CASE WHEN count(*) = 0 THEN {lit(premise_message(q))} END FROM ({names}) "
            f"WHERE contains(n, {lit(word)})")
