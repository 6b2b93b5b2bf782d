"""How much history a description asks for: every span the text states is a candidate, ranked by how
surely it names the data's length, and the best (the first among equals) wins.

From surest to least sure: a span "of data" ("2 months of that", "a quarter's worth of loan records",
"so 10 weeks of data altogether"); a span asked for ("give me 4 months", "want 18 months"), a whole
calendar year ("the whole of 2025"); a span after over/for/during ("for 6 weeks", "over one year");
a calendar quarter ("Q3") or run of months ("June to September"); a hyphenated length of the run
("a 48-hour test"), "a fortnight", "one day", "a single shift"; a clause that is only a span ("3
weeks."); the hours of one day ("open from 7 am to 10 pm" on election day); a span anywhere else.

Durations that are not the horizon are never candidates: a cadence ("every 15 minutes"), a delay or
an age ("within 2 hours", "after 3 days", "18 months old", "4 weeks before opening"), a range ("8-14
h"), a frequency ("6 days a week"), a term ("a 6-month warranty", "the standard loan is 21 days"),
and any span in a sentence anchored to a moment (an incident: "on day 5", "at 2 pm", "on the 10th",
"in mid-August").
"""

from __future__ import annotations

import calendar
import re

_U = r"(hours?|hrs?|days?|weeks?|wks?|fortnights?|months?|mos?|quarters?|years?|yrs?)"
_Q = r"(\d[\d,]*(?:\.\d+)?|an?|one|a single|single|a full|a whole)"
_START = r"(?<![-–\d.,/])\b"
_QUALIFY = r"(?:(?:about|around|roughly|approximately|approx\.?|some|nearly|almost|just over|the|a|an|last|past|" \
           r"next|first|full|whole|entire|complete|further|another|total of|good)\s+)*"
# words after a span that make it something else than the data's length
_NOT_AFTER = (r"\s*(?:old\b|ago\b|later\b|earlier\b|after\b|before\b|late\b|early\b|apart\b|in advance|in a row|"
              r"beforehand|a (?:day|week|month|year)\b|per\b|each\b(?=\s*(?:[,.;)]|$|time\b|one\b))|every\b|notice\b|warranty|guarantee|contract|"
              r"lease|term\b|terms\b|loan\b|grace|delay|lag\b|timeout|old\b|-old|in age|of age|of (?:delay|inactivity|"
              r"downtime|silence|rain|drought|warranty|notice|experience|lag|grace|leave|use|usage|storage|ageing|"
              r"aging|no\b|missing|outage|waiting|wait|travel|driving|transit|shelf|life|lifetime)\b|"
              r"intervals?|cadence|resolution|granularity|sampling|buckets?|averages?|rolling|moving|dwell|stays?|"
              r"sla\b|target|limit|cap\b|max|window\s+(?:for|to|of)\b|turnaround|overdue|deadline|to (?:pay|respond|"
              r"reply|complete|process|deliver|return)\b|or (?:less|more|longer|so)\b)")
# words before a span that make it something else than the data's length
_NOT_BEFORE = re.compile(r"(?:\b(?:every|each|per|within|after|before|than|to|up to|at least|at most|once|twice|"
                         r"takes?|took|taking|lasts?|lasted|lasting|is|are|was|were|be|been|aged?|older|younger|"
                         r"in|under|by|until|till|about every|next|another|extra|additional|minimum|maximum|max|min|"
                         r"usually|typically|normally|standard|average|median|mean)\s+(?:about\s+|around\s+|roughly\s+|"
                         r"approximately\s+|only\s+|just\s+)?|[-–(/]\s*)$", re.I)
_MONTHS = {m.lower(): i for i, m in enumerate(calendar.month_name) if m} | \
    {m.lower(): i for i, m in enumerate(calendar.month_abbr) if m}
_MONTH = r"(" + "|".join(sorted(_MONTHS, key=len, reverse=True)) + r")\.?"
_ANCHOR = re.compile(r"\bon day \d+|\bday \d+ of\b|\bon the \d+(?:st|nd|rd|th)\b|"
                     r"\bat (?:around |about |roughly )?\d{1,2}(?::\d\d)?\s*(?:am|pm)\b|"
                     r"\bat (?:around |about |roughly )?\d{1,2}:\d\d\b|"
                     rf"\bon (?:the )?\d{{1,2}}(?:st|nd|rd|th)? (?:of )?{_MONTH}(?!\w)|\bon {_MONTH} \d{{1,2}}(?:st|nd|rd|th)?\b|"
                     r"\bin (?:early|mid|late)[- ]?[a-z]+|\bon (?:mon|tues|wednes|thurs|fri|"
                     r"satur|sun)day\b(?!s)|\b(?:midway|halfway) through\b|\bon (?:christmas|new year)", re.I)
_DAY = 86400


