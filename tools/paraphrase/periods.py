"""Natural periods ('on 2 January, 06:00-12:00', 'from 2 January 21:00 to 3 January 09:00') in a
persona's date habits: ISO dates, US/Indian/UK day order, AM/PM, relative days ('yesterday',
anchored to the data's last day, which the variant then states). The forms are the ones
``tools.queries.natural.words.period`` writes; the suite's preamble defines them (start included,
end excluded), so every rendering keeps the words 'from ... to' or 'A-B' that preamble names.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import date

from tools.paraphrase.personas import Persona

_MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
           "November", "December"]
_D = r"(\d{1,2}) (" + "|".join(_MONTHS) + r")"
_T = r"(\d\d:\d\d)"
PERIOD_RE = re.compile(
    rf"\bfrom {_D} to {_D} \(whole days\)"                 # D: whole days
    rf"|\bfrom {_D} {_T} to {_D} {_T}"                      # C: across days
    rf"|\bon {_D}, {_T}-{_T}"                               # A: part of one day
    rf"|\bon {_D}(?![\w,])"                                 # B: one whole day
    rf"|\bthe {_D} (?=[\w ]*?incident\b)")                  # E: an incident's name ('the 2 January ... incident')


def _ordinal(n: int) -> str:
    return f"{n}{'th' if 10 <= n % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"


def _day(d: int, month: str, p: Persona, variant: int, anchor: date | None) -> tuple[str, bool]:
    """(the day in the persona's words, whether it is relative to the anchor)."""
    year = anchor.year if anchor else None
    mi = _MONTHS.index(month) + 1
    if anchor is not None and p.habits.relative_time:
        back = (anchor - date(anchor.year, mi, d)).days
        if 0 <= back <= 2:
            return ["today", "yesterday", "the day before yesterday"][back], True
    short = month[:3]
    if p.habits.iso_dates and year:
        return f"{year}-{mi:02d}-{d:02d}", False
    if p.dialect == "us":
        return [f"{month} {d}", f"{short} {d}"][variant % 2], False
    if p.dialect == "in":
        return [f"{_ordinal(d)} {month}", f"{_ordinal(d)} {short}"][variant % 2], False
    return [f"{d} {month}", f"{d} {short}"][variant % 2], False


def _time(t: str, p: Persona) -> str:
    if not p.habits.ampm or t == "24:00":
        return t
    h, m = (int(x) for x in t.split(":"))
    return f"{h % 12 or 12}{f':{m:02d}' if m else ''} {'PM' if h >= 12 else 'AM'}"


def _times(a: str, b: str, p: Persona) -> tuple[str, str]:
    """Both ends in the persona's clock (24-hour when one end is 24:00, which has no AM/PM form)."""
    if "24:00" in (a, b):
        return a, b
    return _time(a, p), _time(b, p)


def _on(day: str) -> str:
    """'on 2 January', but 'yesterday' (a relative day takes no preposition)."""
    return day if day in ("today", "yesterday", "the day before yesterday") else f"on {day}"


def render_periods(text: str, p: Persona, variant: int, anchor: date | None,
                   keep: Callable[[str], str]) -> tuple[str, bool]:
    """``text`` with each natural period re-rendered (and passed through ``keep``, e.g. a masker);
    returns the text and whether a relative day was used."""
    relative = False

    def one(m: re.Match) -> str:
        g = m.groups()

        def day(i: int) -> str:
            nonlocal relative
            s, rel = _day(int(g[i]), g[i + 1], p, variant, anchor)
            relative |= rel
            return s
        if g[0]:
            return keep(f"from {day(0)} to {day(2)} (whole days)")
        if g[4]:
            a, b = day(4), day(7)
            t1, t2 = _times(g[6], g[9], p)
            if p.habits.ampm or (variant % 2 and not relative):  # '3 AM on January 4', not 'January 4 3 AM'
                return keep(f"from {t1} {_on(a)} to {t2} {_on(b)}")
            return keep(f"from {a} {t1} to {b} {t2}")
        if g[10]:
            d = day(10)
            t1, t2 = _times(g[12], g[13], p)
            if variant % 2:
                return keep(f"{_on(d)} from {t1} to {t2}")
            return keep(f"{_on(d)}, {t1}-{t2}")
        if g[14]:
            return keep(_on(day(14)))
        d, _rel = _day(int(g[16]), g[17], p.model_copy(update={"habits": p.habits.model_copy(
            update={"relative_time": False})}), variant, None)
        return keep(f"the {d} ")

    return PERIOD_RE.sub(one, text), relative
