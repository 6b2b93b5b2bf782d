"""Matcher for table answers: the response's rows (markdown / JSON / DataFrame table, or 'k: v' prose)
against the expected rows as a multiset, each cell a number within tolerance or the same label."""

from __future__ import annotations

import re
from typing import Any

from tools.grade.scalars import Verdict, within
from tools.grade.table_candidates import tables_of
from tools.grade.text import norm_label, numbers


def _table_rows(text: str) -> list[list[str]] | None:
    tables = tables_of(text)
    if tables:
        return tables[0].rows
    m = [ln for ln in text.splitlines() if ln.strip()]
    pairs = [re.split(r"\s*[:=]\s*|\s+", p.strip(), maxsplit=1) for ln in m for p in re.split(r"[,;]\s*", ln) if p.strip()]
    return pairs if pairs and all(len(p) == 2 for p in pairs) else None


def _cell_eq(got: str, want: Any, tol: dict) -> bool:
    if isinstance(want, int | float) and not isinstance(want, bool):
        nums = numbers(str(got))
        return bool(nums) and within(nums[0].value, float(want), tol)
    return norm_label(got) == norm_label(want)


def match_table(text: str, expected: dict, tol: dict) -> Verdict:
    """Rows of a markdown / JSON / DataFrame table (or 'k: v' prose) matched to the expected rows as a
    multiset (any order)."""
    rows = _table_rows(text)
    if rows is None:
        return Verdict(False, False, "no table found in the response", reason="no_candidate")
    left = list(range(len(rows)))
    missing = []
    for want in expected["rows"]:
        hit = next((i for i in left if len(rows[i]) >= len(want)
                    and all(_cell_eq(g, w, tol) for g, w in zip(rows[i], want, strict=False))), None)
        if hit is None:
            missing.append(want)
        else:
            left.remove(hit)
    extra = [rows[i] for i in left]
    got, want_n = len(rows) - len(extra), len(expected["rows"])
    f1 = 0.0 if got == 0 else 2 * got / (len(rows) + want_n)
    parts = [f"missing rows: {missing}" if missing else "", f"extra rows: {extra}" if extra else ""]
    reason = "same_rows" if not (missing or extra) else ("missing_keys" if missing else "extra_keys")
    return Verdict(not missing and not extra, True, "; ".join(p for p in parts if p), rows, f1, reason=reason)
