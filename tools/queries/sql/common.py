"""The SQL compiler's shared parts: quoting, predicates, and the filtered ``base`` relation.

Every template's ``gold_sql`` starts from :func:`base_cte`, a CTE over the DuckDB table with the
entity filter, window, ``while`` predicate and (optionally) the event filter applied. Written
independently of the pandas executor (see ``tools/queries/reference``).
"""

from __future__ import annotations

from tools.queries.spec import Predicate, QuerySpec
from tools.sqlsafe import quote_ident, quote_literal


def ident(name: str) -> str:
    """A double-quoted identifier (``tools.sqlsafe.quote_ident``)."""
    return quote_ident(name)


def lit(v) -> str:
    """A SQL literal for a string, number or boolean (``tools.sqlsafe.quote_literal``)."""
    return quote_literal(v if isinstance(v, bool | int | float) else str(v))


def ts(iso: str) -> str:
    """A TIMESTAMPTZ literal."""
    return f"TIMESTAMPTZ {lit(iso)}"


def pred(p: Predicate, alias: str = "") -> str:
    """One predicate as SQL (NULL never satisfies it: SQL's three-valued logic does that)."""
    col = (alias + "." if alias else "") + ident(p.column)
    if p.op in ("in", "not_in"):
        items = ", ".join(lit(x) for x in p.value)
        return f"{col} {'IN' if p.op == 'in' else 'NOT IN'} ({items})"
    op = "=" if p.op == "==" else ("<>" if p.op == "!=" else p.op)
    return f"{col} {op} {lit(p.value)}"


def conj(preds: list[Predicate]) -> str:
    return " AND ".join(pred(p) for p in preds) if preds else "TRUE"


def where_clause(q: QuerySpec, *, events: bool = True, window: bool = True) -> str:
    """The WHERE condition of the base relation."""
    parts: list[str] = []
    f = q.entity_filter
    if f is not None:
        if f.table is None:
            parts.append(f"{ident(q.entity)} IN (SELECT {ident(q.entity)} FROM {ident(q.table)} "
                         f"WHERE {conj(f.predicates)})")
        else:
            parts.append(f"{ident(f.key)} IN (SELECT {ident(f.ref)} FROM {ident(f.table)} "
                         f"WHERE {conj(f.predicates)})")
    if window and q.window is not None:
        below = "<=" if q.window.closed else "<"
        parts.append(f"{ident(q.time)} >= {ts(q.window.start)} AND {ident(q.time)} {below} {ts(q.window.end)}")
    if q.while_ is not None:
        parts.append(pred(q.while_))
    if events and q.event_filter:
        parts.append(conj(q.event_filter))
    return " AND ".join(parts) if parts else "TRUE"


def base_cte(q: QuerySpec, *, events: bool = True, window: bool = True) -> str:
    """``base AS (SELECT * FROM table WHERE ...)``."""
    return f"base AS (SELECT * FROM {ident(q.table)} WHERE {where_clause(q, events=events, window=window)})"


def state_expr(state: dict) -> str:
    """Per-row state: the column, or 'in'/'out' for a predicated state (NULL → 'out')."""
    if "column" in state:
        return f"CAST({ident(state['column'])} AS VARCHAR)"
    return f"CASE WHEN {pred(Predicate.model_validate(state['predicate']))} THEN 'in' ELSE 'out' END"
