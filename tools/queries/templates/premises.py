"""Questions whose right answer is "that did not happen" or "the data cannot say".

``false_premise``: a question built on an entity that does not exist (``RTR_009`` when the links
are RTR_001..RTR_008), a date outside the data, or an event that did not happen (a sensor that never
went 'critical' that day, a level never reached). ``unanswerable``: a question about a measurement,
an attribute or a kind of entity the data lacks ("the humidity of the meters" without a humidity
column). The expected answer names the false premise or the missing data; an agent that answers
with a figure (``naive_answer``: the nearest figure the data has) is wrong.
"""

from __future__ import annotations

import re
from datetime import timedelta

from tools.queries.catalog import TableView
from tools.queries.context import SynthContext, iso
from tools.queries.reference import claims as ref
from tools.queries.registry import Candidate, Template, register
from tools.queries.render import humanize, key_words, plural, row_noun, value_words
from tools.queries.spec import Predicate, Window
from tools.queries.sql import claims as sql
from tools.queries.sql.common import ident, lit
from tools.queries.templates.common import base_spec, round_to
from tools.queries.templates.field_common import day_words, days, numeric_keys, per_entity

MEASURES = ("humidity", "voltage", "wind speed", "revenue", "altitude", "noise level", "rainfall", "fuel level",
            "heart rate", "vibration", "temperature", "pressure")
ATTRIBUTES = ("region", "manufacturer", "vendor", "building", "owner", "floor", "country", "firmware")
ENTITY_TYPES = (("gateway", "gateways"), ("technician", "technicians"), ("warehouse", "warehouses"),
                ("satellite", "satellites"), ("invoice", "invoices"), ("antenna", "antennas"))


def fake_id(ids: list[str], i: int = 1) -> str | None:
    """An id shaped like the real ones but beyond them ('RTR_009' after RTR_001..RTR_008)."""
    pat = [re.fullmatch(r"(.*?)(\d+)", s) for s in ids]
    if not ids or not all(pat):
        return None
    width = len(pat[0].group(2))
    prefix = pat[0].group(1)
    top = max(int(m.group(2)) for m in pat if m.group(1) == prefix)
    return f"{prefix}{top + i:0{width}d}"


def _premise_candidates(ctx: SynthContext):
    for t in ctx.catalog.tables.values():
        keys = numeric_keys(t, 2)
        ds = days(t)
        if not ds:
            continue
        k = ctx.pick(keys, 1)[0] if keys else None
        ids = [r[0] for r in per_entity(ctx, t, ds[0], ["count(*)"])]
        noun = t.noun
        for w in ctx.pick(ds, 2):
            for i in (1, 2, 7):
                fid = fake_id(ids, i)
                if fid:
                    yield _cand(t, "entity", w, k and k.name, id=fid, noun=noun)
            late = t.end.replace(hour=0, minute=0, second=0, microsecond=0) + timedelta(days=6 + len(ds))
            lw = Window(start=iso(late), end=iso(late + timedelta(days=1)))
            for e in ctx.pick(ids, 2):
                yield _cand(t, "date", lw, k and k.name, id=e, noun=noun)
            yield from _event_cands(ctx, t, w, k, noun)


def _event_cands(ctx: SynthContext, t: TableView, w: Window, k, noun: str):
    """An entity that has rows that day but never the event (a rare state, a level above its max)."""
    states = [(s.name, v) for s in t.states for v in s.values[-2:]]
    stats = [f"max({ident(k.name)})" if k else "NULL"] + [
        f"count(*) FILTER (WHERE CAST({ident(c)} AS VARCHAR) = {lit(str(v))})" for c, v in states]
    rows = per_entity(ctx, t, w, stats)
    for e, mx, *counts in ctx.pick(rows, 2):
        if mx is not None and k is not None:
            lvl = round_to(mx + 0.2 * abs(mx) + 1, k)
            yield _cand(t, "event", w, k.name, id=e, noun=noun,
                        event=Predicate(column=k.name, op=">", value=lvl).model_dump())
        for (col, v), n in zip(states, counts, strict=True):
            if n == 0:
                yield _cand(t, "event", w, k and k.name, id=e, noun=noun,
                            event=Predicate(column=col, op="==", value=str(v)).model_dump())
                break


