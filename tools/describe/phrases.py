"""Reading the pieces of a description: numbers in words, sentences, and list items with their
units and qualifiers ("rotor speed in rpm", "power output (kW)", "temperature around -20 °C").

Numbers in words are converted by a small converter of our own: text2num also converts ordinals
("every second" → "every 2nd"), which breaks cadences, and has no switch to stop it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from tools.describe.stated_values import plain_numbers, read_bracket, unit_phrase
from tools.describe.units import parse_unit, unit_label

_ONES = {"zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
         "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15,
         "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19}
_TENS = {"twenty": 20, "thirty": 30, "forty": 40, "fourty": 40, "fifty": 50, "sixty": 60, "seventy": 70,
         "eighty": 80, "ninety": 90}
_SCALES = {"hundred": 100, "thousand": 1000, "million": 1_000_000}
_WORD = "|".join(sorted([*_ONES, *_TENS, *_SCALES, "dozen", "a", "an"], key=len, reverse=True))
_RUN = re.compile(rf"\b(?:(?:{_WORD})(?:[\s-]+(?:and\s+)?(?=(?:{_WORD})\b))?)+\b", re.I)


def _value(words: list[str]) -> int | None:
    total, current, seen = 0, 0, False
    for w in words:
        if w in ("a", "an"):
            current = max(current, 1)
            continue
        if w in _ONES:
            current += _ONES[w]
        elif w in _TENS:
            current += _TENS[w]
        elif w == "dozen":
            current = max(current, 1) * 12
        elif w == "hundred":
            current = max(current, 1) * 100
        elif w in _SCALES:
            total += max(current, 1) * _SCALES[w]
            current = 0
        else:
            return None
        seen = True
    return total + current if seen else None


def parse_unit_text(text: str | None):
    """A unit the user wrote (strict: no pint guesses on ordinary words)."""
    return parse_unit(text, strict=True)


def words_to_numbers(text: str) -> str:
    """'forty turbines over two weeks, a dozen pumps, two hundred scooters' → digits; a lone 'a'/'an'
    and 'one' used as a pronoun ('one of them', 'each one') stay words."""
    def repl(m: re.Match) -> str:
        words = [w for w in re.split(r"[\s-]+", m.group(0).lower()) if w and w != "and"]
        if all(w in ("a", "an") for w in words):
            return m.group(0)
        value = _value(words)
        after = text[m.end(): m.end() + 6].lower()
        if value is None or (words == ["one"] and (after.startswith(" of") or text[:m.start()].lower().endswith(
                ("each ", "every ", "which ", "no ")))):
            return m.group(0)
        lead = " " if m.group(0)[0] == " " else ""
        return lead + str(value)

    return _RUN.sub(repl, text)


def sentences(text: str) -> list[str]:
    """Sentences and semicolon clauses (a dot between digits is a decimal point, not an end)."""
    hidden = re.sub(r"\([^()\n]{0,300}\)", lambda m: m.group(0).translate(_HIDE), text)  # "(zero unless awarded; ...)"
    parts = re.split(r"(?<!\d)[.!?](?!\d)\s*|(?<=\d)\.\s+(?=[A-Z])|;\s*|\n+", hidden)  # "... 1 to 5. The queue"
    return [p.translate(_SHOW).strip() for p in parts if p and p.strip()]


_HIDE = str.maketrans({".": "\x00", ";": "\x01", "!": "\x02", "?": "\x03"})
_SHOW = str.maketrans({"\x00": ".", "\x01": ";", "\x02": "!", "\x03": "?"})


_QUAL = r"(?:around|about|approximately|approx\.?|roughly|typically|usually|normally|~|near|at about|close to|of about|averaging)"
_NUMBER = r"[-−–]?\d+(?:[.,]\d+)?"


@dataclass
class Item:
    """One list item: the name words, the unit the user gave, a stated level, the raw text."""

    words: str
    unit: str | None = None  # label of the unit ("kW"), parsed by pint
    level: float | None = None
    raw: str = ""
    values: list[str] | None = None  # "(a, b or c)" after an attribute name
    low: float | None = None  # "at least 0", "min 5"
    high: float | None = None  # "(max 32)", "at most 1000", "up to 25 km/h"
    whole: bool = False  # "multiples of 10", "in steps of 5", "whole numbers"


def _said_unit(item: Item, said: str | None) -> None:
    """The unit said outside brackets; one of another dimension read in a bracket goes with its numbers
    ("core temperature in °C (hold 55 °C or more for 15 days)" is in °C, not days)."""
    old = parse_unit_text(item.unit) if item.unit else None
    new = parse_unit_text(said) if said else None
    if old is not None and new is not None and old.dimensionality != new.dimensionality:
        item.unit, item.level, item.low, item.high = None, None, None, None
    item.unit = item.unit or said


def _num(s: str) -> float:
    return float(s.replace("−", "-").replace("–", "-").replace(",", "."))


def parse_item(raw: str) -> Item:
    """'rotor speed in rpm' / 'power output (kW)' / 'temperature around -20 °C' / 'tariff plan
    (standard, economy 7 or time-of-use)' → an Item."""
    text = raw.strip(" .,:'\"`")
    text = re.sub(r"\s+(?:is\s+)?(?:set|kept|held|maintained|controlled|regulated)(?=\s+(?:to|at|around|near|about)\b)",
                  "", text, flags=re.I)  # "supply air temperature set around -20 °C"
    text = re.sub(r"\s+(?:set\s+)?(?:to|at)\s+(?=(?:around|about|near)\b)", " ", text, flags=re.I)
    text = plain_numbers(text) + ")" * max(0, text.count("(") - text.count(")"))  # "(we" cut from its clause
    item = Item(words=text, raw=raw.strip())
    for b in list(re.finditer(r"[(\[]([^)\]]*)[)\]]", text)):
        rng = re.fullmatch(rf"\s*({_NUMBER})\s*(?:to|-|–|—)\s*({_NUMBER})\s*([^\s)]*)\s*", b.group(1))
        if rng:  # "(0 to 3)": the range the user expects
            item.low, item.high = _num(rng.group(1)), _num(rng.group(2))
            if rng.group(3) and parse_unit_text(rng.group(3)) is not None:
                item.unit = unit_label(parse_unit_text(rng.group(3)))
            text = text.replace(b.group(0), " ")
            continue
        steps = re.search(r"\b(?:multiples? of|in steps of|rounded to|whole)\b", b.group(1), re.I)
        if not steps and read_bracket(item, b.group(1), text[: b.start()]):
            text = text.replace(b.group(0), " ")
        elif re.search(rf"\b(?:{_LIMIT}|multiples? of|in steps of|rounded to)\b", b.group(1), re.I):
            _limits(item, b.group(1))
            text = text.replace(b.group(0), " ")
    text, said = unit_phrase(" ".join(text.split()))
    _said_unit(item, said)
    _limits(item, text)
    text = re.sub(rf",?\s*\b(?:{_LIMIT})\s+{_NUMBER}\s*[^\s,;]*", " ", text, flags=re.I)
    text = re.sub(rf"\s+from\s+{_NUMBER}\s+to\s+{_NUMBER}(?:\s+[a-z]+)?", " ", text, flags=re.I)
    text = " ".join(text.split())
    m = re.search(r"\s*[(\[]([^)\]]*)[)\]]", text)
    if m:
        inside = re.sub(r"^(?:in|as)\s+", "", m.group(1).strip(), flags=re.I)
        vals = [v for v in re.split(r"\s*,\s*(?:or\s+|and\s+)?|\s+or\s+|\s*/\s*", inside) if v]
        if parse_unit_text(inside) is not None and len(vals) == 1:
            item.unit = unit_label(parse_unit_text(inside))
        elif len(vals) >= 2:
            item.values = [v.strip(" '\"") for v in vals]
        text = (text[: m.start()] + " " + text[m.end():]).strip()
    q = re.search(rf"\s*(?:,\s*)?(?:{_QUAL}\s*)?(?:(?:under|below|over|above|less than|more than)\s+)?"
                  rf"(?<![A-Za-z0-9.])({_NUMBER})(?![\w-])\s*([^\s\d,;]{{0,12}}(?:\s?[a-zA-Z/]+)?)?\s*$", text)
    if q and (re.search(_QUAL, q.group(0), re.I) or q.group(2)):
        item.level = _num(q.group(1))
        unit = parse_unit_text(q.group(2)) if q.group(2) else None
        if unit is not None:
            item.unit = item.unit or unit_label(unit)
        text = text[: q.start()].strip()
    u = re.search(r"\s+(?:in|as|measured in|expressed in)\s+([^\s,;]+(?:\s?/\s?[^\s,;]+)?(?:\s+per\s+\w+)?)\s*$", text, re.I)
    if u and parse_unit_text(u.group(1)) is not None:
        _said_unit(item, unit_label(parse_unit_text(u.group(1))))
        text = text[: u.start()].strip()
    elif u and re.search(r"\bper\b|/", u.group(1)):  # "in bottles per minute": a rate pint does not know
        item.unit = item.unit or u.group(1).replace(" per ", "/")
        text = text[: u.start()].strip()
    text = re.sub(r"^(?:runs?|sits?|lives?|is located|located|hosted|deployed|installed|placed|based)\s+(?:on|in|at)\s+"
                  r"(?:a|an|the)\s+", "", text.strip(), flags=re.I)  # "runs on a node" → node
    hidden = re.search(r"\b(hours|minutes|seconds|days|km|kilometres|kilometers|miles|kg|litres|liters|tonnes)\b",
                       text, re.I)
    if item.unit is None and hidden and len(text.split()) > 1 and hidden.end() < len(text.rstrip()):
        # "labour hours spent", "total km driven" (a unit at the end is read below)
        item.unit = unit_label(parse_unit_text(hidden.group(1)))
    last = text.rsplit(None, 1)
    single = len(text.split()) >= 3 and last[-1] in ("m", "s", "h", "g", "W", "V", "A", "l", "L", "t")  # "wave height m"
    said = parse_unit_text(last[1]) if len(last) == 2 else None
    if (item.unit is None or (said is not None and unit_label(said) == item.unit)) and len(last) == 2 and (
            last[1].lower() in _UNIT_WORDS or re.search(r"[%°$€£/]", last[1]) or single) and said is not None:
        item.unit = unit_label(said)  # "hive weight kg", "battery %"
        text = last[0]
    text = re.sub(r"\s+(?:(?:of|for|per|on|from)\s+(?:each|every|the|a|an)|per(?!\s+(?:second|minute|hour|day)\b))"
                  r"\s+[\w-]+$", "", text, flags=re.I)  # "airline of each bag"
    text = re.sub(r"^(?:the\s+)?[a-z]+'s\s+", "", text, flags=re.I)  # "the patient's heart rate"
    text = re.sub(r"^(?:and|or|plus|also)\s+", "", text, flags=re.I)
    text = re.sub(r"^(?:every|each)\s+(?:\d+\s*)?(?:seconds?|minutes?|hours?|days?|min|h|s)\s+(?=\w)", "", text,
                  flags=re.I)  # "every minute heart rate"
    text = re.sub(r"^(?:we|you|they|i)\s+(?:also\s+)?(?:have|get|collect|keep|log|record|track|store|capture|see|want)\s+",
                  "", text, flags=re.I)  # "We have loan amount in EUR"
    rate = re.fullmatch(r"((?:[a-z-]+\s){0,2}[a-z-]+)\s+per\s+(second|minute|hour|day)", text.strip(), re.I)
    if rate and item.unit is None:  # "strokes per minute": a rate named by its unit
        counted = next((w for w in rate.group(1).split() if w.endswith("s") and len(w) > 3), rate.group(1).split()[-1])
        item.unit = f"{counted}/{ {'second': 's', 'minute': 'min', 'hour': 'h', 'day': 'd'}[rate.group(2).lower()]}"
        text = f"{rate.group(1)} per {rate.group(2)}"
    item.words = re.sub(r"^(?:the|their|its|a|an|each|per|current|both)\s+", "", text, flags=re.I).strip(" -:")
    return item


