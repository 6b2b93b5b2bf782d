"""Units and durations: convert '19.69 ms' to the expected unit, parse '2 hours 10 minutes',
'2h10m', '02:10:00', '1 day, 2:03:04', 'PT2H10M' or '130.5 minutes' to seconds."""

from __future__ import annotations

import re

# unit word (lower case) -> (dimension, factor to the dimension's base unit)
UNITS: dict[str, tuple[str, float]] = {}
for _names, _dim, _f in [
    (("ns", "nanosecond", "nanoseconds"), "time", 1e-9),
    (("us", "µs", "μs", "microsecond", "microseconds"), "time", 1e-6),
    (("ms", "msec", "millisecond", "milliseconds"), "time", 1e-3),
    (("s", "sec", "secs", "second", "seconds"), "time", 1.0),
    (("m", "min", "mins", "minute", "minutes"), "time", 60.0),
    (("h", "hr", "hrs", "hour", "hours"), "time", 3600.0),
    (("d", "day", "days"), "time", 86400.0),
    (("w", "wk", "week", "weeks"), "time", 604800.0),
    (("b", "byte", "bytes"), "bytes", 1.0),
    (("kb", "kilobyte", "kilobytes"), "bytes", 1e3),
    (("mb", "megabyte", "megabytes"), "bytes", 1e6),
    (("gb", "gigabyte", "gigabytes"), "bytes", 1e9),
    (("kib",), "bytes", 1024.0),
    (("mib",), "bytes", 1024.0**2),
    (("gib",), "bytes", 1024.0**3),
    (("%", "percent", "pct", "percentage"), "percent", 1.0),
    (("wh",), "energy", 1.0), (("kwh",), "energy", 1e3), (("mwh",), "energy", 1e6), (("gwh",), "energy", 1e9),
]:
    for _n in _names:
        UNITS[_n] = (_dim, _f)


def unit_of(word: str) -> tuple[str, float] | None:
    """Dimension and factor of a unit word ('ms' -> ('time', 0.001)); None when unknown."""
    return UNITS.get(word.strip().lower().rstrip(".,;:)"))


def expected_unit(answer_text: str) -> str:
    """The unit word written after the number in a record's ``answer_text`` ('19.69 ms' -> 'ms')."""
    m = re.search(r"[-\d.,]+\s*([A-Za-zµ°%][\wµ°%/]*)", answer_text or "")
    return m.group(1).lower() if m else ""


_PART = re.compile(
    r"(?<![\d.,])(?P<n>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)\s*(?P<u>weeks?|wks?|w|days?|d|hours?|hrs?|h|minutes?|mins?|m(?!s)|"
    r"seconds?|secs?|s|milliseconds?|ms)(?![a-z])", re.I)
_CLOCK = re.compile(r"(?:(?P<d>\d+)\s*days?,?\s*)?(?<![\d:])(?P<h>\d{1,3}):(?P<m>\d{2})(?::(?P<s>\d{2}(?:\.\d+)?))?(?![\d:])")
_ISO = re.compile(r"\bP(?:(?P<d>\d+(?:\.\d+)?)D)?(?:T(?:(?P<h>\d+(?:\.\d+)?)H)?(?:(?P<m>\d+(?:\.\d+)?)M)?"
                  r"(?:(?P<s>\d+(?:\.\d+)?)S)?)?\b")


def durations(text: str) -> list[tuple[float, int, int]]:
    """Every duration written in ``text`` as (seconds, start, end); adjacent parts such as
    '2 hours 10 minutes' or '2h, 10m and 5s' form one duration."""
    out: list[tuple[float, int, int]] = []
    for m in _ISO.finditer(text):
        if any(m.group(g) for g in "dhms"):
            secs = sum(float(m.group(g) or 0) * f for g, f in zip("dhms", (86400, 3600, 60, 1), strict=True))
            out.append((secs, m.start(), m.end()))
    for m in _CLOCK.finditer(text):
        secs = (int(m.group("d") or 0) * 86400 + int(m.group("h")) * 3600 + int(m.group("m")) * 60
                + float(m.group("s") or 0))
        out.append((secs, m.start(), m.end()))
    taken = [(s, e) for _, s, e in out]
    cur: list[float] | None = None
    for m in _PART.finditer(text):
        if any(s <= m.start() < e for s, e in taken):
            continue
        _, factor = UNITS[_canon_unit(m.group("u"))]
        secs = float(m.group("n").replace(",", "")) * factor
        if cur is not None and re.fullmatch(r"[\s,]*(?:and\s*)?", text[cur[2]:m.start()]):
            cur[0] += secs
            cur[2] = m.end()
            continue
        if cur is not None:
            out.append((cur[0], int(cur[1]), int(cur[2])))
        cur = [secs, m.start(), m.end()]
    if cur is not None:
        out.append((cur[0], int(cur[1]), int(cur[2])))
    return sorted(out, key=lambda t: t[1])


def _canon_unit(u: str) -> str:
    u = u.lower()
    return u if u in UNITS else u.rstrip("s")
