"""Times in a chat clause: days ('day 2', 'friday', '1 jan'), clock times ('9am', '19:00', 'noon'),
parts of the day, durations ('for 2 hours', 'a 30-minute'), and shifts ('two hours later', 'to the
next day'). Days count from 1, the first day of the spec's data; relative days ('tomorrow') have no
meaning in a bundle and are asked about."""

from __future__ import annotations

import re
from datetime import date, timedelta

from tools.chat.read_text import UNIT, Clause, NeedAsk
from tools.chat.read_words import duration_text

WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_WEEKDAY_RX = (r"\b(mon(?:day)?|tue(?:s|sday)?|wed(?:nesday)?|thu(?:rs?|rsday)?|fri(?:day)?|sat(?:urday)?|"
               r"sun(?:day)?)\b")
MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
          "november", "december")
_MONTH_RX = r"(jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?"
_ORD = r"(\d{1,2})(?:st|nd|rd|th)?"
RELATIVE_DAYS = (r"\b(tomorrow|yesterday|today|tonight|day after tomorrow|next week|last week|this week|"
                 r"this (?:morning|afternoon|evening)|right now)\b")
PARTS_OF_DAY = {"morning": "08:00", "afternoon": "14:00", "evening": "18:00", "night": "22:00",
                "overnight": "00:00", "lunchtime": "12:00"}
_PREP = r"(?:(?:on|at|for|from|during)\s+)?(?:the\s+)?"


def refuse_relative_days(cl: Clause) -> None:
    """Ask when a day is said relative to today: a bundle has no today."""
    m = cl.find(RELATIVE_DAYS)
    if m:
        raise NeedAsk(f"'{m.group(1)}' has no meaning in the data; which day (day 1, day 2, ... or a weekday)?",
                      confidence=0.5)


def take_day(cl: Clause, start: date, days: int) -> int | None:
    """The day a clause names ('day 2', 'the 2nd day', 'friday', '1 jan', '2026-01-02'), consumed;
    asks when it is outside the ``days`` the data covers or a weekday occurs twice."""
    m = cl.find(rf"{_PREP}\bday[\s-]?(\d+)\b") or cl.find(rf"{_PREP}\b{_ORD}\s+day\b")
    if m:
        cl.take(m)
        return _inside(int(m.group(1)), days, m.group(0).strip())
    m = cl.find(rf"{_PREP}\b(first|last|final)\s+day\b")
    if m:
        cl.take(m)
        return 1 if m.group(1) == "first" else days
    m = cl.find(rf"{_PREP}\b(\d{{4}})-(\d{{2}})-(\d{{2}})\b")
    if m:
        cl.take(m)
        return _date_day(date(int(m.group(1)), int(m.group(2)), int(m.group(3))), start, days, m.group(0))
    m = cl.find(rf"{_PREP}\b{_ORD}\s+(?:of\s+)?{_MONTH_RX}(?=\s|$|,)") or cl.find(rf"{_PREP}\b{_MONTH_RX}\s+{_ORD}\b")
    if m:
        cl.take(m)
        day_txt, month_txt = (m.group(1), m.group(2)) if m.group(1).isdigit() else (m.group(2), m.group(1))
        month = next(i + 1 for i, name in enumerate(MONTHS) if name.startswith(month_txt[:3]))
        try:
            when = date(start.year, month, int(day_txt))
        except ValueError:
            raise NeedAsk(f"'{m.group(0).strip()}' is not a date") from None
        return _date_day(when, start, days, m.group(0))
    m = cl.find(rf"{_PREP}(?:next\s+|this\s+|coming\s+)?{_WEEKDAY_RX}(?:'s)?")
    if m:
        cl.take(m)
        wd = next(i for i, w in enumerate(WEEKDAYS) if w.startswith(m.group(1)[:3]))
        hits = [d for d in range(1, max(days, 7) + 1) if (start + timedelta(days=d - 1)).weekday() == wd]
        inside = [d for d in hits if d <= days]
        if len(inside) > 1:
            raise NeedAsk(f"{WEEKDAYS[wd].title()} is more than one day of the data: which one?",
                          [f"day {d}" for d in inside], confidence=0.5)
        return _inside(hits[0], days, WEEKDAYS[wd].title())
    return None


def _inside(day: int, days: int, words: str) -> int:
    if not 1 <= day <= days:
        raise NeedAsk(f"{words} (day {day}) is outside the data, which covers {days} day{'s' * (days > 1)}; "
                      "extend the horizon first or pick another day", confidence=0.5)
    return day


def _date_day(when: date, start: date, days: int, words: str) -> int:
    d = (when - start).days + 1
    if d < 1:
        raise NeedAsk(f"{words.strip()} is before the data starts ({start.isoformat()})", confidence=0.5)
    return _inside(d, days, words.strip())


