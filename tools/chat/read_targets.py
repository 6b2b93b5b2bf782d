"""What an incident acts on and how hard: target entities ('on 4 towers', 'on SITE_0001 and
SITE_0002', 'on all the rural sites'), a new kind ('into a spike'), and the magnitude ('+200%',
'of 40%' signed by the kind's direction, 'x2', 'to 0')."""

from __future__ import annotations

import re

from tools.chat.read_context import Context
from tools.chat.read_mentions import entity_word, take_kinds, take_values
from tools.chat.read_text import Clause, NeedAsk

_TARGET_LEAD = r"(?:on|to|for|affecting|affect|affects|hitting|hit|hits|across|over|covering|in|at|of)"
UP_WORDS = r"\b(?:up|increase[sd]?|rises?|rising|higher|raised?|boost(?:ed)?|grows?|growing|bigger|larger|stronger)\b"
DOWN_WORDS = r"\b(?:down|decrease[sd]?|falls?|falling|lower|reduced?|reduction|declines?|declining|smaller|weaker)\b"


def take_ids(cl: Clause, ctx: Context) -> tuple[list[str], str | None]:
    """Entity ids named in the clause ('SITE_0004'), consumed, in the spec's spelling, and their
    entity type; asks when an id is not one of the spec's entities."""
    ids, entity = [], None
    for m in re.finditer(r"\b[a-z][a-z0-9]*[_-]?\d+\b", cl.view):
        ent = ctx.vocab.entity_for_id(m.group(0))
        if ent is None:
            continue
        e = ctx.vocab.spec.entity(ent)
        original = cl.source(m.start(), m.end())
        n = int(re.findall(r"\d+", m.group(0))[-1])
        known = e.id.values[n] if e.id.values and n < len(e.id.values) else e.id.format.format(i=n)
        if n >= e.count or known.lower() != original.lower():
            raise NeedAsk(f"there is no {ent} '{original}' (ids run {e.id.format.format(i=0)} .. "
                          f"{e.id.format.format(i=e.count - 1)})", confidence=0.3)
        if entity and ent != entity:
            raise NeedAsk("those ids belong to different entity types; one incident targets one type")
        ids.append(known)
        entity = ent
        cl.take(m)
    return ids, entity


def take_targets(cl: Clause, ctx: Context) -> dict:
    """``ids`` / ``count`` / ``where`` / ``entity`` of an incident's targets, consumed."""
    ids, entity = take_ids(cl, ctx)
    where = take_values(cl, ctx.vocab)
    out: dict = {"ids": ids or None, "entity": entity, "where": where or None}
    for m in re.finditer(rf"(?:\b{_TARGET_LEAD}\s+)?(?:\b(all)\s+(?:of\s+)?(?:the\s+)?|\bthe\s+)?(?:\b(\d+)\s+)?"
                         r"(?:(more|fewer|less|other)\s+)?\b([a-z]+)\b", cl.view):
        ent = entity_word(m.group(4), ctx.vocab)
        if ent is None:
            continue
        if entity and ent != entity:
            raise NeedAsk(f"the ids are {entity}s, not {m.group(4)}")
        if m.group(3) in ("more", "fewer", "less") and not m.group(2):
            raise NeedAsk(f"how many {m.group(3)} {m.group(4)}?", confidence=0.5)
        out["entity"] = ent
        if m.group(2):
            out["count"] = int(m.group(2))
            out["more"] = m.group(3)
            if out["count"] <= 0:
                raise NeedAsk("how many entities, more than zero?")
        cl.take(m)
        break
    return out


def check_count(count: int | None, entity: str | None, ctx: Context) -> None:
    """Ask when a target count is more than the entities there are."""
    if count and entity and count > ctx.vocab.spec.entity(entity).count:
        raise NeedAsk(f"there are only {ctx.vocab.spec.entity(entity).count} {entity} entities, not {count}",
                      confidence=0.4)


