"""Levels, limits and signs a user states beside a measurement, and the words around its unit that
are not part of its name.

In brackets: "(around 2,100°F)" and "(normally 7-10)" are the typical level (the middle of a typical
range); "(under 25)", "(we keep it under 25)", "(the limit is 1.5)", "(capped at £8 per item)" an
upper limit; "(negative when regenerating)" allows values below zero; "(a bisque peaks around 1,830°F,
a cone 6 glaze about 2,230°F)" and "(standard £88.50, fast track £178)" give one level per kind, so
the level is their mean (and plain listed amounts are also the limits). A threshold ("at least 50% is
needed to pass") is no limit of the values. Outside brackets: "load as a % of capacity" is in %,
"fill level in mm below the bung" in mm, "temperature in °C at 5 m depth" in °C, "feed delivered in
the last 15 minutes" is the feed delivered.
"""

from __future__ import annotations

import math
import re
from typing import Any

from tools.describe.units import convert, parse_unit, unit_label

_THOUSANDS = re.compile(r"(?<![\d.,])(\d{1,3})((?:,\d{3})+)(?![\d]|,\d)")
_NUM = r"([£$€]?)\s?(\d+(?:\.\d+)?)(?:\s?(k|bn)\b)?"
_LEVEL = r"around|about|approximately|approx\.?|roughly|typically|typical|usually|normally|~|near|close to|" \
         r"averag\w*|standard|target|mean|median|mostly|generally|often|peaks?(?: at)?|nominal(?:ly)?"
_UPPER = r"under|below|less than|at most|max(?:imum)?|up to|no more than|limit(?:ed)?(?: is| of| at| to)?|" \
         r"capped(?: at)?|cap(?: is| of| at)?|never (?:above|over|exceeds?)|must not exceed|not above"
_LOWER = r"at least|min(?:imum)?|no less than|never (?:below|under)"
_STOP = {"we", "keep", "kept", "it", "its", "is", "are", "the", "a", "an", "and", "but", "always", "our", "must", "be",
         "should", "stay", "stays", "to", "held", "maintained", "line", "speed", "value", "values", "reading",
         "readings", "level"}
_CURRENCY = {"£": "GBP", "$": "USD", "€": "EUR"}
_SCALE = {"k": 1e3, "bn": 1e9}


def plain_numbers(text: str) -> str:
    """'1,830°F' → '1830°F', '3,500' → '3500' (a comma before three digits groups thousands)."""
    return _THOUSANDS.sub(lambda m: m.group(1) + m.group(2).replace(",", ""), text)


def _value(cur: str | None, num: str, scale: str | None, unit: str | None, after: str) -> tuple[float, str | None]:
    """The number stated, in ``unit`` when it is written in another ("around 57°F" of a °C column), and
    the unit written after it (or its currency sign)."""
    v = float(num) * _SCALE.get((scale or "").lower(), 1.0)
    said = _CURRENCY.get(cur) if cur else None
    w = re.match(r"\s*([^\s,;)]+)", after)
    if said is None and w and parse_unit(w.group(1).rstrip("."), strict=True) is not None:
        said = w.group(1).rstrip(".")
    if said and unit and parse_unit(said, strict=True) is not None and parse_unit(unit) is not None:
        conv = convert(v, said, unit)
        v = v if conv is None else conv
    return v, said


