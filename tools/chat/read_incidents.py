"""Incident requests: add one ('add an outage on day 2 at 9am for 1h on 4 towers'), change one ('make
the flatline 4 hours', 'turn the second incident into a spike of +80%'), move one ('push it two hours
later'), remove some ('remove the flatline and the day-1 outage'). The new values are read first;
what is left names the incident(s), resolved by ``read_refs``."""

from __future__ import annotations

import re

from tools.chat.ops import AddIncident, EditIncident, MoveIncident, RemoveIncident
from tools.chat.read_context import Context
from tools.chat.read_mentions import take_measurement
from tools.chat.read_refs import resolve_incidents
from tools.chat.read_targets import check_count, take_ids, take_magnitude, take_new_kind, take_targets
from tools.chat.read_text import UNIT, Clause, NeedAsk
from tools.chat.read_time import (
    refuse_relative_days,
    signed_shift,
    take_clock,
    take_clock_range,
    take_day,
    take_duration,
    take_part_of_day,
    take_shift,
)
from tools.chat.read_words import duration_text
from tools.common.durations import parse_duration

REMOVE = r"\b(?:remove|delete|drop|get rid of|kill|discard|ditch|eliminate|take out|lose|scrap|cancel|clear|erase)\b"
MOVE = (r"\b(?:move|shift|push(?:\s+back)?|reschedule|delay|postpone|bring(?:\s+forward)?|pull(?:\s+forward)?|"
        r"slide)\b")
ADD = (r"\b(?:add|inject|insert|create|simulate|put|introduce|include|throw in|give (?:me|us)|i want|we need|"
       r"there should be|let's have|generate|new)\b")
EDIT = (r"\b(?:make|change|set|turn|update|edit|modify|convert|extend|lengthen|shorten|cut|trim|increase|decrease|give|"
        r"reduce|raise|lower|boost|double|halve|bump|switch|adjust|stretch|expand|shrink|tweak|have)\b")
STARTS = r"\b(?:so\s+(?:that\s+)?(?:it|they)\s+)?(?:to\s+)?(?:start|starts|starting|begin|begins|beginning|kick off)\b"
_DUR = rf"(\d+(?:\.\d+)?)\s*({UNIT})"
OPENING = (r"^\s*(?:(?:please|pls|plz|can|could|would|will|you|we|i|let's|lets|let|us|also|then|actually|now|just|"
           r"want|wanna|to|like|should|maybe|ok|okay|so|and|hey|i'd|id|go|ahead|kindly)\s+)*")


def read_incident(cl: Clause, ctx: Context) -> list:
    """The incident operations one clause asks for."""
    refuse_relative_days(cl)
    lead = re.sub(OPENING, "", cl.view)
    if re.match(REMOVE, lead) and cl.grab(REMOVE):
        return [RemoveIncident(incident=i) for i in _refs(cl, ctx, "remove", "remove_incident")]
    if re.match(MOVE, lead) and (verb := cl.grab(MOVE)):
        return _move(cl, ctx, verb.group(0))
    if cl.find(rf"^\s*(?:\w+\s+){{0,3}}?add\s+(?:another\s+)?{_DUR}\s+(?:more\s+)?to\b"):
        m = cl.grab(rf"\badd\s+(?:another\s+)?{_DUR}\s+(?:more\s+)?to\b")
        return _edit(cl, ctx, {"duration_by": signed_shift(float(m.group(1)), m.group(2), True)})
    if re.match(ADD, lead) or not re.match(EDIT, lead) and _new_kind_first(cl, ctx) or ctx.prev_kind and re.match(
            r"(?:another|one more|1 more)\b", lead):
        said = cl.grab(ADD)
        op = _add(cl, ctx)
        if not said and not set(op.model_dump(exclude_none=True)) - {"op", "kind"}:
            raise NeedAsk(f"add a {op.kind} incident? say when or where ('add a {op.kind} on day 1 at 10:00')",
                          confidence=0.4)
        return [op]
    if cl.find(STARTS) or cl.find(rf"\b{_DUR}\s+(?:later|earlier|sooner)\b|\b(?:later|earlier)\s+by\b"):
        return _move(cl, ctx, "")
    return _edit(cl, ctx, {})