def take_new_kind(cl: Clause, ctx: Context, bare: bool = False) -> str | None:
    """A kind named as something new ('a spike', 'another outage', 'into a dip'; with ``bare``, also a
    kind with no article at all), consumed; asks when two different new kinds are named."""
    view = cl.view
    found = []
    for kind, a, b in take_kinds(cl, ctx.vocab, consume=False):
        before = view[:a]
        art = re.search(r"(?:\b(?:into|to|as|be|with|by)\s+)?\b(?:a|an|another|new|one more|some|more)\s+(?:new\s+)?"
                        r"(?:[\w-]+\s+){0,2}$", before)
        definite = re.search(r"\b(?:the|that|this|its|it)\b", before if bare else before[art.start():] if art else "")
        if (art or bare) and not definite:
            found.append((kind, a, b, art))
    kinds = list(dict.fromkeys(k for k, *_ in found))
    if len(kinds) > 1:
        raise NeedAsk(f"one incident kind at a time: {' or '.join(kinds)}?", kinds)
    if not kinds:
        return None
    _, a, b, art = found[0]
    cl.take_span(a, b)
    if art:
        lead = re.compile(r"(?:(?:into|to|as|be|with|by)\s+)?(?:a|an|another|new|one more|some|more)\b(?:\s+new\b)?")
        cl.take(lead.match(view, art.start()))
    return kinds[0]


def take_magnitude(cl: Clause, kind: str | None) -> str | None:
    """The size of an effect: '+200%', 'of 40%' (signed by the kind's direction or up/down words),
    'x2' / '2x' / '3 times', 'to 0', '+8'."""
    m = cl.find(r"(?:\b(?:by|of)\s+)?([+-])\s?(\d+(?:\.\d+)?)\s*%") or cl.find(r"(?:\b(?:by|of)\s+)?(\d+(?:\.\d+)?)\s*%")
    if m:
        cl.take(m)
        if len(m.groups()) == 2:
            return f"{m.group(1)}{m.group(2)}%"
        sign = _sign(cl, kind)
        return f"{sign}{m.group(1)}%" if sign else f"{m.group(1)}%"
    m = cl.grab(r"(?:\b(?:by|of)\s+)?([+-]?\d+(?:\.\d+)?)\s*(?:sigma|σ|standard deviations?|std)\b")
    if m:
        return f"{m.group(1)}sigma"
    m = cl.grab(r"\bx\s?(\d+(?:\.\d+)?)\b|\b(\d+(?:\.\d+)?)\s?x\b|\b(\d+(?:\.\d+)?)\s+times\b(?!\s+(?:as\s+)?long)"
                r"|\b(twice|doubled?|tripled?)\b(?!\s+as\s+long)")
    if m:
        word = m.group(4)
        n = {"twice": "2", "double": "2", "doubled": "2", "triple": "3", "tripled": "3"}.get(word or "")
        return f"x{n or m.group(1) or m.group(2) or m.group(3)}"
    m = cl.grab(r"\b(?:drops?|falls?|goes|going|down|set|stuck)?\s*\bto\s+(zero|0|\d+(?:\.\d+)?)\b(?!\s*[a-z%:])")
    if m:
        return f"to {0 if m.group(1) == 'zero' else m.group(1)}"
    m = cl.grab(r"(?<![\w:])([+-])\s?(\d+(?:\.\d+)?)\b(?!\s*[a-z%:])")
    if m:
        return f"{m.group(1)}{m.group(2)}"
    return None


def _sign(cl: Clause, kind: str | None) -> str:
    up, down = cl.grab(UP_WORDS), cl.grab(DOWN_WORDS)
    if up and not down:
        return "+"
    if down and not up:
        return "-"
    if kind:
        from tools.patterns.registry import get_kind

        k = get_kind(kind)
        if k.direction in ("up", "down"):
            return "+" if k.direction == "up" else "-"
    return ""
