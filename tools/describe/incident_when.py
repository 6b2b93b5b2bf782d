"""When a described incident happens: its day, clock time and duration, each with the words it was
read from ("on the second day", "from noon to 6pm", "for an hour and a half", "days 15-17").

Numbers in words have already been turned into digits (``tools.describe.phrases.words_to_numbers``),
which writes "two and a half hours" as "2 half hours": both forms are read.
"""

from __future__ import annotations

import re

_ORDINALS = {"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7, "eighth": 8,
             "ninth": 9, "tenth": 10, "last": -1}
WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_UNIT_S = {"s": 1, "sec": 1, "second": 1, "m": 60, "min": 60, "minute": 60, "h": 3600, "hr": 3600, "hour": 3600,
           "d": 86400, "day": 86400, "w": 604800, "wk": 604800, "week": 604800, "fortnight": 1209600,
           "month": 2592000}
_UNIT = r"(?:seconds?|secs?|minutes?|mins?|hours?|hrs?|h|m|days?|d|weeks?|wks?|w|fortnights?|months?)"
# a clock time: 14:00, 2pm, 6 in the evening, noon
CLOCK = (r"(?:\d{1,2}(?::\d{2})?(?:\s*[ap]\.?m\b\.?)?(?:\s+(?:in\s+the\s+(?:morning|afternoon|evening)|at\s+night|"
         r"o'clock))?|noon|midday|midnight)")
_NOT_CLOCK_AFTER = r"(?!\s*(?:%|x\b|times|days?|hours?|minutes?|mins?|weeks?|°|degrees|[a-z]+s\b))"
# parts of the day named instead of a clock time: (start, hours)
_PARTS = ((r"working hours|business hours|office hours|opening hours", "09:00", 8),
          (r"overnight|(?:during|in|through) the night|at night|\bnight\b", "22:00", 8),
          (r"most of the afternoon", "13:00", 4), (r"\bafternoon\b", "12:00", 6),
          (r"\bevening\b", "18:00", 4), (r"\bmorning\b", "06:00", 6),
          (r"all day|(?:the\s+)?(?:whole|entire|full)\s+day|all that day", "00:00", 24))


def _hour(words: str) -> tuple[int, int, str | None]:
    """(hour, minute, the part of the day it was marked with: am/pm/None)."""
    w = words.lower().strip()
    if w in ("noon", "midday"):
        return 12, 0, "pm"
    if w == "midnight":
        return 0, 0, "am"
    m = re.match(r"(\d{1,2})(?::(\d{2}))?\s*([ap])?", w)
    h, mi, ap = int(m.group(1)), int(m.group(2) or 0), m.group(3)
    if re.search(r"afternoon|evening|night", w):
        ap = "p"
    elif "morning" in w:
        ap = "a"
    if ap == "p" and h < 12:
        h += 12
    elif ap == "a" and h == 12:
        h = 0
    return h, mi, ("am" if ap == "a" else "pm" if ap == "p" else None)


def _sure(words: str) -> bool:
    """A clock time on its own: 14:00, 2pm, noon (a bare "9" is one only inside a range)."""
    return bool(re.search(r":\d{2}|[ap]\.?m\b|morning|afternoon|evening|night|noon|midday|midnight|o'clock", words,
                          re.I))


def _fmt(h: int, m: int) -> str:
    return f"{h % 24:02d}:{m:02d}"


