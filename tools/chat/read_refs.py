"""References to incidents and personas, resolved from the spec's data: an incident by id (also
typo'd), kind word, day / weekday / date, clock time, size ('the 5-tower outage'), measurement,
position ('the second incident'), time order ('the earlier outage'), or a pronoun that resolves to
what the conversation was last about; a persona by its name's words ('the technician', "the tech's").
Anything that does not come down to exactly the things meant is an ask with the candidates."""

from __future__ import annotations

import re

from rapidfuzz import fuzz, process
from rapidfuzz.distance import OSA

from tools.chat.read_context import Context
from tools.chat.read_mentions import take_entity, take_kinds, take_measurement
from tools.chat.read_text import FILLER, Clause, NeedAsk
from tools.chat.read_time import take_clock, take_day
from tools.chat.read_words import ORDINALS, stem

HEAD = r"\b(?:incidents?|ones?|events?|anomal(?:y|ies)|problems?|issues?|injections?|faults?)\b"
PRONOUN = r"\b(?:it|that one|this one|the same one|that|this|them|those|these|they)\b"
_ORDINAL = r"\b(" + "|".join(ORDINALS) + r"|last|final)\b"
IDENT = r"\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b"


def resolve_incidents(cl: Clause, ctx: Context) -> list[str] | None:
    """The incidents the unused part of a clause names (several when joined by 'and' or said with
    'all'/'both'); None when it names none; asks when one is unknown or ambiguous."""
    view = cl.view
    bounds = [0, *[x for m in re.finditer(r",|\band\b|\bas well as\b|&|\bplus\b", view) for x in m.span()],
              len(view)]
    out: list[str] = []
    for a, b in zip(bounds[::2], bounds[1::2], strict=True):
        found = _resolve_one(cl.sub(a, b), ctx)
        out += found or []
    return list(dict.fromkeys(out)) or None


def _resolve_one(seg: Clause, ctx: Context) -> list[str] | None:
    v = ctx.vocab
    saved = list(seg.line.used)
    said = " ".join(seg.view.split()) or "it"
    many = seg.grab(r"\b(?:all|every|both|each)\b(?:\s+of)?(?:\s+the)?") is not None
    for m in re.finditer(IDENT, seg.view):
        tok = m.group(0)
        if v.entity_for_id(tok) or tok in v.personas or tok in v.measurements:
            continue
        seg.take(m)
        return [_incident_id(tok, ctx)]
    pronoun = seg.find(PRONOUN)
    kinds = {k for k, _, _ in take_kinds(seg, v)}
    head = seg.grab(HEAD)
    number = seg.take(re.compile(r"\s*(?:#|no\.?\s*|number\s*)(\d+)\b|\s+(\d+)\b(?!\s*[a-z%:])").match(
        seg.view, head.end())) if head else seg.grab(r"#(\d+)\b")
    ordinal = seg.grab(rf"{_ORDINAL}(?:\s+one)?")
    order = seg.grab(r"\b(earlier|earliest|sooner|later|latest|newer|newest|most recent|recent|new|older|oldest|"
                     r"original|other)\b")
    if not (kinds or head or ordinal or pronoun or order or number):
        seg.line.used[:] = saved
        return None
    day = take_day(seg, ctx.start, max([ctx.days, *[i.day or 1 for i in v.incidents]]))
    size = next((m for m in re.finditer(r"\b(?:(?:on|with|affecting|hitting|across|over)\s+)?(\d+)[\s-]?([a-z]+)\b",
                                        seg.view) if v.entities_for(m.group(2))), None)
    seg.take(size)
    clock = take_clock(seg)
    measurement = take_measurement(seg, v)
    entity = take_entity(seg, v)
    cands = list(v.incidents)
    if pronoun and not (kinds or ordinal or order or day or size or clock or measurement):
        seg.take(pronoun)
        last = ctx.last_of("incident")
        if last and not many:
            ctx.doubt(0.95, f"'{pronoun.group(0)}' taken as {last}")
            return [last]
        raise NeedAsk(f"which incident do you mean by '{pronoun.group(0)}'?", [i.id for i in cands], confidence=0.5)
    if pronoun:
        seg.take(pronoun)
    cands = [i for i in cands if (not kinds or kinds & set(i.kinds)) and (day is None or i.day == day)
             and (size is None or i.size == int(size.group(1))) and (clock is None or i.clock == clock)
             and (measurement is None or measurement in i.keys) and (entity is None or i.entity == entity)]
    if order and order.group(1) == "other":
        last = ctx.last_of("incident")
        cands = [i for i in cands if i.id != last] if last else cands
    elif order and cands:
        cands = _by_order(order.group(1), cands)
    if ordinal or number:
        word = ordinal.group(1) if ordinal else (number.group(1) or number.group(2))
        n = len(cands) if word in ("last", "final") else ORDINALS.get(word) or int(word)
        cands = [cands[n - 1]] if 1 <= n <= len(cands) else []
    if not cands:
        raise NeedAsk(f"there is no incident that is '{said}'", understood=[], confidence=0.4)
    if len(cands) > 1 and not many:
        raise NeedAsk(f"'{said}' could be {len(cands)} incidents: which one?", [i.id for i in cands], confidence=0.5)
    return [i.id for i in cands]


