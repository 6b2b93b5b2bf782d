"""Answers and naive readings a question must not have (issue 19, "no degenerate answers").

- a share (percentage of entities: ``conversion_rate``) of 0% or 100% says nothing about the agent;
- a ranking with fewer entries than the question asks for ("which 5 ..." where 3 exist);
- a naive reading outside the answer's domain (a percentage above 100, a negative count or
  duration) is no misreading an agent would give: it is dropped from the record (``naive_answer``
  null) and the question stays, except a stateful question, which exists to show its misreading and
  is dropped.
"""

from __future__ import annotations

from typing import Any

from tools.queries.registry import Candidate, Template

SHARE_TEMPLATES = frozenset({"conversion_rate"})
PERCENT_UNITS = ("%", "percent", "pct")


def _numbers(x: Any) -> list[float]:
    """The numeric parts of an answer (scalar, mapping values, ranking values, boolean figures)."""
    if isinstance(x, bool) or x is None:
        return []
    if isinstance(x, int | float):
        return [float(x)]
    if isinstance(x, dict):
        return [v for k, val in x.items() if k != "value" for v in _numbers(val)]
    if isinstance(x, list):
        return [v for item in x for v in (_numbers(item[1]) if isinstance(item, list) and len(item) == 2
                                          else _numbers(item))]
    return []


def degenerate_reason(t: Template, c: Candidate, answer: Any) -> str | None:
    """Why an answer makes a useless question (None when it is fine)."""
    q = c.spec
    if t.name in SHARE_TEMPLATES and isinstance(answer, int | float) and not isinstance(answer, bool) \
            and answer in (0, 0.0, 100, 100.0) and not (c.contrast or c.negative):
        return f"degenerate share {answer}%: every or no {q.entity} qualifies"
    if t.type_of(q) == "ranking" and isinstance(answer, list):
        k = q.p("k", 3)
        if k is not None and len(answer) < int(k):
            return f"ranking has {len(answer)} entries, the question asks for {k}"
    return None


def naive_in_domain(t: Template, c: Candidate, naive: Any) -> bool:
    """Whether a naive reading lies in the answer's domain (percentages in [0, 100], counts and
    durations not negative)."""
    atype = t.type_of(c.spec)
    nums = _numbers(naive)
    if (c.unit or "") in PERCENT_UNITS or t.name in SHARE_TEMPLATES or t.name == "state_occupancy":
        if any(v < 0 or v > 100 for v in nums):
            return False
    if atype in ("integer", "duration") or t.name in ("event_count", "distinct_count"):
        if any(v < 0 for v in nums) and t.name != "cross_window_delta":
            return False
    return True
