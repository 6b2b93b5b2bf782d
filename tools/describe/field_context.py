"""The field a description is about, and whether a catalog match fits it (issue 29: context-aware matching).

A word shared by several fields ("cell", "run", "session", "power") must not pull the archetype of the field
that owns the word into a description of something else (a prison's cells are no radio cells). So:

- **The description's fields** come from the catalog words it says, each weighed by how much it tells:
  a synonym of several words ("dropped call rate", "wind turbine") or a rare word used by one field only
  ("turbine", "SpO2") is strong evidence; a common word or one several fields use ("cell", "pressure") is
  weak. A field is the description's own when its evidence reaches ``OWN_FIELD``.
- **A match** to an entry of the description's own field (or of the ``general`` field) is accepted as the
  matcher scored it; a match to an entry of another field needs evidence beyond a shared word: the
  synonym it matched is several words long, or a rare word of that field alone.

How common a word is comes from ``wordfreq`` (Zipf frequencies of English, packaged data: no network),
chosen over a hand-written list of ambiguous words so that words nobody listed are judged the same way.
The thresholds are calibrated on the labelled phrase→entry set (``tests/data/matcher_pairs``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache

from tools.describe.catalog_model import GROUP_OF, Catalog

OWN_FIELD = 2.5  # evidence a field needs to be the description's own
OWN_MENTIONS = 2  # ... from at least this many different words: one word alone ("breed") does not say the field
NEEDS_STRONG = True  # an own field needs one strong mention, or three different ones ("session" alone is anyone's)
EXACT_PAIRS = True  # a synonym of several words said word for word, one of them of the entry's side, is enough
COMMON_ZIPF = 3.9  # words at least this frequent in English are everyday words, whatever the catalog says
PARTS = ("entities", "measurements", "incidents", "attributes")


@dataclass(frozen=True)
class FieldContext:
    """The fields a description is about (``own``), the evidence for each and the words that gave it."""

    own: frozenset[str] = frozenset()
    evidence: dict[str, float] = field(default_factory=dict)
    words: dict[str, tuple[str, ...]] = field(default_factory=dict)

    def describe(self) -> str:
        """One line for the decision log: the description's fields and the words that show them."""
        if not self.own:
            return "no catalog field: the description's words are not enough to say which field it is about"
        return "; ".join(f"{f} ({', '.join(self.words.get(f, ())[:4])})" for f in sorted(self.own))


def _zipf(word: str) -> float:
    from wordfreq import zipf_frequency

    return zipf_frequency(word, "en")


@lru_cache(maxsize=4096)
def _common(word: str) -> bool:
    """An everyday English word, or a unit ("kg", "db"): either says nothing about the field."""
    return _zipf(word) >= COMMON_ZIPF or _unit(word)


_BUILT: dict[int, tuple[Catalog, dict[str, frozenset[str]], dict[tuple[str, str], str]]] = {}


def _built(catalog: Catalog) -> tuple[dict[str, frozenset[str]], dict[tuple[str, str], str]]:
    hit = _BUILT.get(id(catalog))
    if hit is not None and hit[0] is catalog:
        return hit[1], hit[2]
    from tools.describe.match import tokens

    out: dict[str, set[str]] = {}
    fields: dict[tuple[str, str], str] = {}
    for part in PARTS:
        for e in getattr(catalog, part):
            fields[(part, e.id)] = e.field
            for w in [e.id.replace("_", " "), *e.synonyms, getattr(e, "name", "") or ""]:
                for t in tokens(w):
                    out.setdefault(t, set()).add(e.field)
    words = {t: frozenset(f - {"general"}) or frozenset({"general"}) for t, f in out.items()}
    _BUILT.clear()
    _BUILT[id(catalog)] = (catalog, words, fields)
    return words, fields


def token_fields(catalog: Catalog) -> dict[str, frozenset[str]]:
    """Every word of the catalog's vocabulary -> the fields whose entries use it (in any synonym)."""
    return _built(catalog)[0]


def specific(word: str, catalog: Catalog) -> bool:
    """A single word that says its field by itself: used by one field of the catalog and rare in English."""
    fields = token_fields(catalog).get(word, frozenset())
    return len(fields) == 1 and not _common(word)