def read_bracket(item: Any, inside: str, name_words: str) -> bool:
    """Reads what a bracket after a measurement states into ``item`` (level, low, high, unit); False
    when it states none of it (a list of values, a unit, a range: read by the caller)."""
    text = plain_numbers(inside)
    if re.search(r"\bnegative\b|±|\+/-|below zero", text, re.I):
        item.low = -math.inf
        return True
    own = {w.lower() for w in re.findall(r"[a-z]+", name_words, re.I)}
    levels, limits_hi, limits_lo, plain, found = [], [], [], [], False
    for clause in re.split(r"\s*[,;]\s*|\s+and\s+(?=[a-z£$€~])", text):
        bare = re.fullmatch(rf"((?:[a-z][\w-]*\s+){{0,3}}){_NUM}\s*([^\s\d]*)", clause.strip(), re.I)
        if bare and not re.search(rf"\b(?:{_UPPER}|{_LOWER}|around|about|approx\w*|roughly|~|usually|normally|"
                                  rf"typically|mostly|near)\b|~", bare.group(1), re.I):
            v = _value(bare.group(2), bare.group(3), bare.group(4), item.unit, bare.group(5) or "")[0]
            plain.append((v, bool(re.search(r"standard|target|typical|default|nominal", bare.group(1), re.I))))
            continue
        k = re.search(rf"\b({_LEVEL}|{_UPPER}|{_LOWER})\b\s*(?:[a-z]+\s+){{0,3}}?(?:is\s+|of\s+|at\s+)?{_NUM}"
                      rf"(?:\s*(?:-|–|to)\s*{_NUM})?", clause, re.I)
        if k is None:
            continue
        before = {w.lower() for w in re.findall(r"[a-z]+", clause[: k.start()], re.I)} - _STOP - own
        v, said = _value(k.group(2), k.group(3), k.group(4), item.unit,
                         clause[k.end(4) if k.group(4) else k.end(3):] if k.group(6) is None else clause[k.end():])
        if item.unit is None and said and parse_unit(said, strict=True) is not None:
            item.unit = unit_label(parse_unit(said, strict=True))
        if k.group(6):  # "usually 8-14 h": the middle of the range
            v = (v + _value(k.group(5) or k.group(2), k.group(6), k.group(7), item.unit, clause[k.end():])[0]) / 2
        word = k.group(1).lower()
        threshold = re.match(r"\s*%?\s*(?:is\s+|are\s+)?(?:needed|required|to pass|to qualify|for a pass)", clause[k.end():])
        found = True
        if re.fullmatch(_LEVEL, word, re.I) or before:
            levels.append(v)  # a kind's own limit ("small claims max $10,000") says what is usual, not a bound
        elif re.fullmatch(_UPPER, word, re.I):
            limits_hi.append(v)
        elif not threshold:
            limits_lo.append(v)
    values = [v for v, _ in plain]
    if not found and len(values) >= 2:  # "(standard £88.50, fast track £178, premium £222)": one of these
        item.level, item.low, item.high = sum(values) / len(values), min(values), max(values)
        return True
    if not found and len(plain) == 1 and plain[0][1]:  # "(standard 21 days)"
        item.level = values[0]
        return True
    levels += values if found else []
    if levels:
        item.level = sum(levels) / len(levels)
    if limits_hi:
        item.high = min(limits_hi) if item.high is None else min(item.high, *limits_hi)
    if limits_lo:
        item.low = max(limits_lo) if item.low is None else max(item.low, *limits_lo)
    return found


def unit_phrase(text: str) -> tuple[str, str | None]:
    """(the words without what only places the unit, the unit they state): 'passenger load as a % of
    capacity' → ('passenger load', '%'); 'fill level in mm below the bung' → ('fill level', 'mm');
    'water temperature in °C at 5 m depth' → ('water temperature', '°C'); 'feed delivered in the last
    15 minutes' → ('feed delivered', None)."""
    text = re.sub(r"\s+(?:at|from)\s+(?:a\s+)?(?:depth of\s+)?\d+(?:\.\d+)?\s*[a-z]+\s+(?:depth|deep|height|high|"
                  r"above\b.*|below\b.*)$", "", text, flags=re.I)
    text = re.sub(r"\s+(?:in|over|during|for)\s+(?:the|that|this|each)\s+(?:(?:last|past|previous)\s+(?:\d+\s+)?"
                  r"(?:seconds?|minutes?|hours?|days?)|interval|period|reporting interval)\b", "", text, flags=re.I)
    m = re.search(r"\s+(?:as|in)\s+(?:a\s+)?(%|percent(?:age)?)(?:\s+of\s+[\w\s-]+)?$", text, re.I)
    if m:
        return text[: m.start()].strip(), "%"
    m = re.search(r"\s+(?:in|as|measured in)\s+([^\s,;]+)\s+(?:below|above|under|over|from|behind|relative to|at)\b.*$",
                  text, re.I)
    if m and parse_unit(m.group(1), strict=True) is not None:
        return text[: m.start()].strip(), unit_label(parse_unit(m.group(1), strict=True))
    return text, None
