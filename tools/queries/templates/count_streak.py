"""``entity_count_streak`` (issue 19): per-entity count thresholds "within T" and "without Y in between".

"How many cell sites logged more than 3 readings with RRC failures above 15 within 1 hour on 2 January?"
"How many sessions had more than 2 product views without an add-to-cart in between?"

The threshold n is one less than the median, over the entities with an X row, of each entity's
largest count (within T, or in one run between Y rows), so about half the entities pass it. The
naive reading drops the "within"/"without" clause (more than n X rows in the whole period).
Executors: ``reference/streaks.py`` (pandas) and ``sql/streaks.py``.
"""

from __future__ import annotations

from tools.queries.composite import key_sql
from tools.queries.context import SynthContext
from tools.queries.natural.words import article, clean, cond, period, population, rows, spaced
from tools.queries.reference import streaks as ref
from tools.queries.registry import Candidate, Template, register
from tools.queries.render import fmt_duration, plural, row_noun, window_words
from tools.queries.sql import streaks as sql
from tools.queries.sql.common import ident, pred, where_clause
from tools.queries.templates.common import base_spec
from tools.queries.templates.stateless import cond as precise_cond
from tools.queries.templates.stateless import event_filters, live_filters, who

NAME = "entity_count_streak"
EVENT_SPANS_S = (300, 1800)  # event logs: within 5 minutes, within half an hour
READING_STEPS = (6, 12)  # periodic tables: within 6 or 12 cadence steps


def _median_max(ctx: SynthContext, q, per_row: str) -> int | None:
    """The median over entities of their largest ``per_row`` figure (rows of the query's base)."""
    v = ctx.scalar(f"SELECT quantile_disc(m, 0.5) FROM (SELECT max(c) AS m FROM (SELECT {key_sql(q)}, "
                   f"{per_row} AS c FROM {ident(q.table)} WHERE {where_clause(q, events=False)}) "
                   f"GROUP BY {key_sql(q)} HAVING max(c) > 0)")
    return None if v is None else int(v)


def _within_n(ctx: SynthContext, q) -> int | None:
    x = pred(_p(q.p("a")))
    per = (f"CASE WHEN {x} THEN count(*) FILTER (WHERE {x}) OVER (PARTITION BY {key_sql(q)} ORDER BY "
           f"{ident(q.time)} RANGE BETWEEN CURRENT ROW AND INTERVAL '{int(q.p('within_s'))} seconds' FOLLOWING) "
           "ELSE 0 END")
    return _median_max(ctx, q, per)


def _without_n(ctx: SynthContext, q) -> int | None:
    x, y = pred(_p(q.p("a"))), pred(_p(q.p("without")))
    e = f"concat_ws('/', {key_sql(q)})"  # one text per entity (candidate thresholds only)
    v = ctx.scalar(f"SELECT quantile_disc(m, 0.5) FROM (SELECT e, max(c) AS m FROM (SELECT e, run, count(*) "
                   f"FILTER (WHERE x) AS c FROM (SELECT {e} AS e, {x} AS x, sum(CASE WHEN {y} THEN 1 "
                   f"ELSE 0 END) OVER (PARTITION BY {key_sql(q)} ORDER BY {ident(q.time)}) AS run FROM "
                   f"{ident(q.table)} WHERE {where_clause(q, events=False)}) GROUP BY e, run) GROUP BY e HAVING max(c) > 0)")
    return None if v is None else int(v)


def span_words(seconds: float) -> str:
    """'1 hour', '90 minutes', '10 minutes' (whole minutes; fmt_duration otherwise)."""
    s = int(seconds)
    if s % 3600 == 0:
        return f"{s // 3600} hour" + ("s" if s != 3600 else "")
    if s % 60 == 0:
        return f"{s // 60} minutes"
    return fmt_duration(seconds)


def _p(d):
    from tools.queries.spec import Predicate

    return Predicate.model_validate(d)


