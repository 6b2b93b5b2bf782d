"""Things of the spec a clause mentions by their words: measurements (by word overlap with the column
name and description: 'dropped calls' → dropped_call_rate), entity types ('towers', 'sites'),
categorical attribute values ('rural', 'dense urban'), states ('congestion' → congested), incident
kinds ('outage', 'flat line'), question families and templates. Each finder consumes what it used."""

from __future__ import annotations

import re

from tools.chat.read_text import Clause, NeedAsk
from tools.chat.read_vocab import FAMILY_WORDS, GENERIC_STEMS, Vocabulary
from tools.chat.read_words import stem

_TOKEN = r"[a-z][a-z0-9_']*"


def _runs(cl: Clause, known: set[str]) -> list[list[re.Match]]:
    """Runs of adjacent unused tokens whose stems are all in ``known``."""
    runs, current, last_end = [], [], -1
    view = cl.view
    for m in re.finditer(_TOKEN, view):
        parts = [stem(p) for p in m.group(0).split("_") if p]
        if parts and all(p in known for p in parts):
            if current and not re.fullmatch(r"[ ]?", view[last_end:m.start()]):
                runs.append(current)
                current = []
            current.append(m)
            last_end = m.end()
        elif current:
            runs.append(current)
            current, last_end = [], -1
    if current:
        runs.append(current)
    return runs


def _stems(m: re.Match) -> list[str]:
    return [stem(p) for p in m.group(0).split("_") if p]


def take_measurement(cl: Clause, v: Vocabulary) -> str | None:
    """The measurement the clause names, consumed (asks when its words fit several equally, or when
    two different measurements are named)."""
    known = set().union(*v.measurements.values()) if v.measurements else set()
    found: list[tuple[str, list[re.Match]]] = []
    for run in _runs(cl, known):
        words = [s for m in run for s in _stems(m)]
        if all(w in GENERIC_STEMS for w in words):
            continue
        scores = {name: 2 * sum(w in v.measurement_names[name] for w in words)
                  + sum(w in stems and w not in GENERIC_STEMS for w in words)
                  for name, stems in v.measurements.items()}
        best = max(scores.values())
        if best < 2:
            continue
        top = [n for n, s in scores.items() if s == best]
        if len(top) > 1:
            raise NeedAsk(f"'{' '.join(m.group(0) for m in run)}' could be several measurements: which one?", top)
        used = [m for m in run if any(s in v.measurements[top[0]] for s in _stems(m))]
        found.append((top[0], used))
    names = list(dict.fromkeys(n for n, _ in found))
    if len(names) > 1:
        raise NeedAsk(f"which measurement: {' or '.join(names)}?", names)
    for _, used in found:
        for m in used:
            cl.take(m)
    return names[0] if names else None


def take_entity(cl: Clause, v: Vocabulary) -> str | None:
    """The entity type the clause names by a word ('towers', 'cells', 'sites'), consumed."""
    names: set[str] = set()
    for m in re.finditer(_TOKEN, cl.view):
        hit = v.entities_for(m.group(0))
        if hit:
            names |= hit
            cl.take(m)
    if len(names) > 1:
        raise NeedAsk(f"which entity type: {' or '.join(sorted(names))}?", sorted(names))
    return next(iter(names), None)


def entity_word(word: str, v: Vocabulary) -> str | None:
    """The entity type one word names (None: none or several)."""
    hit = v.entities_for(word)
    return next(iter(hit)) if len(hit) == 1 else None


def take_values(cl: Clause, v: Vocabulary) -> dict[str, str]:
    """Categorical attribute values the clause names ('rural', 'dense urban'), consumed, as a where
    filter (asks when two values of one attribute are named)."""
    where: dict[str, str] = {}
    for value, attr, _ in v.values:
        m = cl.find(rf"(?<![\w-]){re.escape(value)}(?![\w-])")
        if not m:
            continue
        if attr in where and where[attr] != value:
            raise NeedAsk(f"one {attr} at a time: {where[attr]} or {value}?", [where[attr], value])
        where[attr] = value
        cl.take(m)
    return where


def take_state(cl: Clause, v: Vocabulary) -> str | None:
    """A state the clause names ('outages' → outage, 'congestion' → congested), consumed."""
    by_stem = {stem(s): s for s in v.states}
    for m in re.finditer(_TOKEN, cl.view):
        s = by_stem.get(stem(m.group(0))) or by_stem.get(m.group(0))
        if s:
            cl.take(m)
            return s
    return None


def take_kinds(cl: Clause, v: Vocabulary, consume: bool = True) -> list[tuple[str, int, int]]:
    """Incident kinds the clause names, with their spans (in order), consumed unless told not to; the
    kind's other name words next to it are part of the span ('kpi degradation')."""
    view = cl.view
    idents = [m.span() for m in re.finditer(r"[a-z0-9]*_[a-z0-9_]*", view)]  # ids are not kind words
    every = [(kind, *_widen(view, m.start(), m.end(), kind)) for rx, kind in v.kinds for m in re.finditer(rx, view)
             if not any(a <= m.start() < b for a, b in idents)]
    hits: list[tuple[str, int, int]] = []
    for kind, a, b in sorted(every, key=lambda h: (h[1] - h[2], h[1])):  # longest first: 'null burst' over 'burst'
        if not any(a < hb and ha < b for _, ha, hb in hits):
            hits.append((kind, a, b))
    hits.sort(key=lambda h: h[1])
    if consume:
        for _, a, b in hits:
            cl.take_span(a, b)
    return hits


def _widen(view: str, a: int, b: int, kind: str) -> tuple[int, int]:
    """The span widened over neighbouring words of the kind's name ('kpi' before 'degradation')."""
    words = {stem(w) for w in kind.split("_")}
    while True:
        m = re.search(r"(\w+)\s+$", view[:a])
        if m and stem(m.group(1)) in words:
            a = m.start(1)
            continue
        m = re.match(r"\s+(\w+)", view[b:])
        if m and stem(m.group(1)) in words:
            b += m.end(1)
            continue
        return a, b


def take_family(cl: Clause) -> str | None:
    """A question family the clause names ('stateful', 'forecasting', 'false premise'), consumed."""
    for words in sorted(FAMILY_WORDS, key=len, reverse=True):
        m = cl.grab(r"\b" + r"[\s_-]+".join(re.escape(w) for w in words.split()) + r"\b")  # "false_premise" too
        if m:
            return FAMILY_WORDS[words]
    return None


def take_template(cl: Clause, v: Vocabulary) -> str | None:
    """A template the clause names by its name's words ('state duration' → state_duration), consumed."""
    for words in sorted(v.templates, key=len, reverse=True):
        rx = r"\b" + r"[\s_-]+".join(re.escape(w) for w in words.split()) + r"s?\b"
        m = cl.grab(rx)
        if m:
            return v.templates[words]
    return None