def _by_order(word: str, cands: list) -> list:
    if word in ("new", "newer", "newest", "most recent", "recent"):
        return [cands[-1]] if word != "newer" or len(cands) == 2 else cands
    if word in ("older", "oldest", "original"):
        return [cands[0]] if word != "older" or len(cands) == 2 else cands
    timed = [i for i in cands if i.start_s is not None]
    if len(timed) < len(cands) or word in ("earlier", "later", "sooner") and len(cands) != 2:
        return cands  # stays ambiguous: asked
    pick = min if word in ("earlier", "earliest", "sooner") else max
    best = pick(i.start_s for i in timed)
    return [i for i in timed if i.start_s == best]


def _incident_id(tok: str, ctx: Context) -> str:
    ids = [i.id for i in ctx.vocab.incidents]
    if tok in ids:
        return tok
    best = process.extract(tok, ids, scorer=fuzz.ratio, limit=2)
    if best and best[0][1] >= 88 and (len(best) == 1 or best[0][1] - best[1][1] >= 5):
        ctx.doubt(0.9, f"'{tok}' read as {best[0][0]}")
        return best[0][0]
    raise NeedAsk(f"there is no incident '{tok}' (incidents: {', '.join(ids) or 'none'})", confidence=0.3)


def _name_match(word: str, part: str) -> bool:
    return (word == part or stem(word) == stem(part) or len(word) >= 4 and part.startswith(word)
            or len(word) >= 5 and OSA.distance(word, part) <= 1)


def resolve_persona(cl: Clause, ctx: Context) -> str | None:
    """The persona the unused part of a clause names: by name (underscores or spaces, possessive,
    a word or the start of one: 'the tech'), or 'that persona' / 'its' for the last one; None when it
    names none; asks when the name is unknown or fits several."""
    v = ctx.vocab
    for m in re.finditer(IDENT, cl.view):
        if m.group(0) in v.personas:
            cl.take(m)
            return m.group(0)
    words = [m for m in re.finditer(r"[a-z][a-z0-9_]*(?:'s)?", cl.view) if m.group(0).removesuffix("'s") not in FILLER
             and m.group(0) not in ("persona", "personas")]
    scores: dict[str, list[re.Match]] = {}
    for name in v.personas:
        parts = name.split("_")
        hits = [m for m in words if any(_name_match(m.group(0).removesuffix("'s"), p) for p in parts)]
        if hits and any(_name_match(m.group(0).removesuffix("'s"), parts[-1]) for m in hits) or len(hits) == len(parts):
            scores[name] = hits
    if scores:
        best = max(len(h) for h in scores.values())
        top = [n for n, h in scores.items() if len(h) == best]
        if len(top) > 1:
            raise NeedAsk("which persona?", top, confidence=0.5)
        for m in scores[top[0]]:
            cl.take(m)
        return top[0]
    unknown = cl.find(rf"(?:\bpersona\s+(?:called\s+|named\s+)?({IDENT}|[a-z]+)\b(?<!\bto)|({IDENT})\s+persona\b|"
                      r"\bthe\s+([a-z][a-z0-9_ ]*?)\s+persona\b)")
    if unknown and (unknown.group(1) or unknown.group(2) or unknown.group(3) or "").strip() not in FILLER:
        name = (unknown.group(1) or unknown.group(2) or unknown.group(3)).strip()
        raise NeedAsk(f"there is no persona '{name}' (personas: {', '.join(v.personas) or 'none'})", confidence=0.3)
    pronoun = cl.grab(r"\b(?:that|this|the)\s+persona\b|\b(?:its|their|it|them|they|her|his|she|he)\b")
    if pronoun:
        last = ctx.last_of("persona") or (v.personas[0] if len(v.personas) == 1 and "persona" in pronoun.group(0)
                                          else None)
        if last:
            return last
        raise NeedAsk("which persona?", v.personas, confidence=0.5)
    return None
