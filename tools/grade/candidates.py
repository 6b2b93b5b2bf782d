"""Candidate answers for number, integer and duration questions, from prose and from tables.

Prose: every number minus dates, clock times, epoch values, ids, list markers, numbers that repeat
the question in its own words, denominators ("out of 1,204", "over 1,212 readings"), numbers a
different aggregate labels ("max 88.4 ms" for a mean), and numbers in another unit dimension.
Tables: the column that answers (measure words, aggregate and unit in the header; ids, dates, flags
and index columns never), and the row the question names, the extreme row for "highest/lowest", or
the row count when a "how many" question is answered by a list of entities."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from tools.grade.question import AGGREGATES, QuestionInfo, aggregate_of, analyse, is_echo, words
from tools.grade.tables import Table, parse_tables
from tools.grade.text import mask_dates, number_words, numbers
from tools.grade.units import UNITS, durations, expected_unit, unit_of


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


# ---- tables ---------------------------------------------------------------------------------------

_DATE_HEAD = {"ts", "timestamp", "time", "date", "datetime", "at", "start", "end", "from", "to", "window", "first",
              "last", "day", "hour", "month", "week", "period", "bucket"}
_COUNT_HEAD = {"n", "count", "cnt", "num", "number", "total", "star"}
_DATE_CELL = re.compile(r"^\d{4}-\d{2}-\d{2}|^\d{1,2}:\d{2}")


def _num_cell(s: str) -> float | None:
    m = re.fullmatch(r"\s*([-+]?\d[\d,]*(?:\.\d+)?(?:[eE][-+]?\d+)?)\s*%?\s*", s)
    return float(m.group(1).replace(",", "")) if m else None


def header_unit(header: str) -> str:
    """A unit word named in a column header ('avg_hours_in_critical' -> 'hours'), else ''."""
    for w in reversed(words(header)):
        if w in UNITS and w not in ("b", "w", "d", "m"):
            return w
    return ""


def column_kinds(t: Table) -> list[str]:
    """'num', 'flag', 'date', 'id', 'duration' or 'text' per column."""
    kinds = []
    for i, h in enumerate(t.headers):
        cells = [c for c in t.column(i) if c.strip()]
        hw = set(words(h))
        if not cells:
            kinds.append("text")
        elif all(_DATE_CELL.match(c.strip()) and not re.fullmatch(r"\d+:\d{2}(:\d{2})?", c.strip()) for c in cells):
            kinds.append("date")
        elif all(c.strip() in ("True", "False", "true", "false") for c in cells):
            kinds.append("flag")
        elif all(_num_cell(c) is not None for c in cells):
            vals = [_num_cell(c) for c in cells]
            if all(is_epoch(v) for v in vals) or (hw & _DATE_HEAD and not header_unit(h)):
                kinds.append("date")
            elif "id" in hw or h.lower().endswith("id"):
                kinds.append("id")
            elif set(vals) <= {0.0, 1.0} and len(cells) > 1:
                kinds.append("flag")
            else:
                kinds.append("num")
        elif all(durations(c) for c in cells):
            kinds.append("duration")
        else:
            kinds.append("text")
    return kinds


def _column_score(h: str, info: QuestionInfo, unit: str, kind: str) -> float:
    hw = set(words(h))
    score = 2.0 * len({w[:-1] if w.endswith("s") else w for w in hw} & info.measure)
    fam = next((f for f, ws in AGGREGATES.items() if hw & set(ws) and f != "count"), None)
    if kind == "integer":
        score += 2 if hw & _COUNT_HEAD else 0
        score += 3 if info.counted and any(_sing(w) == info.counted for w in hw) else 0
        score -= 3 if fam in ("mean", "std", "median") else 0
    else:
        score += 2 if fam and fam == info.aggregate else (-3 if fam else 0)
        score -= 3 if hw & _COUNT_HEAD and info.aggregate != "sum" else 0
    hu = header_unit(h)
    if hu and unit and unit_of(unit):
        score += 2 if unit_of(hu)[0] == unit_of(unit)[0] else -5
    elif hu and kind == "integer":
        score -= 5
    if unit and not unit_of(unit) and unit.lower() in hw:
        score += 2
    score += 1 if hw & {"answer", "value", "result"} else 0
    return score


def table_values(t: Table, info: QuestionInfo, question: str, unit: str, kind: str) -> tuple[list[Cand], str]:
    """Candidates one table gives, and how they were chosen ('' when the table cannot answer)."""
    kinds = column_kinds(t)
    want = ("num", "duration") if kind == "duration" else ("num",)
    cols = [i for i, k in enumerate(kinds) if k in want]
    keyed = [i for i, k in enumerate(kinds) if k in ("text", "id")]
    qnorm = question.lower()
    names_counted = any(info.counted and any(_sing(w) == info.counted for w in words(t.headers[i])) for i in cols)
    if kind == "integer" and len(t.rows) > 1 and keyed and not names_counted:
        return [Cand(float(len(t.rows)), "table_row_count")], "rows listed"
    if kind == "integer" and not cols and keyed and len(t.rows) >= 1 and info.counted:
        return [Cand(float(len(t.rows)), "table_row_count")], "rows listed"
    if not cols:
        return [], ""
    scores = {i: _column_score(t.headers[i], info, unit, kind) for i in cols}
    best = max(scores.values())
    top = [i for i in cols if scores[i] == best]
    rows = t.rows
    named = [r for r in rows if any(c.strip() and len(c.strip()) > 1 and re.search(
        rf"(?<![\w]){re.escape(c.strip().lower())}(?![\w])", qnorm) for j, c in enumerate(r) if j in keyed)]
    metric_rows = [r for r in rows if any(j in keyed and set(words(r[j])) & info.measure for j in range(len(r)))]
    if info.not_affected and len(rows) > 1:  # 'not affected by it': the affected group's row never answers
        rows = [r for r in rows if not any(j in keyed and re.search(r"(?<!un)(?<!not )(?<!not_)affected", r[j].lower())
                                           for j in range(len(r)))] or rows
        named = [r for r in named if r in rows]
        metric_rows = [r for r in metric_rows if r in rows]
    if len(rows) > 1 and len(metric_rows) == 1:
        rows = metric_rows
    elif len(rows) > 1 and len(named) == 1:
        rows = named
    elif len(rows) > 1 and any(r[j].strip().lower() in ("total", "all", "overall") for r in rows for j in keyed):
        rows = [r for r in rows if any(r[j].strip().lower() in ("total", "all", "overall") for j in keyed)]
    out = []
    for i in top:
        vals = [_cell_value(r[i] if i < len(r) else "", t.headers[i], unit, kind, info) for r in rows]
        vals = [v for v in vals if v is not None]
        if len(vals) > 1 and info.superlative:
            vals = [max(vals) if info.superlative == "max" else min(vals)]
        # several rows and nothing picks one: even equal values are no answer (a per-group table)
        out += [Cand(v, "table" if len(vals) == 1 else "table_rows") for v in vals]
    return out, "table"


def _cell_value(cell: str, header: str, unit: str, kind: str, info: QuestionInfo) -> float | None:
    if kind == "duration":
        ds = durations(cell)
        if ds and not re.fullmatch(r"\s*[-\d.,]+\s*", cell):
            return ds[0][0]
        v = _num_cell(cell)
        hu = header_unit(header) or info.unit_asked or "s"
        return None if v is None else v * (unit_of(hu) or ("time", 1.0))[1]
    v = _num_cell(cell)
    if v is None:
        return None
    hu, want = header_unit(header), unit_of(unit) if unit else None
    if hu and want and unit_of(hu)[0] == want[0]:
        return v * unit_of(hu)[1] / want[1]
    return v


def tables_of(text: str) -> list[Table]:
    """The tables of a response (see tools.grade.tables)."""
    return parse_tables(text)


def scalar_candidates(text: str, record: dict, kind: str) -> tuple[list[Cand], list[Table]]:
    """Candidates of the whole response: prose outside tables first, else the tables' picks."""
    info = analyse(record.get("question", ""))
    unit = expected_unit(record.get("answer_text", "")) if kind == "number" else ""
    tables = tables_of(text)
    prose = text
    for t in tables:
        s, e = t.span
        if e > s:
            prose = prose[:s] + " " * (e - s) + prose[e:]
    if tables and all(t.kind == "json" for t in tables):
        prose = ""
    cands = _prose(prose, info, unit, kind)
    if cands:
        return cands, tables
    for t in reversed(tables):
        vals, _ = table_values(t, info, record.get("question", ""), unit, kind)
        if vals:
            return vals, tables
    return [], tables


def _prose(text: str, info: QuestionInfo, unit: str, kind: str) -> list[Cand]:
    if kind == "duration":
        return duration_values(text, info, info.unit_asked or "s")
    cands = prose_numbers(text, info, unit, kind)
    if not cands:
        cands = [Cand(float(v), "words", s) for v, s in number_words(text)]
    if not cands and kind == "integer":
        listed = {m.group(0).upper().replace("-", "_") for m in _ANY_ID.finditer(text)} - {
            m.group(0).upper().replace("-", "_") for m in _ANY_ID.finditer(info_question(info))}
        if listed:
            cands = [Cand(float(len(listed)), "table_row_count")]
    return cands


_ANY_ID = re.compile(r"\b[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)*[_-]\d+\b")


def info_question(info: QuestionInfo) -> str:
    """The question text an analysis came from."""
    return info.text
