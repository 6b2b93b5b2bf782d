"""Candidate answers from a response's tables, and from the whole response (prose outside the tables
first, else the tables' picks; prose candidates: ``tools.grade.candidates``).

Tables: the column that answers (measure words, aggregate and unit in the header; ids, dates, flags
and index columns never), and the row the question names, the extreme row for "highest/lowest", or
the row count when a "how many" question is answered by a list of entities."""

from __future__ import annotations

import re

from tools.grade.candidates import Cand, _sing, duration_values, is_epoch, prose_numbers
from tools.grade.question import AGGREGATES, QuestionInfo, analyse, words
from tools.grade.tables import Table, parse_tables
from tools.grade.text import number_words
from tools.grade.units import UNITS, durations, expected_unit, unit_of

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