def _new_kind_first(cl: Clause, ctx: Context) -> bool:
    """Whether the clause opens with a new incident ('flash crowd on three towers ...', 'throughput dip of
    40% ...'): a kind with no definite article or pronoun before it."""
    saved = list(cl.line.used)
    try:
        return take_new_kind(cl, ctx, bare=True) is not None
    finally:
        cl.line.used[:] = saved


def _refs(cl: Clause, ctx: Context, doing: str, understood: str) -> list[str]:
    """The incidents the clause names; an ask says what was understood besides the reference."""
    try:
        refs = resolve_incidents(cl, ctx)
    except NeedAsk as ask:
        ask.understood = ask.understood or [understood]
        raise
    if not refs:
        raise NeedAsk(f"which incident should I {doing}?", [i.id for i in ctx.vocab.incidents], [understood],
                      confidence=0.4)
    ctx.prev_topic = "incident"
    return refs


def _start(day: int | None, clock: str | None, part: str | None, ctx: Context) -> str | None:
    if day is None and clock is None:
        return None
    if day is None:
        if ctx.days > 1:
            raise NeedAsk(f"at {clock} on which day (1-{ctx.days})?", [f"day {d}" for d in range(1, ctx.days + 1)],
                          confidence=0.5)
        day = 1
    if clock is None:
        ctx.doubt(0.9, f"no time of day given: day {day} starts at {part or '00:00'}")
    return f"day {day} {clock or part or '00:00'}"


def _add(cl: Clause, ctx: Context) -> AddIncident:
    kind = take_new_kind(cl, ctx, bare=True)
    if kind is None and ctx.prev_kind and cl.grab(r"^\s*(?:another|one more|1 more)\b(?:\s+one\b)?"):
        kind = ctx.prev_kind  # '... and another on day 2'
    if kind is None:
        if cl.find(r"\b(?:incidents?|anomal(?:y|ies)|events?|problems?|issues?|faults?)\b"):
            raise NeedAsk("what kind of incident (outage, spike, dip, flatline, ...)?", confidence=0.4)
        raise NeedAsk(f"what kind of incident is '{' '.join(cl.leftover()) or cl.source(0, cl.b - cl.a)}'?",
                      confidence=0.3)
    span = take_clock_range(cl)
    day = take_day(cl, ctx.start, ctx.days)
    clock = span[0] if span else take_clock(cl)
    part = take_part_of_day(cl)
    duration = span[1] if span else take_duration(cl)
    magnitude = take_magnitude(cl, kind)
    targets = take_targets(cl, ctx)
    measurement = take_measurement(cl, ctx.vocab)
    cl.grab_all(r"\b(?:starting|start|starts|beginning|begin)\b(?:\s+(?:on|at|from))?")
    if duration is None:  # 'a 45 minute outage'
        m = cl.grab(rf"\b{_DUR}\b(?!\s+(?:later|earlier|longer|shorter|after|before|ago|of))")
        duration = duration_text(float(m.group(1)), m.group(2)) if m else None
    if targets.get("more"):
        raise NeedAsk(f"'{targets['count']} {targets['more']}' than what?")
    check_count(targets.get("count"), targets.get("entity"), ctx)
    if targets.get("ids") and (targets.get("count") or targets.get("where")):
        raise NeedAsk("target either these ids or a number of entities, not both", confidence=0.4)
    if measurement and targets.get("entity"):
        cols = [m.name for m in ctx.vocab.spec.entity(targets["entity"]).measurements]
        if measurement not in cols:
            raise NeedAsk(f"{targets['entity']} does not report {measurement}")
    if duration and parse_duration(duration) > ctx.days * 86400:
        raise NeedAsk(f"{duration} is longer than the data ({ctx.days} days); extend the horizon first", confidence=0.4)
    ctx.prev_topic, ctx.prev_entity, ctx.prev_kind = "incident", targets.get("entity"), kind
    return AddIncident(kind=kind, entity=targets.get("entity"), measurement=measurement, ids=targets.get("ids"),
                       count=targets.get("count"), where=targets.get("where"),
                       start=_start(day, clock, part, ctx), duration=duration, magnitude=magnitude)


