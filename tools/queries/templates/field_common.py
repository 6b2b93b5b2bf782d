"""Shared parts of the shape, detection, forecast, claim and premise templates: whole UTC days of the
visible data, their words, and one scan of per-entity statistics."""

from __future__ import annotations

from datetime import datetime, timedelta

from tools.queries.catalog import Key, TableView
from tools.queries.context import SynthContext, iso
from tools.queries.spec import Window
from tools.queries.sql.common import ident, ts

DAY_EVIDENCE = "A day is a UTC calendar day, from 00:00 (included) to 24:00 (excluded)."


def days(t: TableView) -> list[Window]:
    """Every whole UTC day inside the table's (visible) range."""
    first = t.start.replace(hour=0, minute=0, second=0, microsecond=0)
    if first < t.start:
        first += timedelta(days=1)
    out = []
    while first + timedelta(days=1) <= t.end:
        out.append(Window(start=iso(first), end=iso(first + timedelta(days=1))))
        first += timedelta(days=1)
    return out


def day_words(w: Window | str) -> str:
    """'2 January 2026' (the day a window starts)."""
    d = w.start_dt if isinstance(w, Window) else datetime.fromisoformat(w)
    return f"{d.day} {d.strftime('%B %Y')}"


def is_day(w: Window | None) -> bool:
    return w is not None and (w.end_dt - w.start_dt) == timedelta(days=1) and w.start_dt.hour == 0


def per_entity(ctx: SynthContext, t: TableView, w: Window, stats: list[str]) -> list[tuple]:
    """(entity, *stats) per entity with rows in ``w`` (one DuckDB scan, memoised)."""
    key = ("per_entity", t.name, w.start, w.end, tuple(stats))
    if key not in ctx.memo:
        ctx.memo[key] = ctx.con.execute(
            f"SELECT CAST({ident(t.entity)} AS VARCHAR), {', '.join(stats)} FROM {ident(t.name)} "
            f"WHERE {ident(t.time)} >= {ts(w.start)} AND {ident(t.time)} < {ts(w.end)} GROUP BY 1 ORDER BY 1"
        ).fetchall()
    return ctx.memo[key]


def numeric_keys(t: TableView, k: int = 3) -> list[Key]:
    """The table's measurement keys (at most ``k``, in spec order)."""
    return list(t.keys)[:k]
