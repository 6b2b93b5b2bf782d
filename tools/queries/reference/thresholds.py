"""pandas reference for ``entity_count_threshold``: entities with more than N matching rows.

Semantics (shared with ``tools/queries/sql/thresholds.py``): the selected rows (entity filter,
window, event filter) are counted per entity; the answer is the number of entities whose count is
``> n`` (``params.op`` ``>``, default) or ``>= n`` (``>=``). Entities without a matching row never
count. The naive reading ignores the threshold: every entity with at least one matching row.
"""

from __future__ import annotations

from tools.queries.composite import key_columns
from tools.queries.reference.frames import Frames, selected_rows
from tools.queries.spec import QuerySpec


def entity_count_threshold(frames: Frames, q: QuerySpec) -> int:
    counts = selected_rows(frames, q).groupby(key_columns(q), observed=True).size()
    n = int(q.p("n"))
    return int((counts >= n).sum() if q.p("op", ">") == ">=" else (counts > n).sum())


def entity_count_threshold_naive(frames: Frames, q: QuerySpec) -> int:
    return int(len(selected_rows(frames, q)[key_columns(q)].drop_duplicates()))