def _move(cl: Clause, ctx: Context, verb: str) -> list:
    shift = take_shift(cl)
    day = clock = None
    clock_vague = False
    if shift is None:
        m = cl.grab(rf"\b(?:by\s+)?{_DUR}\b(?!\s*(?:long|later|earlier))")
        way = cl.grab(r"\b(?:back|forward|ahead)\b")
        words = f"{verb} {way.group(0) if way else ''}"
        if m:
            if re.search(r"push|delay|postpone", words) and not re.search(r"forward|ahead", words):
                shift = signed_shift(float(m.group(1)), m.group(2), True)
            elif re.search(r"bring|pull", words) and not re.search(r"back", words):
                shift = signed_shift(float(m.group(1)), m.group(2), False)
            else:
                raise NeedAsk("earlier or later?", ["earlier", "later"], confidence=0.5)
    if shift is None:
        target = cl.find(rf"(?:{STARTS}\s+|\bto\s+|\buntil\s+|\bat\s+)(?:at\s+|on\s+)?(.*)$")
        if target:
            sub = cl.sub(target.start(), len(cl.view))
            part = None
            day = take_day(sub, ctx.start, ctx.days)
            clock = take_clock(sub)
            part = take_part_of_day(sub)
            if day is not None or clock is not None or part is not None:
                cl.take(re.compile(rf"{STARTS}|\bto\b|\buntil\b").search(cl.view, target.start()))
            clock_vague = clock is None and part is not None
    if shift is None and day is None and clock is None:
        raise NeedAsk("move it where: to which day and time, or how much earlier or later?", confidence=0.4)
    cl.grab_all(EDIT)
    if clock_vague:
        raise NeedAsk("at what time? a part of the day is not a time ('at 14:00')", confidence=0.5)
    out = []
    for ident in _refs(cl, ctx, "move", f"move_incident {'shift=' + shift if shift else ''}"
                       f"{' day=' + str(day) if day else ''}{' at=' + clock if clock else ''}".strip()):
        if shift:
            out.append(MoveIncident(incident=ident, shift=shift))
            continue
        facts = ctx.vocab.incident(ident)
        if facts.day is None:
            raise NeedAsk(f"{ident} has no day-and-time start I can keep; give both day and time")
        new_day, new_clock = day or facts.day, clock or facts.clock
        if new_day > ctx.days:
            raise NeedAsk(f"day {new_day} is outside the data ({ctx.days} days)")
        out.append(MoveIncident(incident=ident, start=f"day {new_day} {new_clock}"))
    return out


_LONGER = r"\b(?:longer|shorter|extend|lengthen|stretch|shorten|cut|trim|reduce)\b"
_BIGGER = r"\b(?:bigger|larger|stronger|higher|smaller|weaker|milder|lower|more intense|less intense|worse|harsher)\b"


def _edit(cl: Clause, ctx: Context, fields: dict) -> list:
    if "duration_by" not in fields:
        fields.update(_duration_change(cl))
    kind = take_new_kind(cl, ctx)
    if kind:
        fields["kind"] = kind
    magnitude = take_magnitude(cl, kind)
    if magnitude:
        fields["magnitude"] = magnitude
        cl.grab(_BIGGER)
    ids, _ = take_ids(cl, ctx)
    if ids:
        fields["ids"] = ids
    count = next((m for m in re.finditer(r"(?:\b(?:to|hit|hits|affect|affects|affecting|hitting|on|across|over|cover|"
                                         r"covers|touch)\s+)?\b(\d+)\s+(more\s+|fewer\s+)?([a-z]+)\b", cl.view)
                  if ctx.vocab.entities_for(m.group(3))), None)
    if count:
        cl.take(count)
        fields["count"] = int(count.group(1))
        more = (count.group(2) or "").strip()
        if more:
            fields["more"] = (1 if more == "more" else -1) * fields["count"]
    elif cl.find(r"\b(?:more|fewer|less)\s+([a-z]+)\b") and ctx.vocab.entities_for(
            cl.find(r"\b(?:more|fewer|less)\s+([a-z]+)\b").group(1)):
        raise NeedAsk("how many? say the number of entities", understood=_understood(cl, ctx, "hit more or fewer"),
                      confidence=0.5)
    measurement = cl.find(r"\b(?:to|onto|on|in|into)\s+")
    if measurement:
        sub = cl.sub(measurement.end(), len(cl.view))
        name = take_measurement(sub, ctx.vocab)
        if name:
            fields["measurement"] = name
    if cl.find(_LONGER) and not ({"duration", "duration_by"} & set(fields)):
        # no amount: a proposal the user confirms ("ok") or corrects, never applied at once
        longer = cl.grab(r"\b(?:longer|extend|lengthen|stretch)\b") is not None
        if not longer:
            cl.grab(_LONGER)
        bit = cl.grab(r"\b(?:a (?:little\s+)?bit|slightly|a little|somewhat)\b") is not None
        fields["duration_by"] = ("x1.5" if longer else "x0.75") if bit else ("x2" if longer else "x0.5")
        ctx.assumed.append(f"you did not say how much {'longer' if longer else 'shorter'}: I propose "
                           f"{'half as long again' if bit and longer else 'a quarter shorter' if bit else 'twice as long' if longer else 'half as long'}"
                           f" (or say e.g. '1 hour {'longer' if longer else 'shorter'}')")
    if cl.find(_BIGGER) and "magnitude" not in fields:
        raise NeedAsk("by how much? say a magnitude ('+50%', 'x2')",
                      understood=_understood(cl, ctx, "change the magnitude"), confidence=0.5)
    cl.grab_all(EDIT)
    cl.grab_all(r"\b(?:duration|length|size|magnitude)\b")
    refs = _refs(cl, ctx, "change", " ".join(["edit_incident", *(f"{k}={v}" for k, v in fields.items())]))
    if not fields:
        raise NeedAsk(f"what should change about {', '.join(refs)}?", understood=[f"incident {r}" for r in refs])
    out = []
    for ident in refs:
        f = dict(fields)
        if "more" in f:
            size = ctx.vocab.incident(ident).size or 0
            f["count"] = size + f.pop("more")
        out.append(EditIncident(incident=ident, **f))
    return out


