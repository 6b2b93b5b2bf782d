"""Validate an LLM's domain draft against the catalog and merge it into the offline reading.

The offline draft is the floor: the LLM may resolve what the rules could not place (a catalog id for
a measurement the rules left generic, values of an attribute), and add items that validate, but it
never removes or overrides what the rules read with a catalog match. So the LLM path can only do
better than offline, never worse.
"""

from __future__ import annotations

from tools.describe.catalog_model import Catalog
from tools.describe.draft import DomainDraft, EntityDraft
from tools.describe.match import index, tokens, unit_fits
from tools.describe.units import parse_unit


def _catalog_ids(catalog: Catalog) -> set[str]:
    return {m.id for m in catalog.measurements}


def draft_problems(llm: DomainDraft, offline: DomainDraft, catalog: Catalog) -> list[str]:
    """What is wrong with an LLM draft, as sentences the model can act on: unknown catalog ids,
    units that do not parse or do not fit the catalog entry, items the text names that it left out."""
    ids = _catalog_ids(catalog)
    problems: list[str] = []
    for e in llm.entities:
        for m in e.measurements:
            if m.catalog_id and m.catalog_id not in ids:
                problems.append(f"{e.name}.{m.name}: catalog_id '{m.catalog_id}' is not in the catalog; use one of "
                                "the listed ids or null")
            if m.unit and parse_unit(m.unit) is None and "/" not in m.unit:
                problems.append(f"{e.name}.{m.name}: unit '{m.unit}' is not a unit; write it as in the catalog "
                                "(kW, °C, %, mmHg, ms)")
            elif m.unit and m.catalog_id in ids and not unit_fits(catalog.measurement(m.catalog_id).unit, m.unit):
                problems.append(f"{e.name}.{m.name}: unit '{m.unit}' cannot express {m.catalog_id} "
                                f"({catalog.measurement(m.catalog_id).unit})")
    named = {tok for e in llm.entities for m in e.measurements for tok in tokens(m.words or m.name)}
    for e in offline.entities:
        for m in e.measurements:
            if not set(tokens(m.words or m.name)) & named:
                problems.append(f"the text names '{m.words or m.name}' ({e.name}); include it as a measurement")
    return problems


def _find(entities: list[EntityDraft], e: EntityDraft) -> EntityDraft | None:
    return next((x for x in entities if x.name == e.name or (e.catalog_id and x.catalog_id == e.catalog_id)), None)


def merge_drafts(offline: DomainDraft, llm: DomainDraft, catalog: Catalog) -> tuple[DomainDraft, list[str]]:
    """The offline draft improved by the LLM's valid items, and what was taken, in words."""
    ids = _catalog_ids(catalog)
    out = offline.model_copy(deep=True)
    taken: list[str] = []
    resolved: set[str] = set()
    if out.horizon is None and llm.horizon:
        out.horizon = llm.horizon
        taken.append(f"horizon {llm.horizon} (LLM; the rules read none)")
    for e in out.entities:
        other = _find(llm.entities, e) or (llm.entity if e is out.entity else None)
        if other is None:
            continue
        for part in ("count", "cadence"):  # what the rules could not read
            if getattr(e, part) is None and getattr(other, part) is not None and e.kind == other.kind:
                setattr(e, part, getattr(other, part))
                taken.append(f"{e.name} {part} {getattr(other, part)} (LLM; the rules read none)")
        for m in e.measurements:  # a catalog id for what the rules left generic
            o = next((x for x in other.measurements if x.name == m.name or set(tokens(x.words)) == set(tokens(m.words))),
                     None)
            if m.catalog_id is None and o and o.catalog_id in ids and unit_fits(catalog.measurement(o.catalog_id).unit,
                                                                                 m.unit or o.unit or ""):
                m.catalog_id, m.score = o.catalog_id, 0.9
                taken.append(f"{e.name}.{m.name} → catalog '{o.catalog_id}' (LLM)")
                resolved.add(m.words)
        have = {m.name for m in e.measurements} | {m.catalog_id for m in e.measurements if m.catalog_id}
        for o in other.measurements:  # items the rules missed
            if o.name in have or (o.catalog_id and o.catalog_id in have):
                continue
            if o.catalog_id and o.catalog_id not in ids:
                continue
            if o.unit and o.catalog_id and not unit_fits(catalog.measurement(o.catalog_id).unit, o.unit):
                continue
            e.measurements.append(o)
            taken.append(f"{e.name}.{o.name} added (LLM{', catalog ' + o.catalog_id if o.catalog_id else ''})")
        for a in e.attributes:
            o = next((x for x in other.attributes if x.name == a.name), None)
            if not a.values and o and len(o.values) >= 2:
                a.values = list(o.values)
                taken.append(f"{e.name}.{a.name} values {', '.join(o.values)} (LLM)")
        if len(e.states) < 2 and len(other.states) >= 2:
            e.states = list(other.states)
            taken.append(f"{e.name} states {', '.join(other.states)} (LLM)")
    out.not_understood = [n for n in out.not_understood if not any(f"'{w}'" in n for w in resolved)]
    return out, taken


