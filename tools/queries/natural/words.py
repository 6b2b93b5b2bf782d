"""Short English for natural questions: periods, populations, conditions and events.

The suite's preamble (``tools.queries.conventions``) states once what these short forms mean:
times are UTC, "from A to B" includes A and excludes B, "on 2 January" is that whole UTC day, a
question without a period covers all the data, units are each measurement's unit.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from typing import Any

from tools.queries.catalog import TableView
from tools.queries.render import fmt_num, humanize, plural
from tools.queries.spec import EntityFilter, Predicate, Window

_OPS = {">": "above", ">=": "at least", "<": "below", "<=": "at most", "==": "equal to", "!=": "not equal to"}
_DAY = timedelta(days=1)


def hm(d: datetime) -> str:
    """'06:00' (with seconds when they are not 0)."""
    return d.strftime("%H:%M") if d.second == 0 else d.strftime("%H:%M:%S")


def day(d: datetime) -> str:
    """'2 January' (the year is stated once in the preamble)."""
    return f"{d.day} {d.strftime('%B')}"


def period(w: Window | None) -> str:
    """'on 2 January', 'on 2 January, 06:00-12:00', 'from 2 January 21:00 to 3 January 09:00'; ''
    for the whole data (the preamble says a question without a period covers it all, and that
    '06:00-12:00' and 'from A to B' include A and exclude B)."""
    if w is None:
        return ""
    s, e = w.start_dt, w.end_dt
    midnight = s.time() == e.time() == datetime.min.time()
    if midnight and e - s == _DAY:
        return f"on {day(s)}"
    if midnight:
        return f"from {day(s)} to {day(e - _DAY)} (whole days)"
    if s.date() == e.date() or (e.time() == datetime.min.time() and e - s < _DAY):
        end = "24:00" if e.date() != s.date() else hm(e)
        return f"on {day(s)}, {hm(s)}-{end}"
    return f"from {day(s)} {hm(s)} to {day(e)} {hm(e)}"


def spaced(text: str) -> str:
    """' text' or '' (for optional parts of a sentence)."""
    return f" {text}" if text else ""


def value(v: Any) -> str:
    """A value as users type it: numbers without units (the preamble gives units), labels bare."""
    if isinstance(v, bool) or isinstance(v, str):
        return str(v)
    return fmt_num(v, 6)


def column(name: str, t: TableView | None) -> str:
    """A measurement's display name ('packet loss', 'RRC_ConnEstabFail'); other columns as written."""
    if t is not None and any(k.name == name for k in t.keys):
        return humanize(name)
    return name


def cond(p: Predicate | dict, t: TableView | None) -> str:
    """'CPU load above 90', 'page cart', 'action add_to_cart or checkout', 'device_state not offline'."""
    p = Predicate.model_validate(p) if isinstance(p, dict) else p
    name = column(p.column, t)
    if p.op in ("in", "not_in"):
        vals = " or ".join(value(v) for v in p.value)
        return f"{name} {'not ' if p.op == 'not_in' else ''}{vals}"
    if isinstance(p.value, str):
        return f"{name} {'not ' if p.op == '!=' else ''}{p.value}"
    return f"{name} {_OPS[p.op]} {value(p.value)}"


def conds(preds: list, t: TableView | None) -> str:
    return " and ".join(cond(p, t) for p in preds)


def negate(p: Predicate | dict) -> Predicate:
    """The complement of a numeric or label predicate (for 'leaving' a predicated state)."""
    p = Predicate.model_validate(p) if isinstance(p, dict) else p
    flip = {">": "<=", ">=": "<", "<": ">=", "<=": ">", "==": "!=", "!=": "==", "in": "not_in", "not_in": "in"}
    return p.model_copy(update={"op": flip[p.op]})


def rows(t: TableView) -> str:
    """'readings' / 'events'."""
    return "readings" if t.periodic else "events"


def event(p: dict | Predicate, t: TableView, many: bool = False) -> str:
    """'a cart event' for a label ('an event with page cart'), 'a reading with CPU load above 90'."""
    r = rows(t) if many else rows(t)[:-1]
    s = f"{r} with {cond(p, t)}"
    return s if many else article(s)


def article(s: str) -> str:
    return ("an " if s[:1].lower() in "aeiou" else "a ") + s


def population(ef: EntityFilter | None, t: TableView, noun: str | None = None) -> str:
    """'cell sites', 'cell sites with Base_Station_ID gNB_003', 'sessions of users with country IND'."""
    n = plural(noun or t.noun)
    if ef is None:
        return n
    c = conds(list(ef.predicates), t)
    if ef.table is not None and ef.key != t.entity and ef.key is not None:
        owner = ef.table if ef.table.endswith("s") else plural(ef.table)
        return f"{n} of {owner} with {c}"
    return f"{n} with {c}"


def state(st: dict, v: str, t: TableView) -> str:
    """A state as users name it: 'page cart', 'device_state critical', 'CPU load above 90'."""
    if "column" in st:
        return f"{column(st['column'], t)} {v}"
    p = Predicate.model_validate(st["predicate"])
    return cond(p if v == "in" else negate(p), t)


_WS = re.compile(r"\s+")


def clean(s: str) -> str:
    """One space between words, a capital first letter, no space before punctuation."""
    s = _WS.sub(" ", s).strip()
    s = re.sub(r"\s+([?,.])", r"\1", s)
    return s[:1].upper() + s[1:]


def word_count(s: str) -> int:
    """Words as the issue counts them: whitespace-separated tokens."""
    return len(s.split())
