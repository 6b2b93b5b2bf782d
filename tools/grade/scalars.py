"""Matchers for scalar answers: numbers (with units), integers, durations, booleans, timestamps,
entities and labels. Each returns a :class:`Verdict`; ``decided=False`` means the text holds
rival candidates the rules cannot choose between."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from tools.grade.text import (
    Num,
    answer_region,
    bold_segments,
    mask_dates,
    norm_label,
    numbers,
    question_numbers,
)
from tools.grade.units import durations, expected_unit, unit_of


@dataclass
class Verdict:
    """Outcome of one matcher: correct or not, whether the rules could decide, a Genie-style detail,
    the value read from the response and, for sets, the F1 score."""

    correct: bool
    decided: bool = True
    detail: str = ""
    parsed: Any = None
    f1: float | None = None
    extra: dict = field(default_factory=dict)


def within(got: float, expected: float, tol: dict) -> bool:
    """``|got - expected| <= max(abs, rel * |expected|)`` (plus float noise)."""
    limit = max(float(tol.get("abs", 0.0)), float(tol.get("rel", 0.0)) * abs(expected))
    return math.isfinite(got) and abs(got - expected) <= limit + 1e-9 * max(1.0, abs(expected))


def focus_texts(text: str) -> list[str]:
    """Narrower places the answer is likely stated, best first: after an 'Answer:' marker, bold text,
    the last non-empty line."""
    out = []
    region = answer_region(text)
    if region:
        out.append(region)
    out.extend(bold_segments(text))
    lines = [ln for ln in text.splitlines() if ln.strip()]
    if len(lines) > 1:
        out.append(lines[-1])
    return out


def _decide(cands: list, ok, text_for_focus: list[str], reparse) -> tuple[bool | None, list]:
    """All candidates agree -> that verdict; else retry on the focus texts; else None (undecided)."""
    if not cands:
        return None, cands
    verdicts = {ok(c) for c in cands}
    if len(verdicts) == 1:
        return verdicts.pop(), cands
    for t in text_for_focus:
        sub = reparse(t)
        if sub and len({ok(c) for c in sub}) == 1:
            return ok(sub[0]), sub
    return None, cands


def _number_value(n: Num, exp_unit: str) -> float:
    """The number in the expected unit when both units share a dimension ('0.0197 s' -> 19.7 ms)."""
    got, want = unit_of(n.unit), unit_of(exp_unit)
    if got and want and got[0] == want[0] and got[1] != want[1]:
        return n.value * got[1] / want[1]
    return n.value


def _candidates(text: str, question: str) -> list[Num]:
    nums = numbers(text)
    qnums = question_numbers(question)
    kept = [n for n in nums if round(n.value, 9) not in qnums]
    return kept or nums


def match_number(text: str, expected: float, tol: dict, *, answer_text: str = "", question: str = "",
                 naive: Any = None) -> Verdict:
    """A number in the expected unit within tolerance; other numbers of the text must agree."""
    unit = expected_unit(answer_text)

    def ok(n: Num) -> bool:
        return within(_number_value(n, unit), float(expected), tol)

    cands = _candidates(text, question)
    if not cands and says_none(text):
        cands = [Num(0.0, "", False, 0, 0)]
    verdict, used = _decide(cands, ok, focus_texts(text), lambda t: _candidates(t, question))
    if verdict is None:
        if not cands:
            return Verdict(False, False, "no number found in the response")
        return Verdict(False, False, "several different numbers; cannot tell which is the answer",
                       [n.value for n in cands])
    got = _number_value(used[0], unit)
    if verdict:
        return Verdict(True, True, "", got)
    if any(ok(n) for n in numbers(text)):  # the right value is there, but only as a number the question has
        return Verdict(False, False, "the expected value appears only where the question's own numbers are "
                       "repeated", [n.value for n in numbers(text)])
    return Verdict(False, True, _wrong_number_detail(used[0], got, float(expected), tol, naive), got)


_NONE = re.compile(r"\b(?:no|none|zero|nothing|not any)\b", re.I)


def says_none(text: str) -> bool:
    """A response that states nothing was found ('There were no such sessions', 'No incident found')."""
    return bool(_NONE.search(text))


def _wrong_number_detail(n: Num, got: float, expected: float, tol: dict, naive: Any) -> str:
    if isinstance(naive, int | float) and not isinstance(naive, bool) and within(got, float(naive), tol):
        return f"wrong value: {got:g} is the naive (stateless) reading; expected {expected:g}"
    for factor in (100.0, 0.01, 1e3, 1e-3, 60.0, 1 / 60, 3600.0, 1 / 3600):
        if within(got * factor, expected, tol):
            return f"wrong unit: {got:g}{(' ' + n.unit) if n.unit else ''} is the expected value in another unit"
    return f"wrong value: got {got:g}, expected {expected:g}"


def match_duration(text: str, expected: float, tol: dict, *, question: str = "", naive: Any = None) -> Verdict:
    """A duration in any common format (or a bare number of seconds) within tolerance."""
    def parse(t: str) -> list[float]:
        found = [d for d, _, _ in durations(mask_dates_keep_clock(t))]
        if found:
            return found
        return [n.value for n in _candidates(t, question) if not n.unit or n.unit.startswith("s")]

    def ok(v: float) -> bool:
        return within(v, float(expected), tol)

    cands = parse(text)
    if not cands and says_none(text):
        cands = [0.0]
    verdict, used = _decide(cands, ok, focus_texts(text), parse)
    if verdict is None:
        return Verdict(False, False, "no duration found" if not cands else "several different durations", cands)
    if verdict:
        return Verdict(True, True, "", used[0])
    got = used[0]
    if isinstance(naive, int | float) and within(got, float(naive), tol):
        return Verdict(False, True, f"wrong value: {got:g} s is the naive (stateless) reading", got)
    return Verdict(False, True, f"wrong value: got {got:g} s, expected {float(expected):g} s", got)


def mask_dates_keep_clock(text: str) -> str:
    """Mask calendar dates but keep 'hh:mm:ss' (a clock-style duration)."""
    return re.sub(r"\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?",
                  lambda m: " " * len(m.group(0)), text)


_YES = re.compile(r"^\W*(yes|true|correct|affirmative|indeed)\b", re.I)
_NO = re.compile(r"^\W*(no|false|none|not|nope|never)\b", re.I)
_NEG = re.compile(r"\b(?:did not|didn't|does not|doesn't|was not|wasn't|were not|weren't|there (?:is|was|were|are) no|"
                  r"no (?:such|sensor|reading|session|entity)|none of)\b", re.I)
# 'Yes'/'No' standing alone ('Based on the data, Yes (ratio 3.2)'), not 'no readings'
_YESNO_WORD = re.compile(r"\b(yes|no)\b(?=\s*(?:[(\-,.;:!]|$))", re.I | re.M)
_POS = re.compile(r"\b(?:there (?:is|was|were|are) (?:at least|some|an?|\d)|did have|does have)\b", re.I)


def read_bool(text: str) -> bool | None:
    """Yes/no from the opening word, else from an unambiguous affirmative or negative phrase."""
    for t in [*focus_texts(text)[:1], text]:
        if _YES.search(t):
            return True
        if _NO.search(t):
            return False
    standalone = {m.group(1).lower() for m in _YESNO_WORD.finditer(text)}
    if len(standalone) == 1:
        return standalone.pop() == "yes"
    neg, pos = bool(_NEG.search(text)), bool(_POS.search(text))
    return None if neg == pos else pos


_RATIO = re.compile(r"(?P<n>\d+(?:\.\d+)?)\s*(?:x|×|times)\b|(?:factor|ratio)(?:\s+(?:of|is|was|=))?\s*[:=]?\s*"
                    r"(?P<m>\d+(?:\.\d+)?)", re.I)


def match_boolean(text: str, expected: Any, tol: dict, *, question: str = "") -> Verdict:
    """Yes/no, with the supporting figure ('Yes - 3.7x higher') when the answer carries one."""
    want = expected["value"] if isinstance(expected, dict) else bool(expected)
    got = read_bool(text)
    if got is None:
        return Verdict(False, False, "no yes/no found in the response")
    if got != want:
        return Verdict(False, True, f"wrong value: answered {'yes' if got else 'no'}", got)
    figures = {k: v for k, v in (expected.items() if isinstance(expected, dict) else []) if k != "value"}
    for name, value in figures.items():
        ratios = [float(m.group("n") or m.group("m")) for m in _RATIO.finditer(mask_dates(text))]
        cands = ratios or [n.value for n in _candidates(text, question)]
        if not cands:
            return Verdict(False, True, f"missing value: the {name} is not given", got)
        hits = {within(c, float(value), tol) for c in cands}
        if hits == {True}:
            continue
        if hits == {False}:
            return Verdict(False, True, f"wrong value: {name} {cands[0]:g}, expected {float(value):g}", got)
        return Verdict(False, False, f"several candidate values for the {name}", cands)
    return Verdict(True, True, "", got)


def match_timestamp(text: str, expected: str, tol: dict) -> Verdict:
    """An ISO-8601 (or 'YYYY-MM-DD hh:mm[:ss]') instant equal to the expected one within tolerance."""
    want = datetime.fromisoformat(expected.replace("Z", "+00:00"))
    found = []
    for m in re.finditer(r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?", text):
        ts = datetime.fromisoformat(m.group(0).replace("Z", "+00:00"))
        found.append(ts if ts.tzinfo else ts.replace(tzinfo=UTC))
    if not found:
        return Verdict(False, False, "no timestamp found")
    oks = {abs((t - want).total_seconds()) <= max(float(tol.get("abs", 0)), 0.5) for t in found}
    if len(oks) > 1:
        return Verdict(False, False, "several different timestamps", [t.isoformat() for t in found])
    return Verdict(oks.pop(), True, "" if found[0] == want else f"wrong value: {found[0].isoformat()}", found[0].isoformat())


def id_shape(value: str) -> re.Pattern | None:
    """A regex for ids shaped like ``value`` ('CELL_62' -> CELL_<digits>), None for plain words."""
    m = re.fullmatch(r"(?P<p>.*?[^\d])(?P<d>\d+)", str(value))
    if not m:
        return None
    return re.compile(rf"(?<![\w.]){re.escape(m.group('p'))}(\d+)(?![\w.]*\w)", re.I)


def canon_id(s: str) -> str:
    """'cell_062' and 'CELL_62' are one id: upper-case prefix, digits without leading zeros."""
    m = re.fullmatch(r"(.*?[^\d])(\d+)", s.strip())
    return f"{m.group(1).upper()}{int(m.group(2))}" if m else norm_label(s)


def ids_in(text: str, examples: list[str], question: str = "") -> list[str]:
    """Ids shaped like the examples found in ``text`` (in order, de-duplicated), minus ids the
    question itself names; plain-word labels are found by exact mention."""
    shapes = {p.pattern: p for p in (id_shape(e) for e in examples) if p is not None}
    found: list[tuple[int, str]] = []
    for p in shapes.values():
        found += [(m.start(), canon_id(m.group(0))) for m in p.finditer(text)]
    for e in examples:
        if id_shape(e) is None:
            pat = re.compile(rf"(?<![\w]){re.escape(norm_label(e))}(?![\w])")
            found += [(m.start(), norm_label(e)) for m in pat.finditer(norm_label(text))]
    in_question = set(ids_in(question, examples)) if question else set()
    out: list[str] = []
    for _, i in sorted(found):
        if i not in out and i not in in_question:
            out.append(i)
    return out


def match_entity(text: str, expected: Any, *, question: str = "") -> Verdict:
    """One entity id (or a composite key whose every value must appear)."""
    if isinstance(expected, dict):
        missing = [str(v) for v in expected.values() if norm_label(v) not in norm_label(text)]
        return Verdict(not missing, True, f"missing key parts: {missing}" if missing else "", None)
    cands = ids_in(text, [str(expected)], question)
    want = canon_id(str(expected)) if id_shape(str(expected)) else norm_label(expected)
    if not cands:
        return Verdict(False, id_shape(str(expected)) is not None, "no entity id found in the response")
    if len(cands) == 1:
        return Verdict(cands[0] == want, True, "" if cands[0] == want else f"wrong value: {cands[0]}", cands[0])
    for t in focus_texts(text):
        sub = ids_in(t, [str(expected)], question)
        if len(sub) == 1:
            return Verdict(sub[0] == want, True, "" if sub[0] == want else f"wrong value: {sub[0]}", sub[0])
    return Verdict(False, False, "several entity ids; cannot tell which is the answer", cands)


def match_label(text: str, expected: str) -> Verdict:
    """A label: the whole (short) response or its answer line names it."""
    want = norm_label(expected)
    for t in [*focus_texts(text), text]:
        got = norm_label(t).strip(" .!")
        if got == want:
            return Verdict(True, True, "", got)
    if len(norm_label(text).split()) <= 4:
        return Verdict(False, True, f"wrong value: {norm_label(text)}", norm_label(text))
    return Verdict(False, False, "label not stated on its own", None)
