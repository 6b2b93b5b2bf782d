"""Matchers for numbers (with units), integers, durations and booleans. Each returns a
:class:`Verdict` with a reason code (tools.grade.reasons); ``decided=False`` means the text holds rival
candidates the rules cannot choose between (they go to the judge when one is configured)."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any

from tools.grade.candidates import Cand
from tools.grade.question import analyse
from tools.grade.table_candidates import column_kinds, scalar_candidates, tables_of
from tools.grade.text import answer_region, bold_segments, is_empty_result, mask_dates, numbers

_HEDGE = re.compile(r"\b(?:either|depending|could be|might be|may be|would be|candidates?|not sure which|could not "
                    r"decide|cannot decide|alternatively|if you (?:count|include|exclude))\b|\bor\b", re.I)


@dataclass
class Verdict:
    """Outcome of one matcher: correct or not, whether the rules could decide, a reason code, a
    Genie-style detail, the value read from the response and, for sets, the F1 score."""

    correct: bool
    decided: bool = True
    detail: str = ""
    parsed: Any = None
    f1: float | None = None
    extra: dict = field(default_factory=dict)
    reason: str = ""


def within(got: float, expected: float, tol: dict) -> bool:
    """``|got - expected| <= max(abs, rel * |expected|)`` (plus float noise)."""
    limit = max(float(tol.get("abs", 0.0)), float(tol.get("rel", 0.0)) * abs(expected))
    return math.isfinite(got) and abs(got - expected) <= limit + 1e-9 * max(1.0, abs(expected))


def focus_texts(text: str) -> list[str]:
    """Narrower places the answer is stated, best first: after an 'Answer:' marker, then bold text."""
    out = []
    region = answer_region(text)
    if region:
        out.append(region)
    out.extend(bold_segments(text))
    return out


_APPROX = re.compile(r"\b(?:about|approximately|approx\.?|roughly|around|nearly|almost)\s*$|[~≈]\s*$", re.I)
_NONE = re.compile(r"\b(?:no(?!\s+(?:data|information|access|results? (?:for|available)|such (?:table|column)))|none|"
                   r"zero|nothing|not any|not a single|no one|nobody)\b|^\W*0\s+[a-z]{3,}\W*$|\bempty (?:result|set|list)\b|"
                   r"returned no rows", re.I)


def says_none(text: str) -> bool:
    """A response that states nothing was found ('There were no such sessions', '[]', 'None.')."""
    return is_empty_result(text) or bool(_NONE.search(text))


def _reading(text: str, record: dict, kind: str) -> list[Cand]:
    cands, _ = scalar_candidates(text, record, kind)
    if kind == "integer" and re.match(r"^\W*(?:no|none|zero|nobody|not a single|not any)\b(?!\s*[,.;:!-])", text, re.I):
        qnums = {round(n.value, 9) for n in numbers(record.get("question", ""))}
        if all(round(c.value, 9) in qnums for c in cands):  # 'None of the users exceeded 3 views': 3 is the threshold
            return [Cand(0.0, "none")]
    if not cands and kind != "duration" and says_none(text):
        return [Cand(0.0, "none")]
    if not cands and kind == "duration" and says_none(text) and not numbers(text):
        return [Cand(0.0, "none")]
    return cands


def _decide(text: str, record: dict, kind: str, ok) -> Verdict:
    cands = _reading(text, record, kind)
    if not cands:
        return Verdict(False, True, "no value stated in the response", None, reason="no_answer")
    for f in focus_texts(text):
        sub = _reading(f, record, kind)
        if sub and len({ok(c.value) for c in sub}) == 1:
            return _verdict(sub, ok, record, "focus")
    if any(c.how == "table_rows" for c in cands):
        return Verdict(False, False, "a table with several rows and nothing that picks the answering row",
                       sorted({c.value for c in cands}), reason="several_candidates")
    if len({ok(c.value) for c in cands}) == 1:
        return _verdict(cands, ok, record, cands[0].how)
    exact = [c for c in cands if c.how != "prose" or not _APPROX.search(text[max(0, c.start - 14):c.start])]
    if exact and len(exact) < len(cands) and len({ok(c.value) for c in exact}) == 1:
        return _verdict(exact, ok, record, exact[0].how)
    info = analyse(record.get("question", ""))
    if info.aggregate in ("max", "min") and re.search(r"\brang(?:e|ed|es|ing)\b", text, re.I):
        pick = max(cands, key=lambda c: c.value) if info.aggregate == "max" else min(cands, key=lambda c: c.value)
        return _verdict([pick], ok, record, "prose")
    values = sorted({round(c.value, 9) for c in cands})
    if _HEDGE.search(mask_dates(text)):
        return Verdict(False, True, f"hedges between several values: {values[:6]}", values, reason="hedged")
    lines = [ln for ln in text.splitlines() if ln.strip()]
    if len(lines) > 1:
        sub = _reading(lines[-1], record, kind)
        if sub and len({ok(c.value) for c in sub}) == 1:
            return _verdict(sub, ok, record, "last line")
    return Verdict(False, False, "several different values; cannot tell which is the answer", values,
                   reason="several_candidates")


def _verdict(cands: list[Cand], ok, record: dict, how: str) -> Verdict:
    got = cands[0].value
    reason = {"table": "table_cell", "table_row_count": "list_count", "none": "none_means_zero",
              "focus": "marked_answer"}.get(how, "stated_value")
    if ok(got):
        return Verdict(True, True, "", got, reason=reason)
    exp, tol, naive = float(_scalar(record["answer"])), record.get("tolerance") or {}, record.get("naive_answer")
    if isinstance(naive, int | float) and not isinstance(naive, bool) and within(got, float(naive), tol):
        return Verdict(False, True, f"wrong value: {got:g} is the naive (stateless) reading; expected {exp:g}", got,
                       reason="naive_reading")
    for factor in (100.0, 0.01, 1e3, 1e-3, 60.0, 1 / 60, 3600.0, 1 / 3600):
        if within(got * factor, exp, tol):
            return Verdict(False, True, f"wrong unit: {got:g} is the expected value in another unit", got,
                           reason="wrong_unit")
    if how == "table_row_count":
        return Verdict(False, True, f"wrong value: {got:g} entities listed, expected {exp:g}", got,
                       reason="wrong_count")
    return Verdict(False, True, f"wrong value: got {got:g}, expected {exp:g}", got, reason="wrong_value")


def _scalar(v: Any) -> float:
    return float(v["value"]) if isinstance(v, dict) else float(v)


def match_number(text: str, record: dict) -> Verdict:
    """A number (integer for ``answer_type`` integer) in the expected unit within tolerance."""
    exp, tol = float(record["answer"]), dict(record.get("tolerance") or {})
    return _decide(text, record, "integer" if record["answer_type"] == "integer" else "number",
                   lambda v: within(v, exp, tol))


def match_duration(text: str, record: dict) -> Verdict:
    """A duration in any common format (or a bare number in the unit the question asks, else seconds)."""
    exp, tol = float(record["answer"]), dict(record.get("tolerance") or {})
    return _decide(text, record, "duration", lambda v: within(v, exp, tol))


_YES = re.compile(r"^\W*(yes|true|correct|affirmative|indeed)\b", re.I)
_NO = re.compile(r"^\W*(no|false|none|not|nope|never|zero)\b", re.I)
_NEG = re.compile(r"\b(?:did not|didn't|does not|doesn't|was not|wasn't|were not|weren't|is not|isn't|there (?:is|was|"
                  r"were|are) no|no \w+(?: \w+)? (?:exceeded|reported|went|had|was|were|did|dropped|fell|reached)|"
                  r"none of|not a single|never|0 \w+ (?:exceeded|reported|went|had))\b", re.I)
_YESNO_WORD = re.compile(r"\b(yes|no)\b(?=\s*(?:[(\-,.;:!]|$))", re.I | re.M)
_POS = re.compile(r"\b(?:there (?:is|was|were|are) (?:at least|some|an?|\d)|did have|does have|so yes|[1-9]\d* \w+ "
                  r"(?:exceeded|reported|went|had|did))\b", re.I)


def _table_bool(text: str, question: str = "") -> bool | None:
    any_q = re.match(r"\W*(?:did|was|were|is|are|has|have) (?:any|there)\b", question, re.I)
    for t in tables_of(text):
        kinds = column_kinds(t)
        if any_q and len(t.rows) > 1 and kinds.count("flag") == 1:  # 'did any ...?': one row flagged true is a yes
            f = kinds.index("flag")
            return any(r[f].strip().lower() in ("true", "1", "yes") for r in t.rows if f < len(r))
        flags = [i for i, k in enumerate(kinds) if k == "flag" and len(t.rows) == 1]
        vals = {t.rows[0][i].strip().lower() in ("true", "1") for i in flags}
        if len(vals) == 1:
            return vals.pop()
    m = re.search(r'"(?:answer|value|result)"\s*:\s*"?(yes|no|true|false)"?', text, re.I)
    if m:
        return m.group(1).lower() in ("yes", "true")
    m = re.search(r'^\s*\{\s*"\w+"\s*:\s*(true|false)\b', text, re.I)
    return None if not m else m.group(1).lower() == "true"


def read_bool(text: str, question: str = "") -> bool | None:
    """Yes/no from the opening word, a True/False cell, or an unambiguous affirmative/negative phrase."""
    if re.match(r"^\W*(?:yes|no)\s+(?:and|or|/)\s+(?:yes|no)\b", text, re.I):
        return None  # 'Yes and no: ...' hedges
    said = [m.group(1).lower() for m in _YESNO_WORD.finditer(text)]
    if len(set(said)) > 1:  # 'No - wait, ... so yes': a self-correction ends on its last word; else a hedge
        return said[-1] == "yes" if re.search(r"\b(?:wait|actually|correction|i mean|scratch that|so yes|so no)\b",
                                              text, re.I) else None
    for t in [*focus_texts(text)[:1], text]:
        if _YES.search(t):
            return True
        if _NO.search(t):
            return False
    tb = _table_bool(text, question)
    if tb is not None:
        return tb
    last = [ln for ln in text.splitlines() if ln.strip()]
    if last and re.fullmatch(r"\W*(true|false)\W*", last[-1], re.I):
        return last[-1].strip().lower().startswith("t")
    standalone = {m.group(1).lower() for m in _YESNO_WORD.finditer(text)}
    if len(standalone) == 1:
        return standalone.pop() == "yes"
    neg, pos = bool(_NEG.search(text)), bool(_POS.search(text))
    return None if neg == pos else pos


_RATIO = re.compile(r"(?P<n>\d+(?:\.\d+)?)\s*(?:x\b|×|times\b)|(?:factor|ratio)(?:\s*\([^)]{0,40}\))?(?:\s+(?:of|is|was|=))?\s*[:=]?\s*"
                    r"(?P<m>\d+(?:\.\d+)?)|\"ratio\"\s*:\s*(?P<j>\d+(?:\.\d+)?)", re.I)


def _figures(text: str, name: str) -> list[float]:
    out = [float(m.group("n") or m.group("m") or m.group("j")) for m in _RATIO.finditer(mask_dates(text))]
    for t in tables_of(text):
        for i, h in enumerate(t.headers):
            if name in h.lower() and len(t.rows) == 1:
                try:
                    out.append(float(t.rows[0][i]))
                except ValueError:
                    pass
    return out


def match_boolean(text: str, record: dict) -> Verdict:
    """Yes/no, with the supporting figure ('No (ratio 1.15)') when the answer carries one; a response
    with no yes/no that states something else ('I think the answer is 42') is incorrect."""
    expected, tol, q = record["answer"], dict(record.get("tolerance") or {}), record.get("question", "")
    want = expected["value"] if isinstance(expected, dict) else bool(expected)
    got = read_bool(text, q)
    cmp_q = re.search(r"\b(higher|lower|more|less|greater|smaller)\b", q)
    cmp_a = re.match(r"^\W*(higher|lower|more|less|greater|smaller)\b", text, re.I)
    if got is None and cmp_q and cmp_a:
        got = cmp_a.group(1).lower() == cmp_q.group(1)
    if got is None:
        got = _implied_bool(text, q)
    if got is None:
        figures_only = isinstance(expected, dict) and _figures(text, "ratio")
        if numbers(mask_dates(text)) or figures_only or len(text.split()) <= 12:
            return Verdict(False, True, "no yes/no in the response", None, reason="not_a_yes_no")
        return Verdict(False, False, "no yes/no found in the response", None, reason="no_yes_no")
    if got != want:
        return Verdict(False, True, f"wrong value: answered {'yes' if got else 'no'}", got, reason="wrong_yes_no")
    figures = {k: v for k, v in (expected.items() if isinstance(expected, dict) else []) if k != "value"}
    for name, value in figures.items():
        cands = _figures(text, name)
        if not cands:
            return Verdict(False, True, f"missing value: the {name} is not given", got, reason="missing_figure")
        hits = {within(c, float(value), tol) for c in cands}
        if hits == {False}:
            return Verdict(False, True, f"wrong value: {name} {cands[0]:g}, expected {float(value):g}", got,
                           reason="wrong_figure")
        if hits != {True}:
            return Verdict(False, False, f"several candidate values for the {name}", cands, reason="several_candidates")
    return Verdict(True, True, "", got, reason="yes_no" if not figures else "yes_no_and_figure")


def _implied_bool(text: str, question: str) -> bool | None:
    """'The minimum pressure was 1,004.2 hPa' to 'any reading below 1,008.5 hPa?': one stated extreme
    compared with the question's threshold."""
    m = re.search(r"\b(below|under|less than|above|over|exceed|more than|greater than)\s+([\d,]+(?:\.\d+)?)", question)
    if not m:
        return None
    thr = float(m.group(2).replace(",", ""))
    low = m.group(1) in ("below", "under", "less than")
    ext = re.search(r"\b(minimum|lowest|min|maximum|highest|max)\b[^.\d]{0,60}?([\d,]+(?:\.\d+)?)", text, re.I)
    if not ext:
        return None
    v = float(ext.group(2).replace(",", ""))
    is_min = ext.group(1).lower() in ("minimum", "lowest", "min")
    if low and is_min:
        return v < thr
    if not low and not is_min:
        return v > thr
    return None
