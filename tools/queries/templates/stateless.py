"""Stateless templates on row counts: event_count, distinct_count, event_rate.

Also the wording and candidate helpers the other stateless modules (``stateless_agg``,
``stateless_exists``, ``stateless_rank``) share: key names, predicate clauses, scopes, window
lengths fitted to a table's density, event filters chosen from the data.
"""

from __future__ import annotations

from datetime import timedelta

from tools.queries.catalog import Key, StaticAttr, TableView
from tools.queries.context import SynthContext, iso
from tools.queries.reference import stateless as ref
from tools.queries.registry import Candidate, Template, register
from tools.queries.render import (
    entity_filter_words,
    fmt_num,
    humanize,
    plural,
    rounding_words,
    row_noun,
    unit_words,
    value_words,
    window_words,
)
from tools.queries.spec import EntityFilter, Predicate
from tools.queries.sql import stateless as sql
from tools.queries.sql.common import ident, pred, ts
from tools.queries.templates.common import (
    base_spec,
    round_to,
    state_predicates,
)

_OPS = {">": "above", ">=": "at or above", "<": "below", "<=": "at or below"}
COUNTER_UNITS = ("count", "attempts", "connections", "bytes")


# ---------------------------------------------------------------- wording

def answer_unit(k: Key) -> str | None:
    """The unit answer_text prints after a value of ``k`` (None for plain counts)."""
    return None if k.unit in (None, "count") else k.unit


def cond(p: Predicate, t: TableView, verb: str = "") -> str:
    """'page 'product'', 'temperature above 24.75 °C' (``verb``: 'temperature was above ...')."""
    is_key = any(k.name == p.column for k in t.keys)
    name = humanize(p.column) if is_key else p.column
    v = f" {verb}" if verb else ""
    if p.op in ("in", "not_in"):
        vals = " or ".join(value_words(x, t, p.column) for x in p.value)
        return f"{name}{v} {'not ' if p.op == 'not_in' else ''}{vals}"
    if isinstance(p.value, str):
        neg = " other than" if p.op == "!=" else ""
        return f"{name}{v}{neg} {value_words(p.value, t, p.column)}"
    if p.op == "==":
        return f"{name}{v} {'equal to ' if verb else ''}{value_words(p.value, t, p.column)}"
    return f"{name}{v} {_OPS[p.op]} {value_words(p.value, t, p.column)}"


def conds(preds: list[Predicate], t: TableView, verb: str = "") -> str:
    """Several predicates joined with 'and'."""
    return " and ".join(cond(p, t, verb) for p in preds)


def who(c: Candidate, ctx: SynthContext) -> str:
    """'sensors whose zone is 'office'', 'sessions belonging to users whose country is 'US''."""
    t = ctx.catalog[c.spec.table]
    ef = entity_filter_words(c.spec.entity_filter, t)
    return plural(t.noun) + (f" {ef}" if ef else "")


def one_row(t: TableView) -> str:
    """'a reading' / 'an event'."""
    return "a reading" if t.periodic else "an event"


def group_words(a: StaticAttr, t: TableView) -> str:
    """'referrer', 'sensor zone', 'country of the user the session belongs to'."""
    if a.table is None:
        return a.name
    if a.key == t.entity:
        return f"{t.noun} {a.name}"
    return f"{a.name} of the {a.table.rstrip('s')} the {t.noun} belongs to"


# ---------------------------------------------------------------- candidate helpers

def rows_per_hour(ctx: SynthContext, t: TableView) -> float:
    """Average rows per hour over the table's data range."""
    n = ctx.scalar(f"SELECT count(*) FROM {ident(t.name)}") or 0
    return n / max((t.end - t.start).total_seconds() / 3600, 1.0)


def fit_hours(ctx: SynthContext, t: TableView, target_rows: float, choices=(1, 3, 6, 12, 24)) -> float:
    """The shortest window length (hours) expected to hold ``target_rows`` rows.

    Periodic tables get at least 24 cadence steps, so moving an edge by one step changes little.
    """
    rate = rows_per_hour(ctx, t)
    floor = 24 * (t.cadence_s or 0) / 3600 if t.periodic else 0
    ok = [h for h in choices if h >= floor] or [choices[-1]]
    return next((h for h in ok if h * rate >= target_rows), ok[-1])


