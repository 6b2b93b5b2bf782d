"""The chat agent with an LLM: a ``create_agent`` tool-calling loop over the same refinement
operations the offline grammar reaches (``agents.chat_ops.run_refinement``), so both paths change a
bundle in exactly the same, validated ways. Offline, or when the model calls no tool, the grammar
takes over (``graph.chat``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from langchain.agents import create_agent

from agents.chat_versions import apply_recorded
from agents.models import go_offline, is_connection_error, offline_reason, unavailable_message
from tools.bundle.files import SPEC
from tools.common.families import FAMILIES
from tools.describe.apply import RefineError
from tools.describe.extract import incident_words
from tools.describe.refine import Refinement
from tools.spec import SpecError
from tools.spec.io import load_spec

SYSTEM = """You refine an eval bundle for a time-series data agent benchmark, by calling tools.
Call exactly the tool(s) the user's request needs, with arguments taken from the request, then
answer in one sentence with what changed. Days count from the first day of data (day 1).
Entities: {entities}. Incidents: {incidents}."""


def refinement_tools(bundle: Path, model: Any, done: list) -> list:
    """Plain functions (``create_agent`` makes them tools) that apply one refinement each and
    record its ``Change`` in ``done``."""
    def apply(**fields: Any) -> str:
        r = Refinement(text=fields.pop("text", ""), **fields)
        try:
            change = apply_recorded(bundle, r, model)
        except (RefineError, SpecError) as exc:
            return f"could not apply: {exc}"
        done.append(change)
        return "\n".join(change.lines())

    def show_incidents() -> str:
        """List the bundle's incidents (kind, entities, window)."""
        return apply(op="show_incidents")

    def show_questions() -> str:
        """Count the bundle's questions by family and template."""
        return apply(op="show_questions")

    def add_persona(description: str) -> str:
        """Add a persona (who they are and how they write) and a variant of every question in their voice."""
        return apply(op="add_persona", topic=description, text=f"add a persona: {description}")

    def add_incident(kind: str, when: str | None = None, duration: str | None = None,
                     target_value: str | None = None, target_ids: list[str] | None = None) -> str:
        return apply(op="add_incident", kind=kind, when=when, duration=duration, topic=target_value,
                     target_ids=target_ids or [], text=f"add a {kind}")

    add_incident.__doc__ = (  # the kinds chat can add, from the kinds' registry
        f"Inject an incident. kind: {', '.join(k for _, k in incident_words(in_descriptions=False))}. "
        "when: 'day N HH:MM'. duration: '3h'.\n"
        "target_value: an attribute value selecting the targets ('premium'); or target_ids.")

    def cascade_incident(target_ids: list[str], to_entities: str, incident: str | None = None) -> str:
        """Make an incident (or a new outage) hit ``target_ids`` and cascade to the related ``to_entities``."""
        return apply(op="cascade", target_ids=target_ids, entity_word=to_entities, topic=incident,
                     text=f"cascade to {to_entities} behind {', '.join(target_ids)}")

    def remove_incident(kind: str | None = None, words: str | None = None) -> str:
        """Remove the incident of this kind (or whose id/description has these words)."""
        return apply(op="remove_incident", kind=kind, topic=words, text=f"remove {kind or words}")

    def drop_questions(topic: str) -> str:
        """Remove the questions about a topic (family, template, measurement, or e.g. 'security')."""
        return apply(op="drop_questions", topic=topic, text=f"drop the {topic} questions")

    def more_questions(family: str | None = None, topic: str | None = None) -> str:
        return apply(op="more_questions", kind=family, topic=topic, text=f"more {family or ''} questions")

    def resize(count: int | None = None, entity: str | None = None, cadence: str | None = None,
               horizon: str | None = None) -> str:
        """Change an entity type's count, the cadence ('5m') or the horizon ('3d'); rebuilds everything."""
        return apply(op="resize", count=count, entity_word=entity, kind=cadence, duration=horizon, text="resize")

    more_questions.__doc__ = f"Add questions of a family ({', '.join(FAMILIES)}), about a topic when given."
    return [show_incidents, show_questions, add_persona, add_incident, cascade_incident, remove_incident,
            drop_questions, more_questions, resize]


def tool_calling_turn(model: Any, bundle: Path, text: str) -> tuple[list, str] | None:
    """Run one chat turn with the LLM calling refinement tools: (changes, the model's reply), or None
    when the model called no tool or could not be reached (the grammar then handles the turn)."""
    if offline_reason(model) is not None:  # unreachable earlier in this process: do not wait on it again
        return None

    spec = load_spec(bundle / SPEC)
    done: list = []
    prompt = SYSTEM.format(entities=", ".join(e.name for e in spec.entities),
                           incidents=", ".join(i.id for i in spec.incidents) or "none")
    agent = create_agent(model, tools=refinement_tools(bundle, model, done), system_prompt=prompt)
    try:
        result = agent.invoke({"messages": [{"role": "user", "content": text}]}, {"recursion_limit": 12})
    except Exception as exc:  # transport or model failure: the offline grammar handles the turn
        if is_connection_error(exc):
            go_offline(model, unavailable_message(model, exc))
        return None if not done else (done, "")
    if not done:
        return None
    last = result["messages"][-1]
    return done, str(getattr(last, "content", "") or "")
