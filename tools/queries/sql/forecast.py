"""DuckDB SQL of the forecast templates: the held-back value, read from ``holdout/<table>.parquet``
(resolved against the bundle through DuckDB's ``file_search_path``; never from data.duckdb)."""

from __future__ import annotations

from tools.queries.holdout import holdout_path
from tools.queries.spec import Predicate, QuerySpec
from tools.queries.sql.common import ident, lit, pred, ts


def _where(q: QuerySpec) -> str:
    parts = [f"{ident(q.time)} >= {ts(q.window.start)}", f"{ident(q.time)} < {ts(q.window.end)}"]
    if q.p("id") is not None:
        parts.append(f"CAST({ident(q.entity)} AS VARCHAR) = {lit(str(q.p('id')))}")
    if q.p("pred"):
        parts.append(pred(Predicate.model_validate(q.p("pred"))))
    return " AND ".join(parts)


def forecast_mean(q: QuerySpec) -> str:
    return (f"SELECT avg({ident(q.p('key'))}) FROM read_parquet({lit(holdout_path(q.table))}) "
            f"WHERE {_where(q)}")


def forecast_count(q: QuerySpec) -> str:
    return f"SELECT count(*) FROM read_parquet({lit(holdout_path(q.table))}) WHERE {_where(q)}"