def live_filters(ctx: SynthContext, t: TableView, per_attr: int = 3) -> list[EntityFilter]:
    """Entity filters (attribute == value) whose value occurs in the data, most frequent first."""
    out = []
    for a in t.attrs:
        present = [str(v) for v, _n in ctx.frequent(a.table or t.name, a.name, 50)]
        for v in [v for v in present if v in a.values][:per_attr]:
            out.append(EntityFilter(predicates=[Predicate(column=a.name, op="==", value=v)],
                                    table=a.table, key=a.key, ref=a.ref))
    return out


SAMPLE_HOURS = 24  # thresholds come from the table's first day: cheap on 10M rows, same for every seed


def key_thresholds(ctx: SynthContext, t: TableView, k: Key) -> tuple:
    """(10th, 90th) percentile of ``k`` over the first day of data, rounded to the key's precision."""
    end = t.start + timedelta(hours=SAMPLE_HOURS)
    qs = ctx.scalar(f"SELECT quantile_cont({ident(k.name)}, [0.1, 0.9]) FROM {ident(t.name)} "
                    f"WHERE {ident(t.time)} < {ts(iso(end))}")
    if not qs or qs[0] is None:
        return None, None
    return round_to(qs[0], k), round_to(qs[1], k)


def shares(ctx: SynthContext, t: TableView, preds: list[Predicate]) -> list[float]:
    """Fraction of the table's rows satisfying each predicate (one scan)."""
    if not preds:
        return []
    cols = ", ".join(f"avg(CASE WHEN {pred(p)} THEN 1.0 ELSE 0.0 END)" for p in preds)
    return [v or 0.0 for v in ctx.scalar(f"SELECT [{cols}] FROM {ident(t.name)}")]


def event_filters(ctx: SynthContext, t: TableView, lo: float = 0.005, hi: float = 0.6) -> list[Predicate]:
    """Frequent state values (alone, and the 2nd and 3rd most frequent together), 'key above its
    p90 / below its p10' (first day), kept when they select some but not most rows of the table."""
    preds = state_predicates(ctx, t)
    for s in t.states:
        top = [str(v) for v, _n in ctx.frequent(t.name, s.name, 4)]
        if len(top) >= 3:
            preds.append(Predicate(column=s.name, op="in", value=top[1:3]))
    for k in t.keys:
        low, high = key_thresholds(ctx, t, k)
        if high is not None:
            preds.append(Predicate(column=k.name, op=">", value=high))
        if low is not None and low != high:
            preds.append(Predicate(column=k.name, op="<", value=low))
    return [p for p, f in zip(preds, shares(ctx, t, preds), strict=True) if lo <= f <= hi]


def parent_columns(t: TableView) -> list[StaticAttr]:
    """One attribute per parent entity reached through a foreign key column (users of sessions)."""
    seen: dict[str, StaticAttr] = {}
    for a in t.attrs:
        if a.table is not None and a.key != t.entity and a.key not in seen:
            seen[a.key] = a
    return list(seen.values())


def counter_keys(t: TableView) -> list[Key]:
    """Integer keys that count things per interval (summing them over rows is meaningful)."""
    return [k for k in t.keys if k.integer and (k.unit or "") in COUNTER_UNITS]


# ---------------------------------------------------------------- event_count / distinct_count

def _count_candidates(name: str):
    def gen(ctx: SynthContext):
        for t in ctx.catalog.tables.values():
            efs = [None, *ctx.pick(live_filters(ctx, t), 2)]
            hours = fit_hours(ctx, t, 400)
            for p in ctx.pick(event_filters(ctx, t), 4):
                for w in ctx.windows(t, hours, 2):
                    for ef in efs:
                        yield Candidate(base_spec(name, t, event_filter=[p], window=w, entity_filter=ef),
                                        decimals=0)
            if name == "distinct_count":
                yield from _parent_candidates(ctx, t, hours)
    return gen