def find_clock(text: str) -> tuple[str | None, float | None, str]:
    """(start "HH:MM", the length of a stated range in seconds, the words)."""
    rng = re.search(rf"(?:\b(?:from|between)\s+(?:about\s+|around\s+|roughly\s+)?)?({CLOCK})\s*"
                    rf"(?:to|until|till|through|and|-|–)\s*(?:about\s+|around\s+)?({CLOCK}){_NOT_CLOCK_AFTER}", text, re.I)
    while rng and not (_sure(rng.group(2)) and (_sure(rng.group(1)) or re.match(r"from|between", rng.group(0), re.I))):
        rng = re.compile(rf"(?:\b(?:from|between)\s+(?:about\s+|around\s+|roughly\s+)?)?({CLOCK})\s*(?:to|until|till|"
                         rf"through|and|-|–)\s*(?:about\s+|around\s+)?({CLOCK}){_NOT_CLOCK_AFTER}", re.I).search(
            text, rng.end(1))
    if rng:
        h1, m1, ap1 = _hour(rng.group(1))
        h2, m2, ap2 = _hour(rng.group(2))
        if ap1 is None and ap2 == "pm" and h1 < 12 and h1 + 12 <= h2:  # "between 4 and 7pm"
            h1 += 12
        span = ((h2 * 60 + m2) - (h1 * 60 + m1)) % 1440 or 1440
        return _fmt(h1, m1), span * 60.0, rng.group(0).strip()
    for m in re.finditer(rf"\b(?:at|from|starting(?:\s+at)?|since|beginning(?:\s+at)?|begins?\s+at|starts?\s+at|"
                         rf"after)\s+(?:about\s+|around\s+|roughly\s+|approximately\s+)?({CLOCK}){_NOT_CLOCK_AFTER}",
                         text, re.I):
        if _sure(m.group(1)):
            h, mi, _ = _hour(m.group(1))
            return _fmt(h, mi), None, m.group(0).strip()
    m = re.search(r"(?<![\d.:])(\d{1,2}):(\d{2})(?!\d|:\d)", text)
    if m and int(m.group(1)) < 24:
        return _fmt(int(m.group(1)), int(m.group(2))), None, m.group(0)
    m = re.search(r"\b(?:at|from)\s+(noon|midday|midnight)\b", text, re.I)
    if m:
        h, mi, _ = _hour(m.group(1))
        return _fmt(h, mi), None, m.group(0)
    return None, None, ""


def find_part_of_day(text: str) -> tuple[str | None, float | None, str]:
    """(start, length in seconds, words) of a part of the day named instead of a clock ("overnight")."""
    for pattern, start, hours in _PARTS:
        m = re.search(pattern, text, re.I)
        if m:
            return start, hours * 3600.0, m.group(0)
    return None, None, ""


def find_day(text: str) -> tuple[int | None, float | None, str, tuple[int, int] | None]:
    """(day, length of a stated day range in seconds, words, (weekday, week) when named that way)."""
    m = re.search(r"\bdays?\s+(\d+)\s*(?:-|–|to|through|until|and)\s*(?:day\s+)?(\d+)\b", text, re.I) or \
        re.search(r"\bday\s+(\d+)\s+(?:to|through|until|till)\s+day\s+(\d+)\b", text, re.I)
    if m and int(m.group(2)) >= int(m.group(1)):
        return int(m.group(1)), (int(m.group(2)) - int(m.group(1)) + 1) * 86400.0, m.group(0), None
    m = re.search(r"\bday\s+(\d+)\b", text, re.I) or re.search(r"(?<![\w-])d(\d+)\b", text, re.I)
    if m:
        return int(m.group(1)), None, m.group(0), None
    m = re.search(r"\b(?:the\s+)?(\d+)(?:st|nd|rd|th)\s+(?:day|night|morning|afternoon|evening)\b", text, re.I) or \
        re.search(rf"\b(?:the\s+)?({'|'.join(_ORDINALS)})\s+(?:day|night|morning|afternoon|evening)\b", text, re.I)
    if m:
        n = int(m.group(1)) if m.group(1).isdigit() else _ORDINALS[m.group(1).lower()]
        if n > 0:
            return n, None, m.group(0), None
    m = re.search(r"\b(?:starting|beginning|from)?\s*(\d+)\s+days?\s+in(?:to\s+(?:the|it))?\b", text, re.I)
    if m:  # "starting 3 days in": three days have passed, it starts on day 4
        return int(m.group(1)) + 1, None, m.group(0).strip(), None
    m = re.search(rf"\b({'|'.join(WEEKDAYS)})\s*(?:morning|afternoon|evening|night)?\s+(?:of|in)\s+(?:the\s+)?"
                  r"(?:week\s+(\d+)|(\w+)\s+week)\b", text, re.I)
    if m:
        week = int(m.group(2)) if m.group(2) else _ORDINALS.get((m.group(3) or "").lower(), 0)
        if week > 0:
            return None, None, m.group(0), (WEEKDAYS.index(m.group(1).lower()), week)
    m = re.search(rf"\b(?:the\s+)?(?:({'|'.join(_ORDINALS)})|(\d+)(?:st|nd|rd|th))\s+week\b", text, re.I) or \
        re.search(r"\b(?:in|during|over|on)\s+week\s+(\d+)\b", text, re.I)
    if m:
        g = [x for x in m.groups() if x]
        n = int(g[0]) if g[0].isdigit() else _ORDINALS.get(g[0].lower(), 0)
        if n > 0:
            return (n - 1) * 7 + 1, 7 * 86400.0, m.group(0).strip(), None
    return None, None, "", None


