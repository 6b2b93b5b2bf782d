"""Names in a described incident matched to the composed spec: entity types by their nouns,
measurements by their words (typos and abbreviations allowed), lists of names the description gives
("11 branches (Central, Riverside, ...)", "(T-01 to T-60)") and the ids an incident names, which
the entity's ids are made to include.
"""

from __future__ import annotations

import difflib
import re
import string

from tools.describe.incident_size import FAILURES
from tools.describe.match import singular

_GENERIC = {"per", "hour", "hours", "minute", "minutes", "second", "seconds", "day", "days", "s", "h", "m", "of", "the",
            "a", "in", "at", "on", "count", "number", "total", "avg", "average", "rate", "level", "value", "values", "x",
            "reporting", "report", "records", "has", "data"}


def _stem(word: str) -> str:
    w = singular(word.lower())
    return re.sub(r"(?:ed|ing)$", "", w) if len(w) > 5 else w


def _same(a: str, b: str) -> bool:
    a, b = _stem(a), _stem(b)
    if a == b:
        return True
    if min(len(a), len(b)) >= 4 and (a.startswith(b) or b.startswith(a)):
        return True
    return min(len(a), len(b)) >= 6 and difflib.SequenceMatcher(None, a, b).ratio() >= 0.85


def measurement_score(text: str, name: str) -> float:
    """How much of a measurement's name the text says (0 = none of its own words)."""
    words = [w for w in re.split(r"[^a-z0-9]+", text.lower().replace(".", "_")) if w]
    tokens = [t for t in name.split("_") if t]
    own = [t for t in tokens if t not in _GENERIC] or tokens
    hit = sum(1 for t in own if any(_same(t, w) for w in words))
    rest = sum(0.1 for t in tokens if t in _GENERIC and t in words)
    return (hit / len(own) + hit * 0.01 + rest) if hit else 0.0


def match_entity(words: str | None, entities: list[dict], drafts: list) -> dict | None:
    """The entity type a noun names ("towers" → cell_tower), None when none does."""
    if not words:
        return None
    said = [w for w in re.split(r"[^a-z0-9]+", words.lower()) if w and w not in _GENERIC]
    if not said:
        return None
    head = said[-1]
    best, score = None, 0.0
    for e in entities:
        toks = e["name"].split("_")
        d = next((x for x in drafts if x.name == e["name"]), None)
        extra = re.split(r"[^a-z0-9]+", (d.words if d else "").lower())
        s = 2.0 if _same(head, toks[-1]) else 1.0 if any(_same(head, t) for t in toks + extra if t) else 0.0
        s += 0.1 * sum(1 for w in said[:-1] if any(_same(w, t) for t in toks))
        if s > score:
            best, score = e, s
    return best if score >= 1.0 else None


def _expand(a: str, b: str) -> list[str]:
    """'T-01'..'T-60' → every id between; 'A'..'I' → letters."""
    ma, mb = re.fullmatch(r"(.*?)(\d+)", a), re.fullmatch(r"(.*?)(\d+)", b)
    if ma and mb and ma.group(1) == mb.group(1) and int(mb.group(2)) - int(ma.group(2)) < 100_000:
        width = len(ma.group(2)) if ma.group(2).startswith("0") else 0
        return [f"{ma.group(1)}{n:0{width}d}" for n in range(int(ma.group(2)), int(mb.group(2)) + 1)]
    if len(a) == len(b) == 1 and a.isalpha() and b.isalpha() and a.upper() <= b.upper():
        letters = string.ascii_uppercase if a.isupper() else string.ascii_lowercase
        return list(letters[letters.index(a): letters.index(b) + 1])
    return []


def context_lists(description: str) -> list[tuple[str, list[str]]]:
    """(noun, names) for every list in brackets after a noun: "3 platforms (iOS, Android, web)"."""
    out = []
    for m in re.finditer(r"\b([A-Za-z][\w-]*(?:\s+[A-Za-z][\w-]*)?)\s*\(([^()]{1,400})\)", description):
        inner = m.group(2).strip()
        rng = re.fullmatch(r"([\w-]+)\s*(?:to|-|–|through|\.\.)\s*([\w-]+)", inner)
        if rng:
            values = _expand(rng.group(1), rng.group(2))
        else:
            values = [v.strip(" .'\"") for v in re.split(r",\s*|\s+and\s+|\s+or\s+", inner)]
            values = [v for v in values if v and v not in ("...", "…", "etc") and len(v.split()) <= 3]
            if len(values) < 2 or any(re.search(r"[°%/]|\d\s*[a-z]", v, re.I) for v in values):
                continue
        if values:
            out.append((m.group(1).split()[-1], values))
    return out


def entity_ids(ent: dict) -> list[str]:
    """The ids the generator gives the entity type (``IdSpec.ids`` without labels)."""
    fmt, values = ent["id"]["format"], ent["id"].get("values", [])
    return [values[i] if i < len(values) else fmt.format(i=i) for i in range(ent["count"])]


def make_ids_exist(ent: dict, ids: list[str], lists: list[tuple[str, list[str]]], drafts: list) -> str:
    """Make the entity's ids include the named ones; returns what was done, for the decision log."""
    have = set(entity_ids(ent))
    if all(i in have for i in ids):
        return ""
    n = ent["count"]
    listed = next((v for noun, v in lists if match_entity(noun, [ent], drafts) and set(ids) <= set(v)), None)
    if listed:
        ent["id"]["values"] = listed[:n]
        extra = [i for i in ids if i not in listed[:n]]
        if not extra:
            return f"; ids of {ent['name']} from the list in the description"
    parts = [re.fullmatch(r"(.*?)(\d+)", i) for i in ids]
    if all(parts) and len({p.group(1) for p in parts}) == 1:
        prefix, nums = parts[0].group(1), [int(p.group(2)) for p in parts]
        width = max(len(p.group(2)) for p in parts) if any(p.group(2).startswith("0") for p in parts) else 0
        base = 1 if max(nums) <= n else (min(nums) // 10 ** max(1, len(str(n)))) * 10 ** max(1, len(str(n)))
        if max(nums) < base + n:
            ent["id"]["values"] = [f"{prefix}{k:0{width}d}" for k in range(base, base + n)]
            return f"; {ent['name']} ids numbered {ent['id']['values'][0]} .. {ent['id']['values'][-1]} so they exist"
    if all(len(i) == 1 and i.isalpha() for i in ids) and n <= 26:
        ent["id"]["values"] = list(string.ascii_uppercase[:n])
        if all(i.upper() in ent["id"]["values"] for i in ids):
            return f"; {ent['name']} ids lettered A .. {ent['id']['values'][-1]} so they exist"
    kept = [x for x in entity_ids(ent) if x not in ids]
    ent["id"]["values"] = list(dict.fromkeys(ids))[:n] + kept[: max(0, n - len(ids))]
    return f"; the named ids replace the first generated {ent['name']} ids"


def rank_measurements(subject: str, entity: str, names: list[str], failures: bool) -> list[tuple[float, str]]:
    """(score, name) of an entity's measurements for the words of an incident, best first; the words
    naming the entity itself do not count ("9 chargers fault": not charging sessions), and when
    failures grow the failure counts come first."""
    own = set(entity.split("_"))
    words = " ".join(w for w in subject.split() if measurement_score(w, entity) == 0 or
                     w.lower() in own and any(w.lower() in n.split("_") for n in names))
    return sorted(((measurement_score(words, n) + (0.5 if failures and re.search(FAILURES, n) else 0), n)
                   for n in names), key=lambda x: -x[0])
