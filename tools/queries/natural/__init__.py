"""Natural question wording: what a user of the domain would type, plus the evidence that defines
its derived terms. ``natural(template, candidate, ctx)`` → ``(question, evidence)``.

A template may bring its own ``Template.natural``; otherwise the renderer here of the same name is
used; a template with neither keeps its precise wording as the question (evidence empty).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from tools.queries.natural import incident, stateful, stateless

Natural = Callable[[Any, Any], tuple[str, str]]

RENDERERS: dict[str, Natural] = {
    name: getattr(mod, name)
    for mod, names in (
        (stateless, ("event_count", "distinct_count", "event_rate", "attribute_mean", "attribute_std",
                     "attribute_percentile", "attribute_extreme", "conditional_aggregate", "group_aggregate",
                     "exists", "top_k_by_aggregate")),
        (stateful, ("avg_time_between", "sequence_match", "count_after_trigger", "conversion_rate",
                    "count_in_state", "state_reached", "alternating_count", "cross_window_delta",
                    "state_duration", "first_passage_time", "transition_counts", "common_paths",
                    "revisit_count", "state_occupancy", "threshold_without_outcome")),
        (incident, ("incident_exists", "incident_kpi", "incident_affected_count", "incident_top_k",
                    "incident_worst_entity", "incident_vs_baseline", "incident_cross_entity")),
    )
    for name in names
}


def natural(template: Any, candidate: Any, ctx: Any, precise: str) -> tuple[str, str]:
    """(question, evidence) of one candidate; the precise wording when no natural renderer exists."""
    fn = getattr(template, "natural", None) or RENDERERS.get(template.name)
    if fn is None:
        return precise, ""
    question, evidence = fn(candidate, ctx)
    q = candidate.spec
    if q.entity_parts and (template.type_of(q) in ("entity", "entity_list") or q.group_by == q.entity
                           or template.name == "top_k_by_aggregate"):  # the answer names entities of a composite key
        from tools.queries.composite import key_format

        noun = ctx.catalog[q.table].noun
        evidence = f"{evidence} Name each {noun} as {key_format(q.entity, q.entity_parts)}.".strip()
    return fix_articles(question), fix_articles(evidence)


_A_VOWEL = re.compile(r"\b([Aa]) (?=(?!one\b|once\b)[aeio]\w)")


def fix_articles(text: str) -> str:
    """'a event' → 'an event', 'A entity' → 'An entity' (shared helpers put 'a' before any noun)."""
    return _A_VOWEL.sub(lambda m: m.group(1) + "n ", text)
