"""Map the user's noun phrases to catalog archetypes, with a score.

Lexical evidence first (the archetype's synonyms and abbreviations, whole words, plural-insensitive;
typos through rapidfuzz), then an optional semantic scorer (the RAG memory's embedding search,
passed in by the agent: the core never reads the memory itself). A phrase matches the archetype
with the best combined score when that score reaches ``MIN_SCORE``; otherwise it is "not
understood" and the caller says so.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from rapidfuzz import fuzz, process

from tools.describe.catalog_model import Catalog
from tools.describe.extract import singular  # re-exported: the describe modules import it from here
from tools.describe.field_context import FieldContext, accept, entry_field

MIN_SCORE = 0.62
PARTIAL_IN_CONTEXT = 0.7  # with the description's context: a partial synonym must cover most of the phrase
SemanticScorer = Callable[[str, str], list[tuple[str, float]]]  # (phrase, part) -> [(id, cosine)]
_STOP = {"the", "a", "an", "of", "its", "their", "each", "per", "and", "or", "in", "on", "at", "for", "with",
         "average", "avg", "mean", "total", "actual", "measured", "reported", "overall"}


@dataclass(frozen=True)
class Match:
    """The archetype a phrase was matched to, how well, and how (lexical, fuzzy, semantic)."""

    id: str
    score: float
    how: str
    words: tuple[str, ...] = ()  # the synonym's words that matched (what context-aware acceptance weighs)

    @property
    def said(self) -> bool:
        """The synonym's words are in the phrase as the user wrote them (not a near spelling or an embedding)."""
        return self.how in ("synonym", "synonym in phrase")


def tokens(text: str) -> tuple[str, ...]:
    """Lower-case singular word tokens without filler words ('the average rotor speeds' → rotor, speed)."""
    words = re.findall(r"[a-z0-9]+(?:[-'][a-z0-9]+)*", text.lower().replace("_", " "))
    return tuple(singular(w.replace("-", "")) for w in words if w not in _STOP)


class CatalogIndex:
    """Synonym lookups over one part of the catalog ('measurements', 'entities', 'attributes',
    'roles', 'incidents')."""

    def __init__(self, entries: Iterable[tuple[str, list[str]]]):
        self.by_phrase: dict[tuple[str, ...], list[str]] = {}
        for id_, words in entries:
            for w in [id_.replace("_", " "), *words]:
                t = tokens(w)
                if t and id_ not in self.by_phrase.setdefault(t, []):
                    self.by_phrase[t].append(id_)
        self.phrases = [" ".join(t) for t in self.by_phrase]
        self.max_len = max((len(t) for t in self.by_phrase), default=1)

    def lexical(self, phrase: str) -> list[Match]:
        """Candidates for a phrase, best first: exact synonym 1.0, a synonym inside the phrase
        (0.75-0.95 by how much of the phrase it covers), a near spelling (typos) ≤ 0.9."""
        t = tokens(phrase)
        if not t:
            return []
        found: dict[str, Match] = {}

        def add(id_: str, score: float, how: str, words: tuple[str, ...]) -> None:
            if id_ not in found or found[id_].score < score:
                found[id_] = Match(id_, round(score, 3), how, words)

        for id_ in self.by_phrase.get(t, []):
            add(id_, 1.0, "synonym", t)
        for n in range(min(len(t), self.max_len), 0, -1):
            for i in range(len(t) - n + 1):
                for id_ in self.by_phrase.get(t[i: i + n], []):
                    cover = n / len(t)
                    add(id_, 0.55 + 0.4 * cover + (0.03 if i + n == len(t) else 0.0), "synonym in phrase", t[i: i + n])
        if not found or max(m.score for m in found.values()) < 0.9:
            joined = " ".join(t)
            for text, ratio, _ in process.extract(joined, self.phrases, scorer=fuzz.ratio, limit=3):
                if ratio >= 86 and len(text) >= 5 and abs(len(text) - len(joined)) <= 2:  # a typo, not a longer name
                    for id_ in self.by_phrase[tuple(text.split())]:
                        add(id_, 0.9 * ratio / 100, f"near spelling of '{text}'", tuple(text.split()))
        return sorted(found.values(), key=lambda m: (-m.score, m.id))

    def mentions(self, text: str) -> list[tuple[int, str, str]]:
        """Every synonym found in ``text`` as (word position, id, the words), longest first."""
        words = re.findall(r"[A-Za-z0-9]+(?:[-'][A-Za-z0-9]+)*", text)
        norm = [singular(w.lower().replace("-", "")) for w in words]
        out, taken = [], set()
        for n in range(self.max_len, 0, -1):
            for i in range(len(norm) - n + 1):
                span = set(range(i, i + n))
                if span & taken:
                    continue
                key = tuple(w for w in norm[i: i + n] if w not in _STOP)
                if len(key) == n and key in self.by_phrase:
                    for id_ in self.by_phrase[key]:
                        out.append((i, id_, " ".join(words[i: i + n])))
                    taken |= span
        return sorted(out)


