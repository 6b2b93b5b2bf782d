"""'make the outage cascade to the cells behind RTR_003': an incident (named, or a new outage) hits the
named entities and cascades to the related entity type. The ids and the entity type must exist; the
incident, when one is named, must come down to exactly one (else the reader asks)."""

from __future__ import annotations

from tools.chat.ops import CascadeIncident
from tools.chat.read_context import Context
from tools.chat.read_refs import resolve_incidents
from tools.chat.read_targets import take_ids
from tools.chat.read_text import Clause, NeedAsk

CASCADE_CUE = r"\b(?:cascade|cascades|cascading|propagate|propagates|spread|spreads|ripple|ripples)\b"


def read_cascade(cl: Clause, ctx: Context) -> list:
    """The cascade a clause asks for (raises NeedAsk when the ids, the entity type or the incident is unclear)."""
    cl.grab(CASCADE_CUE)
    link = cl.grab(r"\b(?:behind|served by|under|attached to|connected to|linked to|downstream of|fed by|of)\b")
    ids, _ = take_ids(cl, ctx)
    if not ids or link is None:
        raise NeedAsk("say which entities it starts from and what it reaches, e.g. 'cascade to the cells behind "
                      "RTR_003'", confidence=0.3)
    to = None
    head = cl.grab(r"\bto\s+(?:the\s+|all\s+(?:the\s+)?|every\s+)?([a-z_]+(?:\s+[a-z_]+)?)\b")
    if head is not None:
        for word in reversed(head.group(1).split()):
            found = ctx.vocab.entities_for(word)
            if len(found) == 1:
                to = next(iter(found))
                break
    if to is None:
        raise NeedAsk(f"which entities should it cascade to? entity types: {', '.join(e.name for e in ctx.vocab.spec.entities)}",
                      candidates=[e.name for e in ctx.vocab.spec.entities], confidence=0.3)
    if cl.grab(r"\b(?:an?\s+(?:new\s+)?|new\s+)(?:outage|blackout)\b"):
        cl.grab(r"\b(?:make|have|let|add|start)\b")
        return [CascadeIncident(ids=ids, to=to)]  # a new outage at the ids
    cl.grab(r"\b(?:make|have|let|the)\b")
    found = resolve_incidents(cl, ctx)
    if found and len(found) > 1:
        raise NeedAsk("which incident should cascade?", candidates=found, confidence=0.3)
    return [CascadeIncident(ids=ids, to=to, incident=found[0] if found else None)]
