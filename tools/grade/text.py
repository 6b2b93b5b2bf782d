"""Text helpers of the grader: cleaning agent output, finding the answer region, numbers with units.

Agents answer in prose, markdown and JSON. The helpers here strip formatting, drop the numbers
that are dates, clock times or list markers (they are never the answer), and return numbers with
the unit written next to them, so the matchers only see candidate answers.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

_MONTHS = (r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|"
           r"sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)")
_DATE_PATTERNS = [
    re.compile(r"\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?"),
    re.compile(rf"\b\d{{1,2}}(?:st|nd|rd|th)?\s+{_MONTHS}\b(?:,?\s+\d{{4}})?", re.I),
    re.compile(rf"\b{_MONTHS}\s+\d{{1,2}}(?:st|nd|rd|th)?\b(?:,?\s+\d{{4}})?", re.I),
    re.compile(r"\b\d{1,2}:\d{2}(?::\d{2})?(?:\s*UTC)?\b"),
]
_REFUSAL = re.compile(
    r"^\W*(?:i(?:'m| am)? (?:sorry|unable|not able)|i (?:can ?not|can't|cannot|won't|do not have|don't have)|"
    r"as an ai|sorry,|unfortunately,? i|i'm afraid|no idea\b|not sure\b|unknown\W*$|n/a\W*$|i (?:don't|do not) know)",
    re.I)
_MARKER = re.compile(r"(?:final answer|answer|result)\s*(?:is\s*[:=]?|[:=])\s*", re.I)
_NUMBER = re.compile(
    r"(?<![\w.\-])(?P<num>[-−+]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:[eE][-+]?\d+)?|[-−+]?\.\d+)"
    r"(?!\.\d)(?!_)(?!,\d{3})"
    r"(?P<suffix>\s*(?:%|‰|[kKMB]\b|thousand\b|million\b|billion\b))?"
    r"(?P<unit>\s*[A-Za-zµ°/%][\wµ°/%]*)?")

_SCALE = {"k": 1e3, "K": 1e3, "M": 1e6, "B": 1e9, "thousand": 1e3, "million": 1e6, "billion": 1e9}


@dataclass(frozen=True)
class Num:
    """A number found in text: its value, the unit written after it (lower case, may be ''),
    whether it carried a percent sign, and its character span."""

    value: float
    unit: str
    percent: bool
    start: int
    end: int


def strip_markup(text: str) -> str:
    """Drop markdown emphasis, code fences/backticks and normalise dashes, arrows and spaces."""
    t = text.replace("\r\n", "\n")
    t = re.sub(r"```[a-zA-Z]*\n?", "", t).replace("`", "")
    # '**' stays: bold marks the answer (bold_segments); numbers and labels read through it
    t = t.replace("__", " ").replace("\u00a0", " ").replace("\u202f", " ").replace("\u2009", " ")
    t = re.sub(r"(?<=\d) (?=\d{3}\b)", ",", t)  # '12 345' (thin-space thousands) -> '12,345'
    t = re.sub(r"(?m)^\s*#+\s*", "", t)
    t = re.sub(r"\s*(?:→|->|=>|›|⟶)\s*", " > ", t)
    return t.replace("−", "-").replace("–", "-").replace("—", " - ")


def bold_segments(text: str) -> list[str]:
    """Text between ``**`` pairs (agents often bold the answer)."""
    return re.findall(r"\*\*(.+?)\*\*", text, flags=re.S)


def answer_region(text: str) -> str | None:
    """The text after the last 'Answer:' / 'Final answer:' / 'Result =' marker, if any."""
    found = list(_MARKER.finditer(text))
    return text[found[-1].end():] if found else None


def is_refusal(text: str) -> bool:
    """True when the response opens by declining to answer."""
    return bool(_REFUSAL.search(text.strip()[:200]))


def is_empty_result(text: str) -> bool:
    """An empty result: ``[]``, ``{}``, ``null``, an empty DataFrame."""
    t = text.strip().strip("`").strip()
    return t in ("[]", "{}", "null", "None", "[ ]", "()") or t.startswith("Empty DataFrame")


def is_garbage(text: str) -> bool:
    """A traceback, binary noise or a response with almost no letters or digits."""
    if is_empty_result(text):
        return False
    if "Traceback (most recent call last)" in text or "\x00" in text:
        return True
    visible = [c for c in text if not c.isspace() and c not in "*_`#|"]  # markdown is not noise
    return bool(visible) and sum(c.isalnum() for c in visible) < 0.3 * len(visible)


def mask_dates(text: str) -> str:
    """Replace dates and clock times with spaces of the same length (keeps spans aligned)."""
    for pat in _DATE_PATTERNS:
        text = pat.sub(lambda m: " " * len(m.group(0)), text)
    return re.sub(r"(?m)^(\s*)(\d{1,2}[.)])(\s)", lambda m: m.group(1) + " " * len(m.group(2)) + m.group(3), text)


def numbers(text: str, *, dates_masked: bool = False) -> list[Num]:
    """Every number in ``text`` (thousands separators, signs, %, k/M suffixes, a trailing unit)."""
    src = text if dates_masked else mask_dates(text)
    out = []
    for m in _NUMBER.finditer(src):
        raw = m.group("num").replace(",", "").replace("−", "-")
        value = float(raw)
        suffix = (m.group("suffix") or "").strip()
        percent = suffix in ("%",)
        if suffix in _SCALE:
            value *= _SCALE[suffix]
        unit = "%" if percent else (m.group("unit") or "").strip().lower().rstrip(".,;:)")
        out.append(Num(value, unit, percent, m.start(), m.end()))
    return out


_WORD_NUM = {w: i for i, w in enumerate(
    "zero _ two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen "
    "eighteen nineteen twenty".split())}
_TENS = {"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90}


def number_words(text: str) -> list[tuple[int, int]]:
    """Numbers written in words ('sixty-three', 'Four', 'zero') as (value, start); 'one' is left out
    ('which one of', 'one of them' are not counts)."""
    out = []
    for m in re.finditer(r"\b(twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety)(?:[- ](two|three|four|five|six|"
                         r"seven|eight|nine|one))?\b|\b(zero|two|three|four|five|six|seven|eight|nine|ten|eleven|"
                         r"twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen)\b", text, re.I):
        if m.group(1):
            v = _TENS[m.group(1).lower()] + ({"one": 1} | _WORD_NUM).get((m.group(2) or "zero").lower(), 0)
        else:
            v = _WORD_NUM[m.group(3).lower()]
        out.append((v, m.start()))
    return out


def question_numbers(question: str) -> set[float]:
    """Values of the numbers a question itself mentions (thresholds, k, decimals)."""
    return {round(n.value, 9) for n in numbers(question)}


def parse_json_payload(text: str) -> Any:
    """The JSON value in a response (whole text or a fenced/embedded object or array), else None."""
    t = text.strip()
    for cand in (t, *re.findall(r"```(?:json)?\s*(.+?)```", text, flags=re.S)):
        try:
            return json.loads(cand)
        except (ValueError, TypeError):
            pass
    m = re.search(r"[\[{].*[\]}]", t, flags=re.S)
    if m:
        try:
            return json.loads(m.group(0))
        except ValueError:
            return None
    return None


def norm_label(s: Any) -> str:
    """Case-, space-, underscore- and arrow-insensitive form of a label for comparisons."""
    t = strip_markup(str(s)).replace("**", "").strip().strip("'\"").lower()
    t = re.sub(r"[\s_]+", " ", t)
    return re.sub(r"\s*>\s*", " > ", t).strip()