def _count(q: str) -> float:
    q = q.lower().strip()
    if q[0].isdigit():
        return float(q.replace(",", "")) if re.fullmatch(r"\d{1,3}(?:,\d{3})+", q) or "," not in q else \
            float(q.replace(",", "."))
    return 1.0


def _span(k: float, unit: str) -> tuple[str, float] | None:
    """('548d', seconds) for k units; months and years by the calendar's average (12 months = 365 days)."""
    u = unit.lower().rstrip("s")
    if u in ("hour", "hr"):
        return (f"{k:g}h", k * 3600) if (k * 60).is_integer() and k > 0 else None
    days = {"day": 1, "week": 7, "wk": 7, "fortnight": 14, "month": 365 / 12, "mo": 365 / 12, "quarter": 365 / 4,
            "year": 365, "yr": 365}[u] * k
    d = round(days) if days >= 1 else days
    if d <= 0:
        return None
    return (f"{d:g}d", d * _DAY) if float(d).is_integer() else (f"{round(days * 24)}h", round(days * 24) * 3600)


def _clauses(text: str) -> list[tuple[int, str]]:
    """(offset, sentence) pairs: a dot between digits is a decimal point, not an end."""
    out, start = [], 0
    for m in re.finditer(r"(?<!\d)[.!?](?!\d)\s*|(?<=\d)\.\s+(?=[A-Z])|;\s*|\n+", text):
        out.append((start, text[start:m.start()]))
        start = m.end()
    out.append((start, text[start:]))
    return [(o, s) for o, s in out if s.strip()]


def _ok(sentence: str, m: re.Match, group: int = 1) -> bool:
    return not _NOT_BEFORE.search(sentence[: m.start(group)]) and not re.match(_NOT_AFTER, sentence[m.end():], re.I)


def _calendar(sentence: str) -> list[tuple[float, int, str, str]]:
    out = []
    for m in re.finditer(r"\b(?:the\s+)?(?:whole|all|entirety|entire|full|rest|calendar year)\s+(?:of\s+)?(?:year\s+)?"
                         r"((?:19|20)\d\d)\b|\bthroughout\s+((?:19|20)\d\d)\b", sentence, re.I):
        year = int(m.group(1) or m.group(2))
        out.append((4.0, m.start(), f"{366 if calendar.isleap(year) else 365}d", m.group(0)))
    for m in re.finditer(r"\b(?:for|during|over|across|covering|spanning)\s+(?:the\s+)?(?:year\s+)?((?:19|20)\d\d)\b"
                         r"(?!\s*(?:vintage|model|season|edition|cohort|intake|harvest))", sentence, re.I):
        year = int(m.group(1))
        out.append((2.0, m.start(), f"{366 if calendar.isleap(year) else 365}d", m.group(0)))
    for m in re.finditer(r"\bQ([1-4])\b(?:\s+(?:of\s+)?((?:19|20)\d\d))?", sentence):
        q, year = int(m.group(1)), int(m.group(2) or 2026)
        days = sum(calendar.monthrange(year, mo)[1] for mo in range(3 * q - 2, 3 * q + 1))
        out.append((2.5, m.start(), f"{days}d", m.group(0)))
    part = r"(?:(early|mid|late)[- ]?)?"
    for m in re.finditer(rf"\b(?:from\s+)?{part}{_MONTH}\s+(?:to|through|thru|until|till|-|–)\s+(?:the\s+end\s+of\s+)?"
                         rf"{part}{_MONTH}\b", sentence, re.I):
        a, b = _MONTHS[m.group(2).lower()], _MONTHS[m.group(4).lower()]
        lengths = [calendar.monthrange(2026, (a - 1 + i) % 12 + 1)[1] for i in range((b - a) % 12 + 1)]
        # "mid-December to mid-April": from the middle of the first month to the middle of the last
        cut = {"early": 0.2, "mid": 0.5, "late": 0.8}
        days = sum(lengths) - cut.get((m.group(1) or "").lower(), 0) * lengths[0] \
            - (1 - cut.get((m.group(3) or "").lower(), 1)) * lengths[-1]
        out.append((2.5, m.start(), f"{round(days)}d", m.group(0)))
    return out