def _parent_candidates(ctx: SynthContext, t: TableView, hours: int):
    """Distinct parents (users of sessions, services of hosts) with a matching row."""
    for a in parent_columns(t):
        efs = [None, *[f for f in live_filters(ctx, t) if f.table == a.table][:2]]
        for p in ctx.pick(event_filters(ctx, t), 2):
            for w in ctx.windows(t, hours, 1):
                for ef in efs:
                    yield Candidate(base_spec("distinct_count", t, event_filter=[p], window=w, entity_filter=ef,
                                              params={"of": a.key}), hints={"parent": a.table}, decimals=0)


def _render_event_count(c: Candidate, ctx: SynthContext) -> str:
    t = ctx.catalog[c.spec.table]
    return (f"How many {row_noun(t)} with {conds(c.spec.event_filter, t)} were recorded for {who(c, ctx)}, "
            f"{window_words(c.spec.window)}? Count every matching {row_noun(t)[:-1]}.")


def _render_distinct(c: Candidate, ctx: SynthContext) -> str:
    t = ctx.catalog[c.spec.table]
    q = c.spec
    cnd = conds(q.event_filter, t)
    if q.p("of") is not None:
        parent = c.hints["parent"]
        ef = entity_filter_words(q.entity_filter, t).replace(f"belonging to {parent} ", "")
        return (f"How many distinct {parent}{' ' + ef if ef else ''} had at least one {t.noun} with "
                f"{one_row(t)} with {cnd}, {window_words(q.window)}? Count {parent}, not {plural(t.noun)}.")
    return (f"How many distinct {who(c, ctx)} had at least one {row_noun(t)[:-1]} with {cnd}, "
            f"{window_words(q.window)}?")


# ---------------------------------------------------------------- event_rate

def _rate_candidates(ctx: SynthContext):
    for t in ctx.catalog.tables.values():
        hours = fit_hours(ctx, t, 300, (3, 6, 12, 24))
        efs = ctx.pick(live_filters(ctx, t), 2)
        preds = ctx.pick(event_filters(ctx, t), 3) + ([None] if not t.periodic else [])
        for p in preds:
            for w in ctx.windows(t, hours, 2):
                for ef in [None, *efs[:1]]:
                    yield Candidate(base_spec("event_rate", t, event_filter=[p] if p else [], window=w,
                                              entity_filter=ef), unit=f"{row_noun(t)} per hour", decimals=2)
        for k in counter_keys(t):
            for w in ctx.windows(t, fit_hours(ctx, t, 100, (1, 3, 6, 12)), 1):
                for ef in [None, *efs]:
                    yield Candidate(base_spec("event_rate", t, window=w, entity_filter=ef, params={"key": k.name}),
                                    unit=f"{humanize(k.name)} per hour", decimals=2)


def _render_rate(c: Candidate, ctx: SynthContext) -> str:
    t = ctx.catalog[c.spec.table]
    q = c.spec
    hours = fmt_num(ref.window_hours(q), 2)
    rows = row_noun(t)
    if q.p("key") is not None:
        k = t.key(q.p("key"))
        name = humanize(k.name)
        unit = unit_words(k.unit)
        per = f"{name} ({unit})" if unit and unit not in name else name
        return (f"What was the rate of {name} across all {rows} from {who(c, ctx)}, {window_words(q.window)}, "
                f"in {per} per hour? Sum {name} over those {rows} and divide by the window's length of "
                f"{hours} hours. {rounding_words(c.decimals)}")
    what = f"{rows} with {conds(q.event_filter, t)}" if q.event_filter else rows
    return (f"At what rate were {what} recorded for {who(c, ctx)}, {window_words(q.window)}, in {rows} per "
            f"hour? Divide the number of such {rows} by the window's length of {hours} hours. "
            f"{rounding_words(c.decimals)}")


register(Template("event_count", "stateless", "integer", ref.event_count, sql.event_count,
                  _render_event_count, _count_candidates("event_count"), difficulty="easy"))
register(Template("distinct_count", "stateless", "integer", ref.distinct_count, sql.distinct_count,
                  _render_distinct, _count_candidates("distinct_count"), difficulty="easy"))
register(Template("event_rate", "stateless", "number", ref.event_rate, sql.event_rate,
                  _render_rate, _rate_candidates, difficulty="easy"))