def strong_words(words: tuple[str, ...], catalog: Catalog) -> bool:
    """Whether matched synonym words are evidence beyond a shared word: three or more; two, at least one not
    an everyday word; or one specific word."""
    if not words:
        return False
    if len(words) == 1:
        return specific(words[0], catalog)
    if len(words) >= 3:  # a term of three words ("return air temperature") names one thing wherever it is said
        return True
    return any(not _common(w) for w in words) or all(specific(w, catalog) for w in words)


@lru_cache(maxsize=4096)
def _unit(word: str) -> bool:
    from tools.describe.units import parse_unit

    return parse_unit(word, strict=True) is not None


def entry_field(catalog: Catalog, part: str, id_: str) -> str:
    """The field of a catalog entry (``general`` for one it does not know)."""
    return _built(catalog)[1].get((part, id_), "general")


def read_field_context(text: str, catalog: Catalog) -> FieldContext:
    """The fields ``text`` is about, from the catalog words it says (see the module docstring). A mention
    counts for its field only with a word the field's earlier mentions did not have ("session", "session
    time" and "session length" are one word said three times), and a field is the description's own only
    with one strong mention among them, or three different ones."""
    from tools.describe.match import index, singular

    evidence: dict[str, float] = {}
    words: dict[str, list[str]] = {}
    had: dict[str, set[str]] = {}
    said: dict[str, int] = {}
    strong: set[str] = set()
    for part in PARTS:
        for _pos, id_, spoken in index(catalog, part).mentions(text):
            toks = tuple(t for t in re.findall(r"[a-z0-9]+", spoken.lower()))
            f = entry_field(catalog, part, id_)
            stems = {singular(t) for t in toks}
            if f == "general" or stems & had.get(f, set()):
                continue
            had.setdefault(f, set()).update(stems)
            is_strong = strong_words(toks, catalog)
            strong |= {f} if is_strong else set()
            evidence[f] = evidence.get(f, 0.0) + (2.0 if is_strong else 1.0 if len(toks) > 1 else 0.75)
            said[f] = said.get(f, 0) + 1
            words.setdefault(f, []).append(spoken)
    own = frozenset(f for f, v in evidence.items() if v >= OWN_FIELD and said[f] >= OWN_MENTIONS
                    and (f in strong or said[f] >= 3 or not NEEDS_STRONG))
    return FieldContext(own=own, evidence=evidence,
                        words={f: tuple(dict.fromkeys(w)) for f, w in words.items()})


def accept(catalog: Catalog, part: str, id_: str, matched: tuple[str, ...], ctx: FieldContext | None,
           exact: bool = False, fuzzy: bool = False) -> tuple[bool, str]:
    """Whether a match of ``part`` entry ``id_`` through the synonym words ``matched`` fits the description,
    and why (for the decision log). ``exact``: the user's phrase is that synonym, word for word."""
    if ctx is None:
        return True, ""
    f = entry_field(catalog, part, id_)
    if f == "general" or f in ctx.own:
        return True, f"in the description's field ({f})" if f != "general" else "a general entry"
    if fuzzy:
        return False, f"'{id_}' belongs to {f}, which the description is not about; a near spelling is no evidence"
    if strong_words(matched, catalog):
        return True, f"from another field ({f}), named by '{' '.join(matched)}'"
    group, near = GROUP_OF.get(f), {GROUP_OF.get(x) for x in ctx.own}
    if exact and group in near:  # a food-delivery "tip" is a ride's tip: the same side of the catalog, said as it is
        return True, f"from a neighbouring field ({f}), named word for word ('{' '.join(matched)}')"
    if EXACT_PAIRS and exact and len(matched) >= 2 and any(
            not _unit(w) and {GROUP_OF.get(x) for x in token_fields(catalog).get(w, ())} == {group} for w in matched):
        return True, f"from another field ({f}), named word for word ('{' '.join(matched)}')"  # "credit score"
    return False, (f"'{id_}' belongs to {f}, which the description is not about; '{' '.join(matched)}' is only a "
                   "shared word")


def set_aside(catalog: Catalog, part: str, phrase: str, ctx: FieldContext | None) -> str:
    """For the decision log of a phrase left without a catalog entry: "from the text only", and the entry its
    words would have matched had the description been about that entry's field."""
    from tools.describe.match import index

    if ctx is None:
        return "from the text only"
    for m in index(catalog, part).lexical(phrase)[:3]:
        ok, why = accept(catalog, part, m.id, m.words, ctx, exact=m.said,
                         fuzzy=m.how.startswith("near spelling"))
        if not ok and m.score >= 0.75:
            return f"from the text only ({why})"
    return "from the text only"
