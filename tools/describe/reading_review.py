"""The offline reading as items a reviewer (the LLM) can check, and its corrections checked and applied
(issue 29: the LLM can correct the rules, within the catalog's and the text's bounds).

Each item is one entity, measurement or attribute with the words it came from, its catalog match (id, field,
score) or "from the text only", and the catalog entries its words could mean. A correction may give an item
another entry of the right part of the catalog (whose unit fits a stated unit), take its entry away, rename
it with words the description says, or drop it (not the main entity). Anything else is refused with a reason,
so a careless reviewer cannot make a correct reading worse.
"""

from __future__ import annotations

import re

from pydantic import BaseModel

from tools.describe.catalog_model import Catalog
from tools.describe.draft import Correction, DomainDraft, EntityDraft
from tools.describe.field_context import entry_field
from tools.describe.match import index, unit_fits

PARTS = {"entity": "entities", "measurement": "measurements", "attribute": "attributes"}


class ReviewItem(BaseModel):
    """One item of the offline reading, as the reviewer sees it."""

    ref: str
    words: str
    catalog_id: str | None = None
    catalog_field: str | None = None
    score: float | None = None
    candidates: list[str] = []  # "id (field)" of entries its words could mean

    def line(self) -> str:
        """The item in one line for a prompt."""
        match = f"catalog '{self.catalog_id}' ({self.catalog_field}, score {self.score or 0:.2f})" \
            if self.catalog_id else "from the text only"
        more = f"; could also mean: {', '.join(self.candidates)}" if self.candidates else ""
        return f"{self.ref}: '{self.words}' → {match}{more}"


def _candidates(catalog: Catalog, part: str, words: str, have: str | None) -> list[str]:
    return [f"{m.id} ({entry_field(catalog, part, m.id)})" for m in index(catalog, part).lexical(words)[:4]
            if m.id != have and m.score >= 0.6][:3]


def _items(draft: DomainDraft):
    """(ref, kind, entity, item) of every entity, measurement and attribute of a draft."""
    for e in draft.entities:
        yield f"entity {e.name}", "entity", e, e
        for m in e.measurements:
            yield f"measurement {e.name}.{m.name}", "measurement", e, m
        for a in e.attributes:
            yield f"attribute {e.name}.{a.name}", "attribute", e, a


def review_items(draft: DomainDraft, catalog: Catalog) -> list[ReviewItem]:
    """The reading's items with their words, matches and the entries their words could mean."""
    out = []
    for ref, kind, _e, item in _items(draft):
        part = PARTS[kind]
        words = (item.words or item.name.replace("_", " ")).split(" / ")[0]
        out.append(ReviewItem(ref=ref, words=words, catalog_id=item.catalog_id, score=item.score,
                              catalog_field=entry_field(catalog, part, item.catalog_id) if item.catalog_id else None,
                              candidates=_candidates(catalog, part, words, item.catalog_id)))
    return out


def _said(name: str, text: str) -> bool:
    """Every word of a snake_case name is a word of the text (its singular or plural)."""
    said = {w.lower() for w in re.findall(r"[A-Za-z0-9]+", text)}
    stems = {w.rstrip("s") for w in said}
    return all(p in said or p.rstrip("s") in stems for p in name.split("_") if p)


def correction_problem(c: Correction, draft: DomainDraft, catalog: Catalog) -> str | None:
    """Why a correction is outside the catalog's or the text's bounds (None when it may be applied)."""
    found = {ref: (kind, e, item) for ref, kind, e, item in _items(draft)}
    if c.ref not in found:
        return f"{c.ref}: no such item in the reading (items are named like 'measurement {draft.entity.name}.x')"
    kind, e, item = found[c.ref]
    if c.action == "rematch":
        part = PARTS[kind]
        ids = {x.id for x in getattr(catalog, part)}
        if c.catalog_id not in ids:
            return f"{c.ref}: '{c.catalog_id}' is no catalog {part[:-1]} id"
        if kind == "measurement" and item.unit and not unit_fits(catalog.measurement(c.catalog_id).unit, item.unit):
            return f"{c.ref}: '{c.catalog_id}' cannot be in {item.unit}, the unit the text states"
    if c.action == "rename" and (not c.name or not _said(c.name, draft.description)):
        return f"{c.ref}: the name '{c.name}' must be made of words the description says"
    if c.action == "drop" and item is draft.entity:
        return f"{c.ref}: the main entity cannot be dropped"
    return None


def review_problems(llm: DomainDraft, offline: DomainDraft, catalog: Catalog) -> list[str]:
    """The problems of the corrections of an LLM draft against the offline reading (sent back to the model)."""
    return [p for c in llm.corrections if (p := correction_problem(c, offline, catalog))]


def apply_review(draft: DomainDraft, corrections: list[Correction], catalog: Catalog
                 ) -> tuple[DomainDraft, list[str], list[str]]:
    """(corrected draft, corrections taken in words, corrections refused with why)."""
    out = draft.model_copy(deep=True)
    taken, refused = [], []
    for c in corrections:
        problem = correction_problem(c, out, catalog)
        if problem:
            refused.append(problem)
            continue
        kind, e, item = {ref: (k, e, i) for ref, k, e, i in _items(out)}[c.ref]
        why = f" ({c.reason})" if c.reason else ""
        what = f"{c.action} {c.catalog_id or c.name or ''}".strip() if c.action in ("rematch", "rename") else c.action
        if c.action == "rematch":
            item.catalog_id, item.score = c.catalog_id, 0.9
        elif c.action == "unmatch":
            item.catalog_id, item.score = None, None
        elif c.action == "rename":
            _rename(out, kind, e, item, c.name)
        else:
            _drop(out, kind, e, item)
        out.evidence[f"review {c.ref}"] = f"LLM review: {what}{why}"
        taken.append(f"{c.ref}: {what}{why}")
    return out, taken, refused


def _rename(draft: DomainDraft, kind: str, e: EntityDraft, item, name: str) -> None:
    old = item.name
    item.name = name
    if kind == "entity":
        item.plural = name if name.endswith("s") else f"{name}s"
        for x in draft.entities:
            x.parents = [name if p == old else p for p in x.parents]


def _drop(draft: DomainDraft, kind: str, e: EntityDraft, item) -> None:
    if kind == "entity":
        draft.others = [x for x in draft.others if x is not item]
        for x in draft.entities:
            x.parents = [p for p in x.parents if p != item.name]
    elif kind == "measurement":
        e.measurements = [m for m in e.measurements if m is not item]
    else:
        e.attributes = [a for a in e.attributes if a is not item]

