"""Requests about the data's shape: how many entities ('make it 40 towers', 'double the towers', 'add
10 more towers'), how long it covers ('cover a week', 'extend the horizon by one day') and how often
entities report ('every 30 min', 'towers should report hourly'). An unstated amount ('more towers',
'report more often', 'a bit longer') is asked about, never guessed."""

from __future__ import annotations

import re

from tools.chat.ops import ScaleEntities, SetCadence, SetHorizon
from tools.chat.read_context import Context
from tools.chat.read_mentions import take_entity
from tools.chat.read_text import UNIT, Clause, NeedAsk
from tools.chat.read_words import duration_text, unit_letter
from tools.common.durations import parse_duration

_DUR = rf"(\d+(?:\.\d+)?)\s*-?\s*({UNIT})\b"
SPAN_NOUNS = r"(?:horizon|data|dataset|history|time range|timespan|time span|period|bundle|range|series)"
_LONG = r"(\d+(?:\.\d+)?)\s*-?\s*(days?|weeks?|d|w|months?)\b"
_MORE_DATA = rf"\b(add|another)\s+(\d+(?:\.\d+)?)\s+(?:more|extra|additional)\s+({UNIT})\s+of\s+(?:data|history)\b"
HORIZON_CUE = (rf"\b(?:horizon|cover|covers|covering|span|spans|spanning|{_DUR}\s+of\s+(?:data|history))\b|{_MORE_DATA}|"
               rf"\b(?:time range|time span|timespan|period)\s+(?:to\s+|of\s+)?{_DUR}|"
               rf"\b(?:extend|lengthen|shorten|over|across)\s+(?:to\s+)?{_LONG}|"
               rf"\b(?:extend|lengthen|stretch|shorten|longer|shorter)\b.*\b{SPAN_NOUNS}\b|\b{SPAN_NOUNS}\b.*"
               rf"\b(?:longer|shorter|extend|to\s+\d)")
CADENCE_CUE = (r"\b(?:every|each|hourly|daily|minutely|cadence|interval|frequency|frequently|often|report|reports|"
               r"reporting|sample|samples|sampling|resolution|granularity|per (?:minute|hour|second))\b")
SCALE_WORDS = (r"\b(?:double|halve|triple|quadruple|twice as many|half as many|number of|scale|more|fewer|less|cut|"
               r"reduce|increase|decrease|grow|shrink|bump|raise|lower)\b")
_FACTORS = {"double": 2.0, "twice as many": 2.0, "halve": 0.5, "half as many": 0.5, "triple": 3.0, "quadruple": 4.0}


def read_fleet(cl: Clause, ctx: Context) -> list:
    """Scale, horizon and cadence operations of one clause, in the order said."""
    found = [got for got in (_horizon(cl, ctx), _scale(cl, ctx)) if got is not None]
    scaled = next((op.entity for _, op in found if isinstance(op, ScaleEntities)), None)
    cadence = _cadence(cl, ctx, scaled)
    if cadence:
        found.append(cadence)
    if not found:
        raise NeedAsk(f"I did not understand '{' '.join(cl.leftover())}'", confidence=0.2)
    return [op for _, op in sorted(found, key=lambda x: x[0])]


