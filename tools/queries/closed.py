"""Closed windows as a suite convention (issue 19): "from 00:00 to 06:00" with both ends included, as
some benchmarks of this field count.

Opt-in: a spec whose ``query_plan.windows`` is ``closed`` gets a suite whose every period includes
both ends (``Window.closed``), stated once in ``suite.json`` (``window_bounds: closed`` and the
convention text). The default stays half-open, so existing suites are byte-identical. Only templates
whose executors read the window through the shared row filters (``reference/frames.in_window``,
``sql/common.where_clause``) take closed windows; the windowed candidates of the others are left out
of a closed suite (their question would contradict the stated convention).
"""

from __future__ import annotations

import dataclasses

from tools.queries.registry import Candidate

CLOSED_OK = frozenset({
    "event_count", "distinct_count", "event_rate", "attribute_mean", "attribute_std", "attribute_percentile",
    "attribute_extreme", "conditional_aggregate", "group_aggregate", "exists", "top_k_by_aggregate",
    "entity_count_threshold", "entity_count_streak", "parent_sequence_count",
})

CLOSED_CONVENTION = (
    "A period 'from A to B' or 'A-B' includes both A and B (closed); '24:00' is 00:00 of the next day; "
    "'on 2 January' is 00:00 on 2 January to 00:00 on 3 January, both included; 'from 2 January to 4 January "
    "(whole days)' covers those days up to 00:00 on 5 January, included.")


def is_closed(spec) -> bool:
    """Whether a spec's query plan asks for closed windows."""
    return getattr(getattr(spec, "query_plan", None), "windows", "half_open") == "closed"


def close_candidates(name: str, cands: list[Candidate]) -> list[Candidate]:
    """The candidates of template ``name`` for a closed suite: windows closed, or left out when the
    template cannot take a closed window."""
    out = []
    for c in cands:
        w = c.spec.window
        if w is None:
            out.append(c)
        elif name in CLOSED_OK:
            out.append(dataclasses.replace(c, spec=c.spec.model_copy(update={"window": w.model_copy(
                update={"closed": True})})))
    return out


def closed_conventions(conventions: list[str]) -> list[str]:
    """The suite's conventions with the closed-window sentence instead of the half-open one."""
    return [CLOSED_CONVENTION if c.startswith("A period 'from A to B'") else c for c in conventions]
