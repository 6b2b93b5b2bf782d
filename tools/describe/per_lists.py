"""What is recorded for each of a thing (issue 29): "Per load: net weight in tonnes (1-25 t), contamination %
(a visual estimate) and the gate fee in $ (...)", "Per loan we track the appraised value in $, ..., and how many
days until the loan closed out", "For each animal record the age in months at intake, ...". The thing names the
entity whose measurements they are; every item is a measurement with its unit and stated range, its name the
user's words without articles ("hours in the chair" → hours_in_chair); asides in brackets give ranges and
levels, never values of a category.
"""

from __future__ import annotations

import re

from tools.describe.phrases import Item, parse_item, split_items
from tools.describe.units import parse_unit, unit_label

_VERBS = r"(?:record|log|track|keep|store|capture|note|measure|want|need|get|have|see|collect|write down)"
PER_LIST = re.compile(
    r"^\s*(?:per|for each|for every|for an?|on each|with each)\s+(?P<thing>[a-z][\w-]*(?:\s+(?!(?:we|i|you|they|"
    + _VERBS[3:-1] + r")\b)[a-z][\w-]*)?)\s*(?::\s*|,?\s+(?:(?:we|i|you|they)\s+(?:also\s+|would like to\s+|want to\s+)?)?"
    + _VERBS + r"s?\s+(?:(?:the|its|their)\s+)?)(?P<list>.+)$", re.I)
_TIME = {"days": "d", "hours": "h", "minutes": "min", "weeks": "week", "months": "month", "seconds": "s", "years": "year"}


def _item(raw: str) -> Item | None:
    raw = re.sub(r"^(?:and|or|plus|also)\s+", "", raw.strip(), flags=re.I)
    raw = re.sub(r"^(?:the|a|an|its|their)\s+", "", raw, flags=re.I)
    how = re.match(r"^how (?:many|much|long)\s+(days|hours|minutes|weeks|months|seconds|years)\s+(?:until|before|till|to|"
                   r"it takes (?:for|until|to))\s+(?:(?:the|a|an|its|their)\s+)?(.+)$", raw, re.I)
    if how:  # "how many days until the loan closed out": the time to that moment, in days
        return Item(words=how.group(2), unit=_TIME[how.group(1).lower()], raw=raw)
    scale = re.search(r"\s+on\s+(?:a|the)\s+(\d+(?:\.\d+)?)(?:[- ]point)?\s+scale\b", raw, re.I)
    lo = hi = None
    if scale:  # "GPA on the 4.0 scale": from 0 to that
        lo, hi = 0.0, float(scale.group(1))
        raw = raw[: scale.start()] + raw[scale.end():]
    first = re.search(r"\(\s*(\d+(?:\.\d+)?)\s*(?:-|–|to)\s*(\d+(?:\.\d+)?)\s*,", raw)
    if first:  # "(1-8, full sleeves can be more)": the range comes first
        lo, hi = float(first.group(1)), float(first.group(2))
    raw = re.sub(r"\s+(on|in|at)\s+(?:the|a|an)\s+(?=[a-z])", r" \1 ", raw, flags=re.I)  # "time on the table": its name
    said = re.search(r"\(\s*([^\s,()]{1,6})\s*,", raw)  # "bean temp at drop (°C, usually 200-225)"
    it = parse_item(raw)
    if it.unit is None and said and parse_unit(said.group(1), strict=True) is not None:
        it.unit = unit_label(parse_unit(said.group(1), strict=True))
    if not it.words or len(it.words.split()) > 5:
        return None
    words = it.words
    values = it.values if it.values and not it.unit and not first and not any(re.search(r"[$€£%]|\d\s*/", v)
                                                                               for v in it.values) else None
    return Item(words=words, unit=it.unit, level=it.level, raw=it.raw, values=values,
                low=it.low if it.low is not None else lo, high=it.high if it.high is not None else hi, whole=it.whole)


def per_list(s: str) -> tuple[str, list[Item], tuple[int, int]] | None:
    """(the thing, its measurements, the span read) of a "Per <thing>: A, B and C" sentence, or None."""
    m = PER_LIST.match(s)
    if not m or re.search(r"->|→|=>", s) or re.fullmatch(r"(?:second|minute|hour|day|week|month|year)s?", m.group("thing"), re.I):
        return None
    items = [it for it in (_item(raw) for raw in split_items(m.group("list"))) if it is not None]
    return (m.group("thing"), items, (m.start("list"), len(s))) if len(items) >= 2 else None

