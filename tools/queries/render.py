"""Canonical English for questions and answers: nouns, keys, predicates, windows, durations.

Wording follows ../shared/QUESTION-STYLE.md: windows say which bound is included, numbers say
their unit and rounding, units of counting are explicit.
"""

from __future__ import annotations

import math
from datetime import datetime
from typing import Any

from tools.queries.catalog import Key, TableView
from tools.queries.spec import EntityFilter, Predicate, Window

_UNIT_TOKENS = {"c", "f", "pct", "percent", "ms", "hpa", "dbm", "s", "sec", "mb", "gb", "kb"}
_OP_WORDS = {">": "above", ">=": "at or above", "<": "below", "<=": "at or below", "==": "equal to",
             "!=": "other than"}


def humanize(name: str) -> str:
    """``temperature_c`` → ``temperature``; ``Packet_Loss_Percent`` → ``packet loss``; CamelCase
    counters stay as written (``RRC_ConnEstabFail``), since that is how their users say them."""
    parts = [p for p in name.split("_") if p]
    if any(any(c.isupper() for c in p[1:]) and not p.isupper() for p in parts):
        return name
    while len(parts) > 1 and parts[-1].lower() in _UNIT_TOKENS:
        parts.pop()
    return " ".join(p if (p.isupper() and len(p) <= 4) or any(c.isdigit() for c in p) else p.lower()
                    for p in parts)


def plural(noun: str) -> str:
    """English plural of an entity noun."""
    if noun.endswith(("s", "x", "ch", "sh")):
        return noun + "es"
    if noun.endswith("y") and noun[-2:-1] not in "aeiou":
        return noun[:-1] + "ies"
    return noun + "s"


def unit_words(unit: str | None) -> str:
    """How a unit is said after a number ('%' → 'percent')."""
    if not unit or unit == "count":
        return ""
    return {"%": "percent", "pct": "percent", "C": "°C", "ms": "ms"}.get(unit, unit)


def key_words(key: Key) -> str:
    """A measurement's name and unit: 'temperature (°C)'; 'failed logins' (plain counts have none,
    and a unit already in the name is not repeated)."""
    u, name = unit_words(key.unit), humanize(key.name)
    return f"{name} ({u})" if u and u not in name else name


def row_noun(t: TableView) -> str:
    """What one row is called: readings for periodic tables, events for event logs."""
    return "readings" if t.periodic else "events"


def fmt_num(x: float, decimals: int | None = 2) -> str:
    """A number with thousands separators and at most ``decimals`` decimals."""
    if isinstance(x, bool):
        return str(x)
    if isinstance(x, int) or decimals is None:
        return f"{x:,}"
    s = f"{x:,.{decimals}f}"
    return s.rstrip("0").rstrip(".") if "." in s else s


def value_words(v: Any, t: TableView, column: str) -> str:
    """A predicate value with its unit ('30.5 °C', "'critical'")."""
    if isinstance(v, str):
        return f"'{v}'"
    k = next((k for k in t.keys if k.name == column), None)
    u = unit_words(k.unit) if k else ""
    return f"{fmt_num(v, 6)} {u}".strip()


def pred_words(p: Predicate, t: TableView) -> str:
    """'page is 'cart'', 'CPU load above 80 percent'."""
    name = humanize(p.column) if any(k.name == p.column for k in t.keys) else p.column
    if p.op == "in":
        return f"{name} is one of " + ", ".join(value_words(v, t, p.column) for v in p.value)
    if p.op == "not_in":
        return f"{name} is none of " + ", ".join(value_words(v, t, p.column) for v in p.value)
    if isinstance(p.value, str):
        return f"{name} is {'not ' if p.op == '!=' else ''}{value_words(p.value, t, p.column)}"
    return f"{name} {_OP_WORDS[p.op]} {value_words(p.value, t, p.column)}"


def entity_filter_words(f: EntityFilter | None, t: TableView) -> str:
    """'of users whose subscription_type is 'premium'' / 'whose zone is 'zone_A''."""
    if f is None:
        return ""
    cond = " and ".join(pred_words(p, t) for p in f.predicates)
    if f.table is not None and f.key != t.entity:
        return f"belonging to {f.table} whose {cond}"
    return f"whose {cond}"


def when_words(d: datetime) -> str:
    """'06:00 UTC on 2 January 2026'."""
    hm = d.strftime("%H:%M") if d.second == 0 else d.strftime("%H:%M:%S")
    return f"{hm} UTC on {d.day} {d.strftime('%B %Y')}"


def window_words(w: Window | None) -> str:
    """'from 06:00 UTC on 2 January 2026 (included) up to 12:00 UTC on 2 January 2026 (excluded)'."""
    if w is None:
        return "over the whole data set"
    end = "(included)" if getattr(w, "closed", False) else "(excluded)"
    return f"from {when_words(w.start_dt)} (included) up to {when_words(w.end_dt)} {end}"


def fmt_duration(seconds: float) -> str:
    """'1 hr 18 min 52 sec' (rounded to the second)."""
    if seconds is None or not math.isfinite(seconds):
        return "n/a"
    s = int(round(seconds))
    d, s = divmod(s, 86400)
    h, s = divmod(s, 3600)
    m, s = divmod(s, 60)
    parts = [f"{d} d" if d else "", f"{h} hr" if h else "", f"{m} min" if m else "", f"{s} sec" if s else ""]
    return " ".join(p for p in parts if p) or "0 sec"


def rounding_words(decimals: int) -> str:
    """'Round to 2 decimal places.'"""
    return "Give a whole number." if decimals == 0 else f"Round to {decimals} decimal places."


def answer_text(answer: Any, answer_type: str, unit: str | None = None, decimals: int = 2) -> str:
    """The human rendering of a canonical answer."""
    u = f" {unit_words(unit)}" if unit_words(unit) else ""
    if answer is None:
        return "no value"
    if answer_type == "duration":
        return fmt_duration(answer)
    if answer_type == "boolean":
        if isinstance(answer, dict):
            extra = ", ".join(f"{k} {fmt_num(v, decimals)}" for k, v in answer.items() if k != "value")
            return ("Yes" if answer["value"] else "No") + (f" ({extra})" if extra else "")
        return "Yes" if answer else "No"
    if answer_type in ("number", "integer"):
        return f"{fmt_num(answer, decimals)}{u}"
    if answer_type == "mapping":
        return ", ".join(f"{k}={fmt_num(v, decimals)}" if not isinstance(v, str) else f"{k}={v}"
                         for k, v in answer.items())
    if answer_type == "ranking":
        return ", ".join(f"{i}. {k} ({fmt_num(v, decimals)})" for i, (k, v) in enumerate(answer, 1))
    if answer_type == "entity_list":
        return ", ".join(answer) if answer else "none"
    if answer_type == "table":
        return f"{len(answer['rows'])} rows"
    return str(answer)