def _amount(n: str) -> float:
    n = n.lower().strip()
    if n in ("a", "an", "one", ""):
        return 1.0
    if n.startswith("half"):
        return 0.5
    return float(n.replace(",", ""))


def find_duration(text: str) -> tuple[float | None, str]:
    """(seconds, words) of how long the incident lasts."""
    num = r"(\d+(?:\.\d+)?|an?|one|half\s+an?)"
    half = re.search(rf"\b(?:for|lasting|over|during)?\s*(?:about\s+|around\s+|roughly\s+)?(\d+|an?)\s+(?:and\s+a\s+)?"
                     rf"half\s+({_UNIT})\b|\b(an?)\s+({_UNIT})\s+and\s+a\s+half\b", text, re.I)
    if half:
        n, unit = (half.group(1), half.group(2)) if half.group(2) else (half.group(3), half.group(4))
        return (_amount(n) + 0.5) * _unit_s(unit), half.group(0).strip()
    m = re.search(rf"\b(?:for|lasting|over|during|after|within)\s+(?:about\s+|around\s+|roughly\s+|nearly\s+|almost\s+|"
                  rf"approximately\s+|just\s+|the\s+next\s+|the\s+following\s+|another\s+|a\s+further\s+|some\s+)?"
                  rf"{num}\s*-?\s*({_UNIT})\b", text, re.I)
    if m:
        return _amount(m.group(1)) * _unit_s(m.group(2)), m.group(0)
    m = re.search(rf"\b(?:for|lasting|over)\s+(?:a\s+|the\s+)?(?:whole|full|entire)\s+({_UNIT})\b", text, re.I)
    if m:
        return _unit_s(m.group(1)), m.group(0)
    m = re.search(rf"\b(?:an?|the)\s+(\d+(?:\.\d+)?)-({_UNIT})\b", text, re.I)
    if m:  # "a 40-minute flight"
        return float(m.group(1)) * _unit_s(m.group(2)), m.group(0)
    m = re.search(rf"(?<!every )(?<!each )(?<!per )(?<!by )(?<!\d)\b(\d+(?:\.\d+)?)\s*({_UNIT})\b(?!\s+(?:in|ago|later|before|"
                  r"after|into))", text, re.I)
    if m and not re.search(r"\b(?:every|each|per|in)\s*$", text[: m.start()], re.I):
        return float(m.group(1)) * _unit_s(m.group(2)), m.group(0)  # terse: "3 pumps offline 45 min"
    return None, ""


def _unit_s(unit: str) -> float:
    u = unit.lower()
    u = u[:-1] if u.endswith("s") and len(u) > 1 and u[:-1] in _UNIT_S else u
    return float(_UNIT_S.get(u, _UNIT_S.get(u.rstrip("s"), 3600)))


def to_end(text: str) -> str:
    """The words saying the change lasts ("and stays", "from then on", "onward"), or ""."""
    m = re.search(r"\b(?:and\s+stays?|stays?\s+(?:that\s+way|there|\w+er)|remains?|from\s+then\s+on|onwards?|for\s+good|"
                  r"permanently|until\s+the\s+end|for\s+the\s+rest\s+of\s+the\s+(?:period|data|horizon))\b", text, re.I)
    return m.group(0) if m else ""


def format_seconds(seconds: float) -> str:
    """A spec duration from seconds: 5400 → '90m', 86400 → '24h', 259200 → '3d'."""
    s = int(round(seconds))
    if s % 86400 == 0 and s >= 2 * 86400:
        return f"{s // 86400}d"
    if s % 3600 == 0:
        return f"{s // 3600}h"
    if s % 60 == 0:
        return f"{s // 60}m"
    return f"{s}s"
