"""``entity_count_threshold`` (issue 19): "How many sensors logged more than 5 warning readings on
2 January?" — per-entity count thresholds, optionally inside a window and for a sub-population.

The threshold N is the median per-entity count of the candidate's rows (so about half the entities
pass it and the answer is neither 0 nor all). The naive reading ignores N (every entity with one
matching row).
"""

from __future__ import annotations

from tools.queries.composite import key_sql
from tools.queries.context import SynthContext
from tools.queries.natural.words import clean, conds, period, population, rows, spaced
from tools.queries.reference import thresholds as ref
from tools.queries.registry import Candidate, Template, register
from tools.queries.render import plural, row_noun, window_words
from tools.queries.sql import thresholds as sql
from tools.queries.sql.common import ident, where_clause
from tools.queries.templates.common import base_spec
from tools.queries.templates.stateless import conds as precise_conds
from tools.queries.templates.stateless import event_filters, fit_hours, live_filters, who

NAME = "entity_count_threshold"


def _median_count(ctx: SynthContext, q) -> int | None:
    """The median per-entity count of the query's rows (entities with at least one)."""
    v = ctx.scalar(f"SELECT quantile_disc(n, 0.5) FROM (SELECT count(*) AS n FROM {ident(q.table)} "
                   f"WHERE {where_clause(q)} GROUP BY {key_sql(q)})")
    return None if v is None else int(v)


def candidates(ctx: SynthContext):
    for t in ctx.catalog.tables.values():
        efs = [None, *ctx.pick(live_filters(ctx, t), 1)]
        for p in ctx.pick(event_filters(ctx, t), 3):
            for w in [None, *ctx.windows(t, fit_hours(ctx, t, 2000, (12, 24)), 1)]:
                for ef in efs:
                    q = base_spec(NAME, t, event_filter=[p], window=w, entity_filter=ef, params={"n": 0},
                                  entity_parts=list(t.entity_parts))
                    n = _median_count(ctx, q)
                    if n is not None and n >= 2:
                        yield Candidate(q.model_copy(update={"params": {"n": n}}), decimals=0)


def render(c: Candidate, ctx: SynthContext) -> str:
    q, t = c.spec, ctx.catalog[c.spec.table]
    r = row_noun(t)
    when = window_words(q.window) if q.window else "over the whole data set"
    return (f"How many {who(c, ctx)} had more than {q.p('n')} {r} with {precise_conds(q.event_filter, t)}, {when}? "
            f"Count each {t.noun}'s matching {r} in that period; a {t.noun} with exactly {q.p('n')} does not count. "
            f"Count {plural(t.noun)}, not {r}.")


def natural(c: Candidate, ctx: SynthContext) -> tuple[str, str]:
    q, t = c.spec, ctx.catalog[c.spec.table]
    return (clean(f"How many {population(q.entity_filter, t)} logged more than {q.p('n')} {rows(t)} with "
                  f"{conds(q.event_filter, t)}{spaced(period(q.window))}?"),
            f"Per {t.noun}: its {rows(t)} with {conds(q.event_filter, t)} in the period; count the "
            f"{plural(t.noun)} with more than {q.p('n')} (exactly {q.p('n')} does not count).")


register(Template(NAME, "stateless", "integer", ref.entity_count_threshold, sql.entity_count_threshold, render,
                  candidates, naive=ref.entity_count_threshold_naive, natural=natural))
