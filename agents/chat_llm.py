"""The chat reading from an LLM: the same typed ``Reading`` the offline reader gives, checked against
the bundle (every incident, persona, entity type, measurement and kind it names must exist) and asked
again with the problems; a reading that still fails, or no answer, returns None (the offline reader
then reads the line)."""

from __future__ import annotations

from typing import Any

from agents.structured import structured_call
from prompts.chat import CHAT, ChatInput
from tools.chat.ops import Reading
from tools.common.families import FAMILIES
from tools.patterns.model import KINDS
from tools.spec.model import Spec


def chat_input(text: str, spec: Spec, last: dict | None) -> ChatInput:
    """What the prompt is told about the bundle."""
    ents = [f"{e.name} x{e.count}, ids {e.id.format.split('{')[0]}..." for e in spec.entities]
    attrs = []
    for e in spec.entities:
        for a in e.attributes:
            values = getattr(a.dist, "values", None)
            if isinstance(values, dict):
                attrs.append(f"{e.name}.{a.name}: {', '.join(map(str, values))}")
    incs = []
    for i in spec.incidents:
        root = getattr(i, "root", i)
        incs.append(f"{i.id}: {root.kind} on {root.target.entity}, {root.window.start} for {root.window.duration}")
    return ChatInput(request=text, entities=ents, measurements=[m.name for e in spec.entities for m in e.measurements],
                     attributes=attrs, incidents=incs, personas=[p.name for p in spec.personas],
                     kinds=[k for k in KINDS if k != "cascade"], families=list(FAMILIES), start=spec.start,
                     last=" ".join(f"{k} {v}" for k, v in (last or {}).items()))


def reading_problems(reading: Reading, spec: Spec) -> list[str]:
    """What in a reading names something the bundle does not have."""
    incidents = {i.id for i in spec.incidents}
    personas = {p.name for p in spec.personas}
    entities = {e.name for e in spec.entities}
    measurements = {m.name for e in spec.entities for m in e.measurements}
    out = []
    for op in reading.ops:
        checks = [("incident", incidents), ("persona", personas if op.op != "add_persona" else None),
                  ("entity", entities), ("measurement", measurements), ("kind", set(KINDS) if "incident" in op.op
                                                                         else None)]
        for field, known in checks:
            value = getattr(op, field, None)
            if known is not None and value is not None and value not in known:
                out.append(f"{op.op}.{field} '{value}' does not exist; use one of: {', '.join(sorted(known))}, "
                           "or return an ask")
    return out


def llm_reading(model: Any, text: str, spec: Spec, last: dict | None) -> Reading | None:
    """The model's reading of ``text``, valid against ``spec``, or None."""
    got = structured_call(model, CHAT.render(chat_input(text, spec, last)), Reading, purpose="chat",
                          check=lambda r: reading_problems(r, spec))
    if got is None or reading_problems(got, spec):
        return None
    return got