def _understood(cl: Clause, ctx: Context, what: str) -> list[str]:
    try:
        refs = resolve_incidents(Clause(cl.line, cl.a, cl.b), ctx) or []
    except NeedAsk:
        refs = []
    return [f"{what} of {', '.join(refs) or 'an incident'}"]


def _duration_change(cl: Clause) -> dict:
    m = cl.grab(r"\b(\d+(?:\.\d+)?)\s*(?:x|times)\s+(?:as\s+)?long(?:er)?\b")
    if m:
        return {"duration_by": f"x{m.group(1)}"}
    if cl.grab(r"\btwice\s+as\s+long\b|\bdouble\s+(?:the\s+|its\s+)?(?:length|duration)\b"):
        return {"duration_by": "x2"}
    if cl.grab(r"\bhalf\s+as\s+long\b|\bhalve\s+(?:the\s+|its\s+)?(?:length|duration)\b"):
        return {"duration_by": "x0.5"}
    m = cl.grab(rf"\b(?:by\s+)?{_DUR}\s+(longer|shorter|more|less)\b")
    if m:
        return {"duration_by": signed_shift(float(m.group(1)), m.group(2), m.group(3) in ("longer", "more"))}
    m = cl.grab(rf"\b(longer|shorter)\s+by\s+{_DUR}")
    if m:
        return {"duration_by": signed_shift(float(m.group(2)), m.group(3), m.group(1) == "longer")}
    verb = re.search(r"\b(extend|lengthen|stretch|shorten|cut|trim|reduce)\b", cl.line.text[cl.a:cl.b])
    m = cl.find(rf"\bby\s+{_DUR}\b")
    if verb and m:
        cl.take(m)
        cl.grab(rf"\b{verb.group(1)}\b")
        return {"duration_by": signed_shift(float(m.group(1)), m.group(2), verb.group(1) in ("extend", "lengthen",
                                                                                             "stretch"))}
    m = cl.grab(rf"\b(\d+(?:\.\d+)?)\s+(more|extra|fewer|less)\s+({UNIT})\b")
    if m:
        return {"duration_by": signed_shift(float(m.group(1)), m.group(3), m.group(2) in ("more", "extra"))}
    m = cl.grab(rf"(?:\b(?:last|lasts|lasting|for|to|be|runs?(?:\s+for)?|take|takes)\s+)?\b{_DUR}\b(?:\s+long\b)?"
                r"(?!\s*(?:later|earlier))")
    if m:
        cl.grab(r"\b(?:duration|length)\b")
        return {"duration": duration_text(float(m.group(1)), m.group(2))}
    return {}