def _horizon(cl: Clause, ctx: Context) -> tuple[int, SetHorizon] | None:
    if not cl.find(HORIZON_CUE):
        return None
    current = ctx.vocab.spec.horizon_seconds
    m = cl.find(rf"\b(extend|lengthen|increase|grow|stretch|shorten|reduce|cut|trim|decrease)\s+(?:(?:the|our)\s+)?"
                rf"(?:{SPAN_NOUNS}\s+)?by\s+{_DUR}") or cl.find(rf"\b(add)\s+{_DUR}\s+(?:more\s+)?to\s+(?:the\s+)?"
                                                               rf"{SPAN_NOUNS}\b") or cl.find(_MORE_DATA)
    if m:
        g = m.groups()
        value, unit = (g[1], g[2])
        sign = -1 if g[0] in ("shorten", "reduce", "cut", "trim", "decrease") else 1
        seconds = current + sign * parse_duration(duration_text(float(value), unit))
        if seconds <= 0:
            raise NeedAsk("that leaves no data; how long should it cover?")
        cl.take(m)
        cl.grab_all(rf"\b(?:{SPAN_NOUNS})\b")
        return m.start(), SetHorizon(horizon=_in_unit(seconds, unit))
    m = (cl.find(rf"\b(?:{SPAN_NOUNS}|cover|covers|covering|span|spans|spanning|last|run)\b(?:\s+\w+){{0,3}}?\s+"
                 rf"(?:to|=|of|at|for|over)?\s*{_DUR}")
         or cl.find(rf"\b(?:cover|covers|covering|span|spans|spanning)\s+{_DUR}") or cl.find(rf"\b{_DUR}\s+of\s+(?:data|history)\b")
         or cl.find(rf"\b(?:extend|lengthen|shorten|over|across)\s+(?:to\s+)?{_DUR}"))
    if m:
        cl.take(m)
        cl.grab_all(rf"\b(?:set|make|change|extend|lengthen|shorten|have|let|{SPAN_NOUNS}|cover|generate|produce|"
                    r"simulate|create|give me|run|long)\b")
        d = duration_text(float(m.group(1)), m.group(2))
        ctx.days = max(ctx.days, int(-(-parse_duration(d) // 86400)))
        return m.start(), SetHorizon(horizon=d)
    raise NeedAsk("how long should the data cover? say a duration ('3 days', 'a week')", understood=["set_horizon"],
                  confidence=0.5)


def _in_unit(seconds: float, unit: str) -> str:
    size = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}[unit_letter(unit)]
    if seconds % size == 0:
        return f"{int(seconds // size)}{unit_letter(unit)}"
    from tools.common.durations import format_duration

    return format_duration(seconds)


def _cadence(cl: Clause, ctx: Context, scaled: str | None) -> tuple[int, SetCadence] | None:
    if not cl.find(CADENCE_CUE):
        return None
    if cl.find(r"\b(?:more|less)\s+(?:often|frequently)\b|\b(?:faster|slower|more frequent|less frequent)\b"):
        raise NeedAsk("how often? say an interval ('every 5 minutes', 'hourly')", understood=["set_cadence"],
                      confidence=0.5)
    m = (cl.find(rf"\b(?:every|each|once (?:a|an|per|every))\s+(?:(\d+(?:\.\d+)?)\s*-?\s*)?({UNIT})\b")
         or cl.find(rf"\b(?:cadence|interval|frequency|resolution|granularity)\s+(?:\w+\s+){{0,2}}?(?:to|of|=|at)?\s*"
                    rf"(\d+(?:\.\d+)?)\s*-?\s*({UNIT})\b")
         or cl.find(rf"\b(?:at|in)\s+(\d+(?:\.\d+)?)[\s-]?({UNIT})\s+intervals?\b")
         or cl.find(rf"\b(\d+(?:\.\d+)?)-({UNIT})\s+(?:cadence|intervals?|resolution|granularity)\b"))
    if m:
        cadence = duration_text(float(m.group(1) or 1), m.group(2))
    else:
        m = cl.find(r"\b(hourly|daily|minutely|per minute|per hour|per second)\b")
        if not m:
            return None
        cadence = {"hourly": "1h", "daily": "1d", "minutely": "1m", "per minute": "1m", "per hour": "1h",
                   "per second": "1s"}[m.group(1)]
    cl.take(m)
    cl.grab(rf"\b(?:instead of|rather than|not)\s+(?:every\s+)?\d+(?:\.\d+)?\s*(?:{UNIT})?")
    cl.grab_all(r"\b(?:report|reports|reporting|sample|samples|sampling|emit|emits|send|sends|measure|record|log|poll|"
                r"collect|readings?|data points?|cadence|interval|frequency|resolution|granularity|set|change|make)\b")
    entity = take_entity(cl, ctx.vocab)
    if entity is None and cl.grab(r"\b(?:them|they|these|those)\b") and ctx.prev_entity:
        entity = ctx.prev_entity
    if entity is None and scaled:  # '30 towers reporting every 10 minutes'
        entity = scaled
    if entity:
        e = ctx.vocab.spec.entity(entity)
        if e.emission is None or e.emission.kind != "periodic":
            raise NeedAsk(f"{entity} does not report on a cadence")
    return m.start(), SetCadence(cadence=cadence, entity=entity)


def _scale(cl: Clause, ctx: Context) -> tuple[int, ScaleEntities] | None:
    v = ctx.vocab
    m = _counted(cl, v)
    fm = cl.find(r"\b(double|halve|triple|quadruple|twice as many|half as many)\b(?:\s+(?:the|our|all))?"
                 r"(?:\s+(?:number|count|amount)\s+of)?(?:\s+the)?\s+([a-z]+)\b")
    xm = cl.find(r"\bscale\s+(?:the\s+)?([a-z]+)\s+(?:up\s+|down\s+)?by\s+(?:a\s+factor\s+of\s+)?x?(\d+(?:\.\d+)?)x?\b")
    if fm and v.entities_for(fm.group(2)):
        cl.take(fm)
        ent = take_entity(cl.sub(fm.start(2), fm.end(2)), v) or _only(v.entities_for(fm.group(2)))
        ctx.prev_topic, ctx.prev_entity = "entity", ent
        return fm.start(), ScaleEntities(entity=ent, factor=_FACTORS[fm.group(1)])
    if xm and v.entities_for(xm.group(1)):
        cl.take(xm)
        ent = _only(v.entities_for(xm.group(1)))
        ctx.prev_topic, ctx.prev_entity = "entity", ent
        return xm.start(), ScaleEntities(entity=ent, factor=float(xm.group(2)))
    if m:
        word = m.group(4)
        ents = v.entities_for(word)
        if not ents:
            raise NeedAsk(f"there is no entity type '{word}' (entity types: "
                          f"{', '.join(e.name for e in v.spec.entities)})", confidence=0.3)
        ent = _only(ents)
        n = int(m.group(2))
        current = v.spec.entity(ent).count
        more = m.group(3) in ("more", "extra", "additional", "new") or m.group(1) == "add"
        fewer = m.group(3) in ("fewer", "less") or m.group(1) in ("remove", "drop", "delete", "cut")
        count = current + n if more else current - n if fewer else n
        if count <= 0:
            raise NeedAsk(f"that leaves no {ent} (there are {current})")
        cl.take(m)
        cl.grab_all(r"\b(?:make|use|set|have|want|scale|go with|go|instead of|number of|count of|entities|to)\b")
        cl.grab(rf"\b(?:from|instead of)\s+{current}\b")
        ctx.prev_topic, ctx.prev_entity = "entity", ent
        return m.start(), ScaleEntities(entity=ent, count=count)
    to = cl.find(r"\b(?:(?:number|count|amount)\s+of\s+)?(?:the\s+)?([a-z]+)\s+(?:to|=)\s+(\d+)\b(?!\s*[a-z%])")
    if to and v.entities_for(to.group(1)):
        ent = _only(v.entities_for(to.group(1)))
        cl.take(to)
        cl.grab_all(r"\b(?:make|set|change|increase|decrease|reduce|cut|raise|lower|bump|scale|grow|shrink)\b")
        ctx.prev_topic, ctx.prev_entity = "entity", ent
        return to.start(), ScaleEntities(entity=ent, count=int(to.group(2)))
    m = cl.find(r"\b(more|fewer|less|bigger|smaller|larger)\s+(?:\w+\s+)?([a-z]+)\b")
    if m and v.entities_for(m.group(2)):
        raise NeedAsk(f"how many {m.group(2)}? say a number ('40 {m.group(2)}', '10 more')",
                      understood=[f"scale_entities entity={_only(v.entities_for(m.group(2)))}"], confidence=0.5)
    return None


def _counted(cl: Clause, v) -> re.Match | None:
    """The first 'N <entity word>' (or N and a plural noun that names no entity type)."""
    rx = (r"(?:\b(add|remove|drop|delete|cut)\s+)?\b(\d+)\s+(more|fewer|less|extra|additional|new)?\s*"
          r"(?:(?:[a-z]+\s+){0,2}?)([a-z]+)\b")
    hits = list(re.finditer(rx, cl.view))
    return next((m for m in hits if v.entities_for(m.group(4))), None) or next(
        (m for m in hits if m.group(4).endswith("s") and len(m.group(4)) > 3 and not re.fullmatch(UNIT, m.group(4))
         and m.group(4) not in ("questions", "incidents", "personas", "times", "percent")), None)


def _only(names: set[str]) -> str:
    if len(names) > 1:
        raise NeedAsk(f"which entity type: {' or '.join(sorted(names))}?", sorted(names))
    return next(iter(names))
