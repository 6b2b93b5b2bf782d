"""Slots of a question: the parts a paraphrase must keep for it to ask the same query.

A slot is a number or threshold, a duration, a date or time of day, a quoted value (a state, an
attribute value, an entity id), an identifier (column or entity id such as ``RRC_ConnEstabFail``
or ``eNB_002``), the direction of a comparison (above / below / at or above ...), the direction of
a ranking (highest / lowest), negations and the window's bound convention. ``slot_problems``
compares a variant with its canonical question and lists what changed (empty: the slots agree).

Relative dates ("yesterday at 14:00") are resolved against an anchor stated in the same text
("Today is 7 January 2026."), so a variant may use them only together with that sentence.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from datetime import date, timedelta

MONTHS = {m: i for i, m in enumerate(
    ["january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
     "november", "december"], 1)}
MONTHS.update({m[:3]: i for m, i in list(MONTHS.items())})
MONTHS["sept"] = 9
_MON = r"(?P<mon>" + "|".join(sorted(MONTHS, key=len, reverse=True)) + r")\.?"
_DAY = r"(?P<day>[0-3]?\d)(?:st|nd|rd|th)?"
_YEAR = r"(?P<year>(?:19|20)\d\d)"
_DATE_RES = [
    re.compile(rf"\b{_YEAR}-(?P<mnum>[01]\d)-(?P<day>[0-3]\d)\b"),
    re.compile(rf"\b{_DAY}(?:\s+of)?\s+{_MON}(?:,?\s+{_YEAR})?\b", re.I),
    re.compile(rf"\b{_MON}\s+{_DAY}(?:,?\s+{_YEAR})?\b", re.I),
]
_TIME_RE = re.compile(r"\b(?P<h>[0-2]?\d)(?::(?P<m>[0-5]\d))?\s*(?P<ampm>[ap]\.?m\.?)(?![a-z])"
                      r"|\b(?P<h24>[0-2]?\d):(?P<m24>[0-5]\d)\b", re.I)
_ANCHOR_RE = re.compile(r"\b(?:today is|taking today as|today being|today =|with today as)\s+(?P<rest>[^.;)]*)", re.I)
_RELATIVE_RE = re.compile(r"\b(?:(?P<n>\d+|two|three|four|five|six) days ago|(?P<dby>the day before yesterday)"
                          r"|(?P<y>yesterday)|(?P<t>today))\b", re.I)
_WORDNUM = {"zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
            "nine": 9, "ten": 10, "eleven": 11, "twelve": 12}
_UNITS = {"s": 1, "sec": 1, "secs": 1, "second": 1, "seconds": 1, "m": 60, "min": 60, "mins": 60, "minute": 60,
          "minutes": 60, "h": 3600, "hr": 3600, "hrs": 3600, "hour": 3600, "hours": 3600, "d": 86400,
          "day": 86400, "days": 86400}
_DUR_RE = re.compile(r"(?<![\w.,])(?P<n>\d+(?:\.\d+)?|zero|one|two|three|four|five|six|seven|eight|nine|ten|eleven"
                     r"|twelve)[\s-]*(?P<u>" + "|".join(sorted(_UNITS, key=len, reverse=True)) + r")\b", re.I)
_DECIMALS_RE = re.compile(r"\b(one|two|three|four|five|six)(?=\s+(?:decimal|dp\b|d\.p\.))", re.I)
_NUM_RE = re.compile(r"(?<![\w.])[-+]?\d[\d,]*(?:\.\d+)?(?:st|nd|rd|th)?(?![\w])")
_QUOTED_RE = re.compile(r"(?<![\w])['‘’\"“”](?P<v>[^'‘’\"“”]+?)['‘’\"“”](?![\w])")
_IDENT_RE = re.compile(r"\b(?=[A-Za-z0-9_.]*_)[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+\b"
                       r"|\b[A-Za-z]*[a-z][A-Z][A-Za-z0-9]*\b")
_COMPARATORS = [  # longest phrases first; ">" class and "<" class are the drift that matters most
    (">=", r"at or above|at least|no less than|greater than or equal to|>=|≥|or more|or above|or higher"),
    ("<=", r"at or below|at most|no more than|less than or equal to|<=|≤|or less|or below|or fewer"),
    (">", r"above|more than|greater than|higher than|exceeding|exceeds|exceeded|>"),
    ("<", r"below|less than|lower than|fewer than|under|<"),
]
_EXTREMES = [("max", r"highest|largest|most|maximum|max|top|biggest|greatest|peak|rise"),
             ("min", r"lowest|smallest|least|fewest|minimum|min|bottom")]
_NEGATION_RE = re.compile(r"\b(?:not|no|without|never|none|neither|nor)\b|n't\b", re.I)
_EXCLUDED_RE = re.compile(r"\b(?:excluded|exclusive|not including|not included|but not|before)\b|\)\s*$", re.I)
_INCLUDED_RE = re.compile(r"\b(?:included|inclusive|including|from|starting|on or after|since)\b", re.I)


@dataclass
class Slots:
    """The slots found in one text (multisets as Counters, so repeats count)."""

    numbers: Counter = field(default_factory=Counter)
    durations: Counter = field(default_factory=Counter)
    dates: Counter = field(default_factory=Counter)
    times: Counter = field(default_factory=Counter)
    years: set = field(default_factory=set)
    quoted: Counter = field(default_factory=Counter)
    identifiers: set = field(default_factory=set)
    comparators: Counter = field(default_factory=Counter)
    extremes: set = field(default_factory=set)
    negations: int = 0
    excludes_end: bool = False
    problems: list[str] = field(default_factory=list)


def _num(s: str) -> str:
    s = re.sub(r"(st|nd|rd|th)$", "", s.replace(",", "")).lstrip("+")
    try:
        f = float(s)
    except ValueError:
        return s
    return str(int(f)) if f == int(f) and abs(f) < 1e15 else repr(f)


def norm_value(s: str) -> str:
    """A quoted value or identifier, compared case-insensitively with ``_``/``-`` as spaces."""
    return re.sub(r"\s+", " ", re.sub(r"[_\-]", " ", s.lower())).strip()


def _anchor(text: str) -> tuple[date | None, str]:
    """The stated 'today' and the text without that statement (its date is not a slot)."""
    m = _ANCHOR_RE.search(text)
    if not m:
        return None, text
    found = _dates_in(m.group("rest"), None)
    if not found:
        return None, text
    y, mo, d = found[0]
    return date(y or 2000, mo, d), text[: m.start()] + " " + text[m.end():]


def _dates_in(text: str, default_year: int | None) -> list[tuple[int | None, int, int]]:
    out = []
    for rx in _DATE_RES:
        for m in rx.finditer(text):
            gd = m.groupdict()
            mo = int(gd["mnum"]) if gd.get("mnum") else MONTHS[gd["mon"].lower().rstrip(".")]
            y = int(gd["year"]) if gd.get("year") else default_year
            out.append((y, mo, int(gd["day"])))
    return out


def _blank(text: str, spans: list[tuple[int, int]]) -> str:
    chars = list(text)
    for a, b in spans:
        chars[a:b] = " " * (b - a)
    return "".join(chars)


def extract_slots(text: str) -> Slots:
    """Find the slots of one question (see the module docstring)."""
    s = Slots()
    anchor, text = _anchor(text)
    spans: list[tuple[int, int]] = []
    for m in _QUOTED_RE.finditer(text):
        s.quoted[norm_value(m.group("v"))] += 1
    work = text
    for rx in _DATE_RES:
        for m in rx.finditer(work):
            gd = m.groupdict()
            mo = int(gd["mnum"]) if gd.get("mnum") else MONTHS[gd["mon"].lower().rstrip(".")]
            s.dates[f"{mo:02d}-{int(gd['day']):02d}"] += 1
            if gd.get("year"):
                s.years.add(int(gd["year"]))
            spans.append(m.span())
        work = _blank(work, spans)
    for m in _RELATIVE_RE.finditer(work):
        if anchor is None:
            s.problems.append(f"relative date {m.group(0)!r} without a stated 'today'")
            continue
        n = m.group("n")
        back = (_WORDNUM.get(n.lower(), 0) if n and not n.isdigit() else int(n)) if n else \
            2 if m.group("dby") else 1 if m.group("y") else 0
        d = anchor - timedelta(days=back)
        s.dates[f"{d.month:02d}-{d.day:02d}"] += 1
        s.years.add(d.year)
        spans.append(m.span())
    work = _blank(work, spans)
    for m in _TIME_RE.finditer(work):
        if m.group("h24") is not None:
            h, mi = int(m.group("h24")), int(m.group("m24"))
        else:
            h, mi = int(m.group("h")) % 12, int(m.group("m") or 0)
            h += 12 if m.group("ampm").lower().startswith("p") else 0
        s.times[f"{h:02d}:{mi:02d}"] += 1
        spans.append(m.span())
    work = _blank(work, spans)
    for m in _DUR_RE.finditer(work):
        n = m.group("n").lower()
        v = float(_WORDNUM[n]) if n in _WORDNUM else float(n)
        s.durations[_num(str(v * _UNITS[m.group("u").lower()]))] += 1
        spans.append(m.span())
    work = _blank(work, spans)
    for m in _DECIMALS_RE.finditer(work):
        s.numbers[str(_WORDNUM[m.group(1).lower()])] += 1
        spans.append(m.span())
    work = _blank(work, spans)
    for m in _IDENT_RE.finditer(work):
        s.identifiers.add(norm_value(m.group(0)))
    for m in _NUM_RE.finditer(work):
        s.numbers[_num(m.group(0))] += 1
    low = " " + work.lower() + " "
    for op, rx in _COMPARATORS:
        s.comparators[op] += len(re.findall(rf"(?<![\w])(?:{rx})(?![\w])", low))
        low = re.sub(rf"(?<![\w])(?:{rx})(?![\w])", " ", low)
    s.comparators = +s.comparators
    for cls, rx in _EXTREMES:
        if re.search(rf"\b(?:{rx})\b", low):
            s.extremes.add(cls)
    s.negations = len(_NEGATION_RE.findall(text))
    s.excludes_end = bool(_EXCLUDED_RE.search(text)) or "[" in text and ")" in text
    return s


def _appears(value: str, text_norm: str, synonyms: dict[str, set[str]]) -> bool:
    options = {value} | synonyms.get(value, set())
    return any(re.search(rf"(?<![\w]){re.escape(o)}(?![\w])", text_norm) for o in options)


def slot_problems(canonical: str, variant: str, synonyms: dict[str, list[str]] | None = None) -> list[str]:
    """What the variant changed among the canonical question's slots (empty list: same slots).

    ``synonyms`` maps a quoted value or identifier (normalised) to words that may stand for it
    (a domain's vocabulary, e.g. ``transport link`` → ``backhaul``)."""
    syn = {norm_value(k): {norm_value(x) for x in v} for k, v in (synonyms or {}).items()}
    a, b = extract_slots(canonical), extract_slots(variant)
    out = list(b.problems)
    for name in ("numbers", "durations", "dates", "times", "comparators"):
        ca, cb = getattr(a, name), getattr(b, name)
        if ca != cb:
            lost, added = ca - cb, cb - ca
            what = "; ".join(x for x in (lost and f"missing {sorted(lost.elements())}",
                                         added and f"added {sorted(added.elements())}") if x)
            out.append(f"{name} differ: {what}")
    if a.years and b.years - a.years or not a.years and len(b.years) > 1:
        out.append(f"years differ: {sorted(a.years)} vs {sorted(b.years)}")
    if a.years and not b.years and a.dates:
        out.append(f"the year {sorted(a.years)} is missing")
    vnorm = " " + norm_value(variant) + " "
    for v in sorted(a.quoted):
        if not _appears(v, vnorm, syn):
            out.append(f"value '{v}' is missing")
    allowed = set(a.quoted) | {x for k in a.quoted for x in syn.get(k, ())}
    for v in sorted(set(b.quoted) - allowed):
        out.append(f"value '{v}' was added")
    for v in sorted(a.identifiers):
        if not _appears(v, vnorm, syn):
            out.append(f"identifier {v!r} is missing")
    extra = b.identifiers - a.identifiers - allowed - {x for k in a.identifiers for x in syn.get(k, ())}
    extra = {x for x in extra if x not in " ".join(a.quoted) and x not in norm_value(canonical)}
    for v in sorted(extra):
        out.append(f"identifier {v!r} was added")
    if a.extremes != b.extremes:
        out.append(f"ranking direction differs: {sorted(a.extremes)} vs {sorted(b.extremes)}")
    if b.negations < a.negations:
        out.append(f"a negation was dropped ({a.negations} in the canonical question, {b.negations} here)")
    if a.excludes_end and not b.excludes_end:
        out.append("the window's excluded end is no longer stated")
    return out
