"""DuckDB SQL for ``entity_count_threshold`` (written independently of the pandas reference): per-entity
counts of the filtered rows, then the entities past the threshold."""

from __future__ import annotations

from tools.queries.composite import key_sql
from tools.queries.spec import QuerySpec
from tools.queries.sql.common import base_cte, lit


def entity_count_threshold(q: QuerySpec) -> str:
    op = q.p("op", ">")
    if op not in (">", ">="):
        raise ValueError(f"count threshold op {op!r}")
    key = key_sql(q)  # the entity's id columns (a composite key: all of them)
    return (f"WITH {base_cte(q)}, per AS (SELECT {key}, count(*) AS n FROM base "
            f"GROUP BY {key}) SELECT count(*) FROM per WHERE n {op} {lit(int(q.p('n')))}")