def _one_day_hours(text: str) -> tuple[str, str] | None:
    """'open from 7 am to 10 pm' on a text about one day: those hours are the horizon."""
    if not re.search(r"\b(?:on|one|1|a single|single|election|polling|race|match|event|game|show|festival|launch|"
                     r"open|sale|that|this)\s+day\b|\bfor (?:1|one|a) day\b", text, re.I):
        return None
    m = re.search(r"\b(?:from|between)\s+(\d{1,2})(?::(\d\d))?\s*(am|pm)?\s+(?:to|until|till|and|-|–)\s+"
                  r"(\d{1,2})(?::(\d\d))?\s*(am|pm)\b", text, re.I)
    if not m:
        return None

    def hour(h: str, mi: str | None, ap: str) -> float:
        return int(h) % 12 + (12 if ap.lower() == "pm" else 0) + int(mi or 0) / 60

    # "from 9 to 5 pm" starts in the morning, "from 7 to 10 pm" in the evening
    start_ap = m.group(3) or (m.group(6) if int(m.group(1)) % 12 < int(m.group(4)) % 12 else "am")
    a, b = hour(m.group(1), m.group(2), start_ap), hour(m.group(4), m.group(5), m.group(6))
    span = (b - a) % 24 or 24
    if a:  # the data starts at midnight: the whole day holds the stated hours (15h from 0:00 would miss them)
        return "1d", f"{m.group(0)} ({span:g} hours on one day)"
    return (f"{span:g}h" if span.is_integer() else f"{round(span * 60)}m"), m.group(0)


def candidates(text: str) -> list[tuple[float, int, str, str]]:
    """(score, position, duration, words) of every span the text states as its length (see the module
    docstring); ``text`` has its numbers in digits already."""
    out: list[tuple[float, int, str, str]] = []

    def add(score: float, off: int, m: re.Match, q: str, unit: str) -> None:
        s = _span(_count(q), unit)
        if s is not None:
            out.append((score, off + m.start(), s[0], m.group(0).strip()))

    for off, s in _clauses(text):
        if _ANCHOR.search(s):
            continue  # an incident's sentence: its spans are the incident's
        for m in re.finditer(rf"{_START}{_Q}\s+{_U}(?:'s)?\s+(?:worth\s+)?of\s+(?:[a-z][\w-]*)", s, re.I):
            if _ok(s, m):
                add(5.0, off, m, m.group(1), m.group(2))
        for m in re.finditer(rf"\b(?:want|need|like|give (?:me|us)|generate|simulate|produce|create|build|cover|"
                             rf"covering|spanning|make it|keep|horizon(?: of| is|:)?|history(?: of|:)?|period(?: of|:)?|"
                             rf"window(?: of|:)?|span(?: of|:)?)\s+{_QUALIFY}{_Q}\s+{_U}\b", s, re.I):
            if not re.match(_NOT_AFTER, s[m.end():], re.I):
                add(4.0, off, m, m.group(1), m.group(2))
        for m in re.finditer(rf"\b(?:over|for|during|across|throughout|spanning|covering)\s+{_QUALIFY}{_Q}\s+"
                             rf"(?:(?!(?:hours?|days?|weeks?|months?|per|a|an|every|or|and|to)\b)[a-z]+\s+)?{_U}\b",
                             s, re.I):
            if not re.match(_NOT_AFTER, s[m.end():], re.I):
                add(3.0, off, m, m.group(1), m.group(2))
        out += [(sc, off + p, d, w) for sc, p, d, w in _calendar(s)]
        for m in re.finditer(rf"(?<!every )(?<!each )(?<!per )\b(?:an?|the|one|our|its|their|this)\s+(?:full\s+|"
                             rf"whole\s+)?(\d[\d,]*|one)[- ]{_U}(?:-long)?\b", s, re.I):
            if not re.match(_NOT_AFTER, s[m.end():], re.I):
                add(2.0, off, m, m.group(1), m.group(2))
        for m in re.finditer(r"\b(?:over|for|during|across)\s+(?:a|one|1)\s+(?:single\s+)?(?:[a-z]+\s+)?"
                             r"(fortnight|day|week|month|quarter|year|shift)\b", s, re.I):
            if m.group(1).lower() == "shift":
                out.append((2.0, off + m.start(), "8h", m.group(0)))  # the usual 8-hour shift
            elif not re.match(_NOT_AFTER, s[m.end():], re.I):
                add(2.0, off, m, "1", m.group(1))
        for m in re.finditer(rf"(?:^|[,:(—–-])\s*(?:{_QUALIFY}|(?:just|only)\s+)?{_Q}\s+(?:[a-z]+\s+)?{_U}"
                             rf"(?:\s+(?:of (?:data|history)|total|in total|altogether|worth))?\s*(?=$|[,)—–-])", s, re.I):
            add(1.0, off, m, m.group(1), m.group(2))
        for m in re.finditer(rf"{_START}(\d[\d,]*)\s*(days?|weeks?|wks?|months?|mos?|quarters?|years?|yrs?)\b", s, re.I):
            if _ok(s, m):
                add(0.5, off, m, m.group(1), m.group(2))
    hours = _one_day_hours(text)
    if hours:
        out.append((1.5, text.lower().find(hours[1].lower()), *hours))
    return out


def read_horizon(text: str) -> tuple[str | None, str]:
    """The horizon ('61d', '15h') and the words it came from; (None, '') when the text states none."""
    found = candidates(text)
    if not found:
        return None, ""
    _score, _pos, duration, words = max(found, key=lambda c: (c[0], -c[1]))
    return duration, words