_LIMIT = r"max(?:imum)?|at most|up to|no more than|min(?:imum)?|at least|no less than|never (?:above|over|below|under)"
_UNIT_WORDS = {"kg", "kw", "kwh", "mw", "mwh", "db", "dba", "ms", "rpm", "bpm", "mmhg", "hpa", "kpa", "psi", "bar",
               "ppm", "ppb", "lux", "mbps", "gbps", "km", "mph", "kph", "usd", "eur", "gbp", "lbs", "volts", "amps",
               "hz", "celsius", "fahrenheit", "litres", "liters", "mm", "cm", "l/min", "m3", "m³", "kn", "knots"}


def _limits(item: Item, text: str) -> None:
    """Stated limits: 'max 32', 'at most 1000', 'at least 0' (in the item's unit)."""
    step = re.search(rf"\b(?:multiples? of|in steps of)\s+({_NUMBER})", text, re.I)
    if step and _num(step.group(1)) > 0 and _num(step.group(1)).is_integer():
        item.whole = True  # "multiples of 10": whole numbers, and at least one step
        item.low = max(item.low or 0.0, _num(step.group(1)))
    if re.search(r"\bwhole (?:numbers?|units?|euros?|dollars?|pounds?)\b|\bintegers?\b", text, re.I):
        item.whole = True
    rng = re.search(rf"\bfrom\s+({_NUMBER})\s+to\s+({_NUMBER})", text, re.I)
    if rng:  # "a rating from 1 to 5 stars"
        item.low, item.high = _num(rng.group(1)), _num(rng.group(2))
    for m in re.finditer(rf"\b({_LIMIT})\s+({_NUMBER})\s*([^\s,;)]*)", text, re.I):
        word, value = m.group(1).lower(), _num(m.group(2))
        if m.group(3) and item.unit is None and parse_unit_text(m.group(3)) is not None:
            item.unit = unit_label(parse_unit_text(m.group(3)))
        if word.startswith(("max", "at most", "up to", "no more", "never above", "never over")):
            item.high = value if item.high is None else min(item.high, value)
        else:
            item.low = value if item.low is None else max(item.low, value)


def split_items(text: str) -> list[str]:
    """'a, b (x, y or z) and c' → ['a', 'b (x, y or z)', 'c']: commas, 'and', 'or', '&', 'as well as',
    never inside brackets."""
    out, depth, cur = [], 0, ""
    i = 0
    while i < len(text):
        ch = text[i]
        depth += ch in "([" and 1 or 0
        depth -= ch in ")]" and 1 or 0
        if depth == 0:
            m = re.match(r"\s*,\s*(?:and\s+|or\s+)?|\s+(?:and|or|&|as well as|plus)\s+|\s+/\s+", text[i:], re.I)
            if m is None and ch == "/" and re.fullmatch(r"[A-Za-z_]{4}", text[max(0, i - 4): i]) \
                    and re.match(r"[A-Za-z_]{4}", text[i + 1:]):  # "heating/cooling", never "µg/m³" or "km/h"
                m = re.match("/", text[i:])
            if m and m.end() > 0 and (ch in ", /&" or text[i] == " "):
                out.append(cur)
                cur = ""
                i += m.end()
                continue
        cur += ch
        i += 1
    out.append(cur)
    return [o.strip() for o in out if o.strip()]
