"""Apply a user's edit instruction ("make it 80 turbines every 5 minutes", "over 3 days", "add an
outage") to a draft: what the instruction states replaces what the draft had; the rest stays."""

from __future__ import annotations

import re

from tools.describe.draft import DomainDraft
from tools.describe.extract import (
    find_cadence,
    find_horizon,
    find_incidents,
    find_measurements,
    find_states,
    number,
)


def apply_edit(draft: DomainDraft, instruction: str) -> tuple[DomainDraft, list[str]]:
    """The edited draft and what changed, in words (empty when the instruction changed nothing)."""
    text = " ".join(instruction.split())
    e = draft.entity.model_copy(deep=True)
    ev = dict(draft.evidence)
    changes: list[str] = []
    m = re.search(rf"\b(\d[\d,]*)\s+(?:{re.escape(e.plural.replace('_', ' '))}|{re.escape(e.name.split('_')[-1])}s?|"
                  r"entities|units|of them)\b", text, re.I) or re.search(r"\bcount\s*(?:to|=|:)?\s*(\d[\d,]*)", text, re.I)
    if m:
        e.count = number(m.group(1))
        ev["count"] = m.group(0)
        changes.append(f"count → {e.count}")
    cadence, words = find_cadence(text)
    if cadence:
        e.cadence, ev["cadence"] = cadence, words
        changes.append(f"cadence → {cadence}")
    horizon, words = find_horizon(text)
    data = draft.model_dump()
    if horizon:
        data["horizon"], ev["horizon"] = horizon, words
        changes.append(f"horizon → {horizon}")
    states, words = find_states(text)
    if len(states) >= 2:
        e.states, ev["states"] = states, words
        changes.append(f"states → {', '.join(states)}")
    if re.search(r"\b(?:report|measure|track|record|collect)", text, re.I):
        ms, words = find_measurements(text, e.name)
        if ms:
            e.measurements, ev["measurements"] = ms, words
            changes.append(f"measurements → {', '.join(x.name for x in ms)}")
    hints = list(draft.incident_hints)
    for kind, words in find_incidents(text):
        if kind not in hints:
            hints.append(kind)
            ev[f"incident {kind}"] = words
            changes.append(f"incident {kind} added")
    data.update(entity=e.model_dump(), evidence=ev, incident_hints=hints)
    return DomainDraft.model_validate(data), changes
