"""Spec helpers chat's operations share (``tools/chat/spec_edits.py``): the entity a word or id names,
the measurement an incident acts on, targets and windows in words, cascades through a foreign key,
a persona from its description, and ``RefineError`` (a change the spec cannot take)."""

from __future__ import annotations

import re
from typing import Any

from tools.describe.extract import snake
from tools.describe.profiles import measurement_profile
from tools.describe.refine import Refinement, find_incident, incident_id

DATA = {"data", "questions", "paraphrases"}


class RefineError(ValueError):
    """A request the spec cannot take (names what is missing and what would work)."""


def _entities(spec: dict) -> list[dict]:
    return spec.get("entities", [])


def entity_for_word(spec: dict, word: str | None) -> dict | None:
    """The entity type a word names ('cells' → cell_site, 'links' → transport_link)."""
    if not word:
        return None
    w = word.lower().rstrip("s")
    for e in _entities(spec):
        names = {e["name"], e["name"].replace("_", " "), e.get("table") or "", e.get("static_table") or ""}
        if any(w and (n.startswith(w) or w in n.split("_")) for n in names if n):
            return e
    return None


def entity_for_id(spec: dict, ident: str) -> dict | None:
    """The entity type whose id format produces ``ident`` (RTR_003 → transport_link)."""
    for e in _entities(spec):
        prefix = e["id"].get("format", "{i}").split("{", 1)[0]
        if prefix and ident.startswith(prefix) and ident[len(prefix):].isdigit():
            return e
    return None


def _attribute_with_value(spec: dict, value: str) -> tuple[dict, str, str] | None:
    """(entity, attribute, exact value) of a categorical attribute that has ``value``."""
    for e in _entities(spec):
        for a in e.get("attributes", []):
            dist = a.get("dist", {})
            if dist.get("kind") == "categorical":
                for v in dist.get("values", {}):
                    if str(v).lower() == value.lower():
                        return e, a["name"], v
    return None


def _keys(e: dict) -> list[str]:
    return [m["name"] for m in e.get("measurements", []) if not m.get("hidden") and not m.get("formula")]


def _key_for(e: dict, text: str, kinds: tuple[str, ...]) -> str | None:
    keys = _keys(e)
    words = [w for w in re.findall(r"[a-z]{4,}", text.lower())]
    named = [k for k in keys if k.lower().replace("_", " ") in text.lower() or k.lower() in text.lower()
             or any(w in k.lower() for w in words)]
    return next(iter(named), None) or next((k for k in keys if measurement_profile(k.lower()).kind in kinds),
                                           keys[0] if keys else None)


def target_words(target: dict) -> str:
    """An incident target in words: '5 random cell_site entities', 'sensors with zone = zone_A'."""
    ent = target.get("entity", "entity")
    if target.get("ids"):
        ids = list(target["ids"])
        return f"{ent} {', '.join(ids[:5])}{' and ' + str(len(ids) - 5) + ' more' if len(ids) > 5 else ''}"
    parts = []
    if target.get("where"):
        parts.append(" and ".join(f"{w.get('attribute')} = {w.get('equals', w.get('in', ''))}" for w in target["where"]))
    n = target.get("random")
    if n:
        what = f"{n} random {ent} entit{'y' if n == 1 else 'ies'}"
        return what + (f" with {parts[0]}" if parts else "")
    return f"every {ent} entity with {parts[0]}" if parts else f"{ent} entities"


def window_words(window: dict) -> str:
    """An incident window in words: 'from day 3 10:00 for 2h'."""
    return f"from {window.get('start')} for {window.get('duration')}"


def _fk_attribute(child: dict, parent: dict) -> str | None:
    for a in child.get("attributes", []):
        d = a.get("dist", {})
        if d.get("kind") == "foreign_key" and d.get("entity") == parent["name"]:
            return a["name"]
    return None


def make_cascade(spec: dict, r: Refinement, days: int) -> str:
    """Re-target the named incident (or a new outage) at the given ids and cascade it to the child
    entities that point at them."""
    root_ent = entity_for_id(spec, r.target_ids[0]) if r.target_ids else None
    child = entity_for_word(spec, r.entity_word)
    if root_ent is None or child is None:
        raise RefineError(f"cannot tell which entities '{r.target_ids[0] if r.target_ids else ''}' and "
                          f"'{r.entity_word}' are; use an id such as {_example_id(spec)} and a table's entity name")
    via = _fk_attribute(child, root_ent)
    if via is None:
        raise RefineError(f"{child['name']} has no foreign key to {root_ent['name']}, so nothing can cascade from "
                          f"{r.target_ids[0]} to it")
    existing = find_incident(spec, r.topic)
    root = dict(existing["root"] if existing and existing.get("kind") == "cascade" else existing or {})
    if root:
        spec["incidents"].remove(existing)
    else:
        root = {"kind": "data_outage", "id": incident_id(spec, "data_outage"),
                "window": {"start": f"day {max(1, days // 2)} 02:00", "duration": "2h"}}
    root["target"] = {"entity": root_ent["name"], "ids": r.target_ids}
    if root.get("effects"):  # effects must name the new root entity's keys
        keys = _keys(root_ent)
        kept = {k: v for k, v in root["effects"].items() if k in keys}
        if not kept and not keys:
            raise RefineError(f"{root_ent['name']} has no measurements for a {root['kind']}; use an outage")
        root["effects"] = kept or {keys[0]: "8sigma"}
    key = _key_for(child, "availability", ("level", "error", "latency", "gauge"))
    effect = "-8sigma" if measurement_profile(key.lower()).kind in ("level", "output", "rate") else "8sigma"
    spec.setdefault("incidents", []).append({
        "kind": "cascade", "id": f"{root['id']}_cascade", "description": f"added in chat: {r.text}", "root": root,
        "children": [{"entity": child["name"], "via": via, "lag": "15m", "effects": {key: effect}}]})
    return f"{root['id']} now hits {', '.join(r.target_ids)} and cascades to its {child['name']}s via {via} ({key})"


def _example_id(spec: dict) -> str:
    e = _entities(spec)[0]
    return e["id"].get("format", "{i}").split("{", 1)[0] + "1"


def persona_from_text(text: str) -> dict[str, Any]:
    """A paraphrase persona (tools.paraphrase.personas.Persona fields) from 'a NOC engineer who writes
    terse questions with abbreviations'."""
    low = text.lower()
    head = re.split(r"\b(?:who|that|which|with|writing|asking)\b|[,;:]", low, maxsplit=1)[0]
    name = snake(re.sub(r"^(?:an?|the)\s+", "", head.strip())) or "chat_persona"
    style = ("terse" if re.search(r"terse|short|keyword|brief", low) else
             "typos" if re.search(r"typo|sloppy|poor grammar|misspell", low) else
             "non_native" if re.search(r"non-native|non native|esl|second language", low) else "perfect_grammar")
    dialect = "uk" if re.search(r"british|\buk\b", low) else "in" if re.search(r"india", low) else "us"
    habits = {"abbreviations": bool(re.search(r"abbrev|acronym|jargon", low)),
              "relative_time": bool(re.search(r"relative|yesterday|last night", low)),
              "typo_rate": 0.05 if style == "typos" else 0.0}
    return {"name": name, "description": text.strip().rstrip(".") + ".", "style": style, "dialect": dialect,
            "formality": "low" if style in ("terse", "typos") else "medium",
            "verbosity": "low" if style == "terse" else "medium", "habits": habits}
