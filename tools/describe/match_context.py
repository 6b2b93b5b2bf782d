"""Matching a phrase in the context of its description (issue 29): the description's fields decide which
catalog entries a shared word may mean (``tools.describe.field_context``), and the thing the sentence is about
completes a bare word ("power" said of GPUs is GPU power draw, "priority" of a ticket its priority), as the
reader does for an entity's own measurements and attributes."""

from __future__ import annotations

from tools.describe.catalog_model import Catalog
from tools.describe.field_context import FieldContext, accept, read_field_context
from tools.describe.match import Match, SemanticScorer, best_match, index, tokens

_CONTEXTS: dict[tuple[int, str], FieldContext] = {}


def _context(catalog: Catalog, text: str) -> FieldContext:
    key = (id(catalog), text)
    if key not in _CONTEXTS:
        if len(_CONTEXTS) > 512:
            _CONTEXTS.clear()
        _CONTEXTS[key] = read_field_context(text, catalog)
    return _CONTEXTS[key]


def sentence_context(catalog: Catalog, sentence: str, description: str) -> FieldContext:
    """The fields of the description, plus a field its sentence alone shows (a mixed description's
    sentence about another kind of thing)."""
    whole, own = _context(catalog, description), _context(catalog, sentence)
    return whole if own.own <= whole.own else FieldContext(own=whole.own | own.own, evidence=whole.evidence,
                                                           words=whole.words)


def entities_said(catalog: Catalog, text: str, ctx: FieldContext) -> list[str]:
    """The catalog entities ``text`` names that fit its context, in the order they are said."""
    out = []
    for _pos, id_, words in index(catalog, "entities").mentions(text):
        if id_ not in out and accept(catalog, "entities", id_, tokens(words), ctx, exact=True)[0]:
            out.append(id_)
    return out


def _own_entry(catalog: Catalog, part: str, phrase: str, entity_ids: list[str]) -> Match | None:
    """The entity's own measurement or attribute whose synonym holds every word of the phrase."""
    want = set(tokens(phrase))
    if not want:
        return None
    for eid in entity_ids:
        arch = catalog.entity(eid)
        own = arch.measurements if part == "measurements" else arch.attributes if part == "attributes" else []
        for id_ in own:
            entry = catalog.measurement(id_) if part == "measurements" else catalog.attribute(id_)
            names = [getattr(entry, "name", ""), *entry.synonyms]
            if any(want <= set(tokens(w)) for w in names if w):
                return Match(id_, 0.95, f"the {arch.name}'s own '{id_}'", tuple(want))
    return None


def match_in_context(catalog: Catalog, part: str, phrase: str, sentence: str, description: str,
                     semantic: SemanticScorer | None = None) -> Match | None:
    """``best_match`` of a phrase as it is said in ``sentence`` of ``description``: an entry of a field the
    description is not about needs more than a shared word; a bare word said of a known thing is that
    thing's own measurement or attribute when it has one."""
    ctx = sentence_context(catalog, sentence, description)
    best = best_match(catalog, part, phrase, semantic, context=ctx)
    if part not in ("measurements", "attributes"):
        return best
    things = entities_said(catalog, sentence, ctx) or entities_said(catalog, description, ctx)
    for eid in things:
        m = best_match(catalog, part, f"{catalog.entity(eid).name} {phrase}", semantic, context=ctx)
        if m is not None and m.score >= 0.95 and (best is None or m.score > best.score):
            best = m
    own = _own_entry(catalog, part, phrase, things)
    if own is not None and (best is None or best.score < 1.0 or best.id != own.id):
        return own
    return best