def _cand(t: TableView, kind: str, w: Window, key: str, **params) -> Candidate:
    q = base_spec("false_premise", t, window=w, params={"kind": kind, "key": key, "day": day_words(w), **params})
    return Candidate(q, decimals=2)


def _render_premise(c: Candidate, ctx: SynthContext) -> str:
    t, q = ctx.catalog[c.spec.table], c.spec
    if q.p("kind") != "event":
        if q.p("key") is None:
            return f"How many {row_noun(t)} did {t.noun} {q.p('id')} have on {q.p('day')}?"
        return f"What was the mean {key_words(t.key(q.p('key')))} of {t.noun} {q.p('id')} on {q.p('day')}?"
    ev = Predicate.model_validate(q.p("event"))
    if ev.op == "==":
        return f"Why did {t.noun} {q.p('id')} go '{ev.value}' on {q.p('day')}?"
    return (f"What made the {humanize(ev.column)} of {t.noun} {q.p('id')} go above "
            f"{value_words(ev.value, t, ev.column)} on {q.p('day')}?")


def _present(ctx: SynthContext) -> str:
    """Every column and table name of the bundle, normalised (what 'missing' must avoid)."""
    names = [n for t in ctx.catalog.tables.values()
             for n in [t.name, t.entity, t.time, *(k.name for k in t.keys), *(s.name for s in t.states),
                       *(a.name for a in t.attrs)]]
    names += [r[0] for r in ctx.con.execute("SELECT column_name FROM information_schema.columns").fetchall()]
    return " ".join("".join(c for c in n.lower() if c.isalnum()) for n in names)


def _unanswerable_candidates(ctx: SynthContext):
    present = _present(ctx)

    def absent(word: str) -> bool:
        w = "".join(c for c in word.lower() if c.isalnum())
        return w not in present and w.rstrip("s") not in present

    for t in ctx.catalog.tables.values():
        keys, ds = numeric_keys(t, 2), days(t)
        if not ds:
            continue
        for w in ctx.pick(ds, 2):
            k = ctx.pick(keys, 1)[0].name if keys else None
            for m in ctx.pick([m for m in MEASURES if absent(m)], 2):
                yield _ucand(t, "column", w, m, k)
            for a in ctx.pick([a for a in ATTRIBUTES if absent(a)], 2):
                yield _ucand(t, "attribute", w, a, k)
            for one, many in ctx.pick([e for e in ENTITY_TYPES if absent(e[0])], 1):
                yield _ucand(t, "entity", w, one, k, noun=many)


def _ucand(t: TableView, kind: str, w: Window, missing: str, key: str, **params) -> Candidate:
    q = base_spec("unanswerable", t, window=w, params={"kind": kind, "missing": missing, "key": key,
                                                       "day": day_words(w), **params})
    return Candidate(q, decimals=2)


def _render_unanswerable(c: Candidate, ctx: SynthContext) -> str:
    t, q = ctx.catalog[c.spec.table], c.spec
    kind, miss, day = q.p("kind"), q.p("missing"), q.p("day")
    if kind == "column":
        return f"What was the mean {miss} of the {plural(t.noun)} on {day}?"
    if kind == "attribute" and q.p("key") is None:
        return f"How many {plural(t.noun)} were there per {miss} on {day}?"
    if kind == "attribute":
        return f"What was the mean {key_words(t.key(q.p('key')))} of the {plural(t.noun)} per {miss} on {day}?"
    return f"How many {q.p('noun')} reported on {day}?"


register(Template("false_premise", "false_premise", "label", ref.false_premise, sql.false_premise, _render_premise,
                  _premise_candidates, naive=ref.fabricated, difficulty="medium", screen_with="sql"))
register(Template("unanswerable", "unanswerable", "label", ref.unanswerable, sql.unanswerable, _render_unanswerable,
                  _unanswerable_candidates, naive=ref.fabricated, difficulty="easy", screen_with="sql"))
