"""Candidate answers for number, integer and duration questions, from prose (tables and the whole
response: ``tools.grade.table_candidates``).

Prose: every number minus dates, clock times, epoch values, ids, list markers, numbers that repeat
the question in its own words, denominators ("out of 1,204", "over 1,212 readings"), numbers a
different aggregate labels ("max 88.4 ms" for a mean), and numbers in another unit dimension."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from tools.grade.question import AGGREGATES, QuestionInfo, aggregate_of, is_echo, words
from tools.grade.text import mask_dates, numbers
from tools.grade.units import durations, unit_of


@dataclass
class Cand:
    """One candidate value in the answer's unit (seconds for durations); ``how`` says where it came from."""

    value: float
    how: str
    start: int = 0
    unit: str = ""


_DENOM = re.compile(r"(?:out of|of the|of all|among(?: the)?|across(?: the)?|from the|from all|over(?: the| all)?|"
                    r"based on|n\s*=|\bn:|\d\s+of|total of the)\s*$", re.I)
_EPOCH = ((9.4e8, 4.2e9), (9.4e11, 4.2e12))


def is_epoch(v: float) -> bool:
    """A Unix timestamp in seconds or milliseconds between 2000 and 2100."""
    return math.isfinite(v) and v == int(v) and any(lo <= v <= hi for lo, hi in _EPOCH)


def _clause_before(text: str, start: int) -> str:
    seg = text[max(0, start - 60):start]
    return re.split(r"[,;(\n]|\.\s|\band\b|\bwhile\b|\bthen\b", seg)[-1]


def _drop_by_context(text: str, start: int, info: QuestionInfo) -> bool:
    before = _clause_before(text, start)
    agg = aggregate_of(before)
    if agg and info.aggregate and info.aggregate != "count" and agg != info.aggregate:
        return True
    if agg and info.aggregate == "count" and agg != "sum":
        return True
    low = before.lower()
    if "population" in low or (info.not_affected and re.search(r"(?<!un)affected", low)
                               and not re.search(r"not affected|unaffected", low)):
        return True
    if not info.asks_change and re.search(r"\b(?:fell|rose|increased|decreased|dropped|grew|declined|jumped|went "
                                          r"(?:up|down))\s+(?:by\s+)?$|\b(?:up|down) (?:by )?$", low):
        return True  # 'fell by 81.1%' is a change, not the level asked
    return bool(_DENOM.search(text[max(0, start - 20):start]))


def _respectively(src: str, info: QuestionInfo) -> set[int]:
    """Starts of numbers a "the mean and max were A and B respectively" sentence assigns to another
    aggregate than the question's."""
    drop: set[int] = set()
    for r in re.finditer(r"\brespectively\b", src, re.I):
        base = max(0, r.start() - 300)
        m = re.search(r"(?:[^.\n]|(?<=\d)\.(?=\d))*\Z", src[base:r.start()])
        base += m.start()
        sent = src[base:r.end()]
        nums = numbers(sent, dates_masked=True)
        if len(nums) < 2:
            continue
        head = sent[:nums[0].start]
        fams = [f for w in words(head) for f, ws in AGGREGATES.items() if f != "count" and w in ws]
        if len(fams) == len(nums) and info.aggregate in fams:
            drop |= {base + n.start for n, f in zip(nums, fams, strict=True) if f != info.aggregate}
    return drop


def prose_numbers(text: str, info: QuestionInfo, unit: str, kind: str) -> list[Cand]:
    """Candidate numbers of prose ``text`` (see the module docstring), converted to ``unit``."""
    src = mask_dates(text)
    paired = _respectively(src, info)
    out: list[Cand] = []
    for n in numbers(src, dates_masked=True):
        if is_epoch(n.value) and n.value > 1e8:
            continue
        prev, nxt = words(src[max(0, n.start - 25):n.start]), words(src[n.start:n.end + 25])[1:]
        if is_echo(info, n.value, prev[-1] if prev else "", (words(n.unit) or nxt or [""])[0]):
            continue
        if n.start in paired or (not paired or not re.search(r"respectively", src[n.start:n.start + 200], re.I)) and \
                _drop_by_context(src, n.start, info):
            continue
        out.append(Cand(n.value, "prose", n.start, n.unit))
    return _by_unit(out, unit, info, kind)


def _by_unit(cands: list[Cand], unit: str, info: QuestionInfo, kind: str) -> list[Cand]:
    """Keep the candidates in the answer's unit (converted), preferring an exact unit match."""
    want = unit_of(unit) if unit else None
    exact, same_dim, bare = [], [], []
    for c in cands:
        got = unit_of(c.unit) if c.unit else None
        if want and got:
            if got[0] != want[0]:
                continue
            (exact if got == want else same_dim).append(Cand(c.value * got[1] / want[1], c.how, c.start, c.unit))
        elif unit and c.unit and c.unit.split()[0] == unit.lower().split()[0]:
            exact.append(c)
        elif want and kind == "number" and re.fullmatch(r"[a-z]{3,}s", c.unit.split()[0] if c.unit else ""):
            continue  # '81.1 sessions' is a count of things, not the percentage asked
        elif got and kind == "integer":
            if got[0] in ("time", "percent"):
                continue
            bare.append(c)
        elif got and not want and got[0] == "percent" and unit and "%" not in unit and "percent" not in unit:
            continue
        else:
            noun = _sing(c.unit) if c.unit else ""
            if kind == "integer" and info.counted and noun and noun in info.counted_words | {info.counted}:
                exact.append(c)
            elif (kind == "integer" and info.counted and re.fullmatch(r"[a-z]{3,}s", c.unit.split()[0] if c.unit else "")
                  and noun not in info.counted_words):
                continue  # '4 times', '23 readings' do not count sensors
            else:
                bare.append(c)
    return exact or same_dim or bare


def _sing(w: str) -> str:
    w = w.split()[0] if w.split() else w
    return w[:-1] if w.endswith("s") and len(w) > 3 else w


def duration_values(text: str, info: QuestionInfo, default_unit: str = "s") -> list[Cand]:
    """Durations written in ``text`` (seconds), else bare numbers read in ``default_unit``."""
    src = re.sub(r"\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?(?:\s*UTC)?",
                 lambda m: " " * len(m.group(0)), text)
    found = [Cand(d, "prose", s) for d, s, e in durations(src)  # a clock time ('09:15 UTC') is no duration
             if not _drop_by_context(src, s, info) and not (":" in src[s:e] and re.match(r"\s*(?:UTC|on)\b", src[e:e + 6]))]
    if found:
        return found
    factor = (unit_of(default_unit) or ("time", 1.0))[1]
    bare = [c for c in prose_numbers(src, info, "", "number") if not c.unit or unit_of(c.unit)]
    return [Cand(c.value * ((unit_of(c.unit) or ("time", factor))[1]), c.how, c.start) for c in bare
            if not c.unit or (unit_of(c.unit) or ("",))[0] == "time"]