def take_clock(cl: Clause) -> str | None:
    """A clock time ('at 9am', '3 pm', '19:00', 'noon', 'at 9'), consumed, as HH:MM."""
    m = cl.find(r"(?:\bat\s+|@\s*|\bfrom\s+)?\b(\d{1,2})(?::(\d{2}))?\s*([ap])\.?m\b\.?")
    if m:
        hour = int(m.group(1)) % 12 + (12 if m.group(3) == "p" else 0)
        return _clock(cl, m, hour, int(m.group(2) or 0))
    m = cl.find(r"(?:\bat\s+|@\s*|\bfrom\s+)?\b(\d{1,2}):(\d{2})\b(?!\s*(?:h|hours?)\b)")
    if m:
        return _clock(cl, m, int(m.group(1)), int(m.group(2)))
    m = cl.find(r"(?:\bat\s+|\bfrom\s+)?\b(noon|midday|midnight)\b")
    if m:
        cl.take(m)
        return "00:00" if m.group(1) == "midnight" else "12:00"
    m = cl.find(r"\bat\s+(\d{1,2})(?:\s+o'?clock)?(?=\s*$|\s*[,.;]|\s+(?:on|for|in|and|to|so|with|until|o'?clock)\b)")
    if m:
        return _clock(cl, m, int(m.group(1)), 0)
    return None


def _clock(cl: Clause, m: re.Match, hour: int, minute: int) -> str:
    if hour > 23 or minute > 59:
        raise NeedAsk(f"'{m.group(0).strip()}' is not a time of day")
    cl.take(m)
    return f"{hour:02d}:{minute:02d}"


def take_part_of_day(cl: Clause) -> str | None:
    """A part of the day ('in the afternoon', 'evening'), consumed; its usual clock time."""
    m = cl.grab(r"(?:\b(?:in|during|on|at)\s+)?(?:the\s+)?\b(morning|afternoon|evening|night|overnight|lunchtime)\b")
    return PARTS_OF_DAY[m.group(1)] if m else None


DURATION = rf"(\d+(?:\.\d+)?)\s*-?\s*({UNIT})\b"


def take_duration(cl: Clause) -> str | None:
    """How long, as the user said it ('for 2 hours' → 2h, 'a 30-minute' → 30m, 'lasting 1 day' → 1d)."""
    m = (cl.find(rf"\b(?:for|lasting|last|lasts|over|during)\s+(?:about\s+|around\s+)?{DURATION}(?:\s+long)?")
         or cl.find(rf"\b{DURATION}[\s-]long\b") or cl.find(rf"\b(\d+(?:\.\d+)?)-({UNIT})\b"))
    if not m:
        return None
    cl.take(m)
    return _positive(float(m.group(1)), m.group(2))


def take_bare_duration(cl: Clause) -> str | None:
    """A duration with no lead word ('make the flatline 4 hours')."""
    m = cl.grab(rf"(?:\bto\s+)?(?:\bbe\s+)?\b{DURATION}(?:\s+long)?")
    return _positive(float(m.group(1)), m.group(2)) if m else None


def _positive(value: float, unit: str) -> str:
    if value <= 0:
        raise NeedAsk("a duration must be longer than zero")
    return duration_text(value, unit)


def take_clock_range(cl: Clause) -> tuple[str, str] | None:
    """'from 9am to 11am' / 'between 14:00 and 16:00' → (start clock, duration)."""
    clock = r"(\d{1,2})(?::(\d{2}))?\s*([ap]\.?m\.?)?"
    m = cl.find(rf"\b(?:from|between)\s+{clock}\s+(?:to|until|till|and|-)\s+{clock}")
    if not m or not (m.group(3) or m.group(6) or m.group(2) or m.group(5)):
        return None
    cl.take(m)

    def minutes(h: str, mm: str | None, ap: str | None) -> int:
        hour = int(h) % 12 + (12 if ap and ap.startswith("p") else 0) if ap else int(h)
        return hour * 60 + int(mm or 0)

    a = minutes(m.group(1), m.group(2), m.group(3) or m.group(6))
    b = minutes(m.group(4), m.group(5), m.group(6))
    if b <= a or a >= 24 * 60:
        raise NeedAsk(f"'{m.group(0)}' does not run forward within a day")
    span = b - a
    return f"{a // 60:02d}:{a % 60:02d}", (f"{span // 60}h" if span % 60 == 0 else f"{span}m")


def take_shift(cl: Clause) -> str | None:
    """A move by an amount: '2 hours later' → +2h, 'an hour earlier' → -1h, 'to the next day' → +1d."""
    m = cl.grab(r"\b(?:to\s+|on\s+)?(?:the\s+)?(next|following|previous|prior)\s+day\b|\bthe\s+day\s+(after|before)\b")
    if m:
        return "+1d" if (m.group(1) or m.group(2)) in ("next", "following", "after") else "-1d"
    m = (cl.find(rf"(?:\bby\s+)?\b(\d+(?:\.\d+)?)\s*({UNIT})\s+(later|earlier|sooner|after|before)\b")
         or cl.find(rf"\b(later|earlier|sooner)\s+by\s+(\d+(?:\.\d+)?)\s*({UNIT})\b"))
    if not m:
        return None
    cl.take(m)
    g = m.groups()
    value, unit, way = (g[0], g[1], g[2]) if g[0][0].isdigit() else (g[1], g[2], g[0])
    return signed_shift(float(value), unit, way in ("later", "after"))


def signed_shift(value: float, unit: str, later: bool) -> str:
    """'+2h' / '-90m': a shift in whole units (fractions in minutes)."""
    text = duration_text(value * 7, "d") if unit.startswith("w") else duration_text(value, unit)
    if not re.fullmatch(r"\d+[smhd]", text):
        from tools.common.durations import parse_duration

        text = f"{int(parse_duration(text) // 60)}m"
    return ("+" if later else "-") + text