_BUILT: dict[int, tuple[Catalog, dict[str, CatalogIndex]]] = {}


def _indexes(catalog: Catalog) -> dict[str, CatalogIndex]:
    hit = _BUILT.get(id(catalog))
    if hit is not None and hit[0] is catalog:
        return hit[1]
    built = {
        "measurements": CatalogIndex((m.id, [m.name, *m.synonyms]) for m in catalog.measurements),
        "entities": CatalogIndex((e.id, [e.name, e.plural, *e.synonyms]) for e in catalog.entities),
        "attributes": CatalogIndex((a.id, a.synonyms) for a in catalog.attributes),
        "roles": CatalogIndex((r.id, r.synonyms) for r in catalog.roles),
        "incidents": CatalogIndex((i.id, [i.name, *i.synonyms]) for i in catalog.incidents),
    }
    if len(_BUILT) > 8:
        _BUILT.clear()
    _BUILT[id(catalog)] = (catalog, built)
    return built


def index(catalog: Catalog, part: str) -> CatalogIndex:
    """The synonym index of one catalog part (built once per catalog)."""
    return _indexes(catalog)[part]


def unit_fits(archetype_unit: str | None, stated: str) -> bool:
    """Whether a stated unit can express an archetype's values (same dimension); a unit pint does
    not know says nothing either way."""
    from tools.describe.units import convert, is_currency, parse_unit

    if parse_unit(stated) is None:
        return True
    if is_currency(stated) and is_currency(archetype_unit):
        return True  # a fare in EUR is the catalog's fare, in another currency
    if archetype_unit is None:
        return str(parse_unit(stated)) in ("count", "dimensionless", "percent")
    return convert(1.0, archetype_unit, stated) is not None


def _label_fits(label: str | None, stated: str) -> bool:
    """A stated unit that is how the archetype's unit is written ("dB" for a noise level in dB(A),
    which pint cannot express)."""
    norm = lambda x: re.sub(r"[^a-z0-9%]", "", x.lower())  # noqa: E731 - a one-line normaliser
    return bool(label) and bool(norm(stated)) and norm(label).startswith(norm(stated))


def best_match(catalog: Catalog, part: str, phrase: str, semantic: SemanticScorer | None = None,
               prefer: Callable[[str], float] | None = None, unit: str | None = None,
               context: FieldContext | None = None) -> Match | None:
    """The archetype of ``part`` that ``phrase`` names, or None when nothing scores ``MIN_SCORE``.

    ``prefer(id)`` adds a small bonus (the domain's field, the entity's usual measurements) that
    decides between near-equal candidates; ``semantic`` adds embedding candidates (cosine, scaled
    so that 0.75 counts like a synonym inside the phrase). With ``context`` (the description's fields),
    an entry of another field needs more than a shared word (``tools.describe.field_context.accept``)."""
    cands = {m.id: m for m in index(catalog, part).lexical(phrase)}
    if semantic is not None:
        for id_, cos in semantic(phrase, part):
            score = round(min(0.9, 0.35 + 0.6 * cos), 3)
            if id_ not in cands or cands[id_].score < score:
                cands[id_] = Match(id_, score, f"embedding search (cosine {cos:.2f})")
    if unit is not None and part == "measurements":  # "fill speed in bottles/min" is no spindle speed in rpm
        cands = {i: m for i, m in cands.items() if unit_fits(catalog.measurement(i).unit, unit)
                 or _label_fits(catalog.measurement(i).unit_label, unit)}
    if context is not None:  # a synonym covering half the phrase is weak evidence ("water temperature" is no air's)
        cands = {i: m for i, m in cands.items() if m.how != "synonym in phrase" or m.score >= PARTIAL_IN_CONTEXT}
        cands = {i: m for i, m in cands.items()
                 if accept(catalog, part, i, m.words or tokens(phrase), context, exact=m.said,
                        fuzzy=m.how.startswith("near spelling"))[0]}
    if not cands:
        return None
    bonus = prefer or (lambda _id: 0.0)
    if context is not None and context.own:  # of near-equal entries, the one of the description's own field
        own, base = context.own, bonus
        bonus = lambda id_: base(id_) + (0.04 if entry_field(catalog, part, id_) in own else 0.0)  # noqa: E731
    best = max(cands.values(), key=lambda m: (m.score + bonus(m.id), m.id))
    return best if best.score >= MIN_SCORE else None