def catalog_context(offline: DomainDraft, catalog: Catalog, limit: int = 40) -> list[str]:
    """Catalog entries for the prompt: those the offline reading matched, one line each."""
    lines: list[str] = []
    for e in offline.entities:
        if e.catalog_id:
            a = catalog.entity(e.catalog_id)
            lines.append(f"entity {a.id}: {a.name} ({a.kind}); states {', '.join(s.name for s in a.states) or '-'}")
        for m in e.measurements:
            if m.catalog_id:
                x = catalog.measurement(m.catalog_id)
                lines.append(f"measurement {x.id}: {x.name}, unit {x.unit_label or x.unit or '-'}, typical {x.typical:g}, "
                             f"bounds {list(x.bounds)}, {'whole numbers' if x.integer else 'decimals'}, worse {x.worse}")
        for a in e.attributes:
            if a.catalog_id:
                y = catalog.attribute(a.catalog_id)
                lines.append(f"attribute {y.id}: values {', '.join(y.values)}")
        for m in e.measurements:  # what the rules could not place: the nearest entries by word
            if m.catalog_id is None:
                words = m.words or m.name.replace("_", " ")
                cands = index(catalog, "measurements").lexical(words)[:3]
                for tok in tokens(words):
                    cands += index(catalog, "measurements").lexical(tok)[:2]
                for c in cands[:4]:
                    x = catalog.measurement(c.id)
                    lines.append(f"measurement {x.id}: {x.name}, unit {x.unit_label or x.unit or '-'}, typical "
                                 f"{x.typical:g}, bounds {list(x.bounds)} (a candidate for '{words}')")
    return list(dict.fromkeys(lines))[:limit]


def advice_problems(spec: dict, advice: list[dict]) -> dict[str, str]:
    """Per measurement name, why the LLM's advice breaks the catalog (bounds outside the plausible
    range, a typical level outside it, a unit that cannot express it, whole numbers lost)."""
    from tools.describe.units import convert

    by_name = {m["name"]: m for e in spec["entities"] for m in e.get("measurements", [])}
    out: dict[str, str] = {}
    for a in advice:
        m = by_name.get(a["name"])
        if m is None:
            out[a["name"]] = f"{a['name']}: no such measurement"
            continue
        p = m.get("plausible") or {}
        lo, hi = p.get("low"), p.get("high")
        why = []
        if a.get("unit") and m.get("unit") and a["unit"] != m["unit"] and convert(1.0, m["unit"], a["unit"]) is None:
            why.append(f"unit {a['unit']} cannot express {m['unit']}")
        if lo is not None and (a.get("low") is None or a["low"] < lo or a["typical"] < lo):
            why.append(f"the catalog's lower bound is {lo:g}")
        if hi is not None and (a.get("high") is None or a["high"] > hi or a["typical"] > hi):
            why.append(f"the catalog's upper bound is {hi:g}")
        if p.get("integer") and not a.get("integer"):
            why.append("values are whole numbers")
        if why:
            out[a["name"]] = f"{a['name']}: " + "; ".join(why)
    return out