def _spans(t) -> list[int]:
    if t.periodic and t.cadence_s:
        return [int(k * t.cadence_s) for k in READING_STEPS]
    return list(EVENT_SPANS_S)


def candidates(ctx: SynthContext):
    for t in ctx.catalog.tables.values():
        efs = [None, *ctx.pick(live_filters(ctx, t), 1)]
        preds = event_filters(ctx, t)
        wins = [None, *ctx.windows(t, 24, 1)]
        for a in ctx.pick(preds, 2):
            a_json = a.model_dump(mode="json")
            for w in wins:
                for ef in efs:
                    for span in ctx.pick(_spans(t), 1):
                        q = base_spec(NAME, t, window=w, entity_filter=ef, params={"a": a_json, "within_s": span},
                                      entity_parts=list(t.entity_parts))
                        m = _within_n(ctx, q)
                        if m is not None and m >= (3 if t.periodic else 2):
                            yield Candidate(q.model_copy(update={"params": {**q.params, "n": m - 1}}), decimals=0)
                    ys = [y for y in preds if y.column == a.column and y != a] or [y for y in preds if y != a]
                    for y in ctx.pick(ys, 1):
                        q = base_spec(NAME, t, window=w, entity_filter=ef, entity_parts=list(t.entity_parts),
                                      params={"a": a_json, "without": y.model_dump(mode="json")})
                        m = _without_n(ctx, q)
                        if m is not None and m >= (3 if t.periodic else 2):
                            yield Candidate(q.model_copy(update={"params": {**q.params, "n": m - 1}}), decimals=0)


def render(c: Candidate, ctx: SynthContext) -> str:
    q, t = c.spec, ctx.catalog[c.spec.table]
    r, n = row_noun(t), q.p("n")
    when = window_words(q.window) if q.window else "over the whole data set"
    x = precise_cond(_p(q.p("a")), t)
    if q.p("within_s") is not None:
        span = span_words(float(q.p("within_s")))
        return (f"How many {who(c, ctx)} had more than {n} {r} with {x} within {span}, counting {r} {when}? "
                f"A {t.noun} counts when {n + 1} of those {r} lie at most {span} apart (from the first to the "
                f"last, both included). Count {plural(t.noun)}.")
    y = precise_cond(_p(q.p("without")), t)
    return (f"How many {who(c, ctx)} had more than {n} {r} with {x} without {r[:-1]} with {y} in between, counting "
            f"{r} {when}? Cut each {t.noun}'s {r} in that period at every {r[:-1]} with {y} (it starts a new "
            f"stretch, together with {r} at the same time); a {t.noun} counts when one stretch holds more than "
            f"{n} {r} with {x}. Count {plural(t.noun)}.")


def natural(c: Candidate, ctx: SynthContext) -> tuple[str, str]:
    q, t = c.spec, ctx.catalog[c.spec.table]
    n, who_ = q.p("n"), population(q.entity_filter, t)
    x = cond(q.p("a"), t)
    more = "at least 2" if n == 1 else f"more than {n}"
    if q.p("within_s") is not None:
        span = span_words(float(q.p("within_s")))
        return (clean(f"How many {who_} logged {more} {rows(t)} with {x} within {span}"
                      f"{spaced(period(q.window))}?"),
                f"A {t.noun} counts when {n + 1} of its {rows(t)} with {x} in the period are at most {span} "
                "apart (first to last, both included).")
    y = cond(q.p("without"), t)
    return (clean(f"How many {who_} had {more} {rows(t)} with {x} without {article(rows(t)[:-1])} with {y} "
                  f"in between{spaced(period(q.window))}?"),
            f"Each {t.noun}'s {rows(t)} in the period are cut at every {rows(t)[:-1]} with {y}; it counts when "
            f"one stretch holds more than {n} {rows(t)} with {x}.")


register(Template(NAME, "stateful", "integer", ref.entity_count_streak, sql.entity_count_streak, render,
                  candidates, naive=ref.entity_count_streak_naive, natural=natural))
