"""``top_k_by_aggregate``: the k entities with the highest (or lowest) aggregate of a key.

Ties: candidates whose first k+1 values are not separated at the question's precision are
answered None by both executors and dropped, so every kept ranking is unambiguous.
"""

from __future__ import annotations

from tools.queries.context import SynthContext
from tools.queries.reference.stateless_rank import top_k_by_aggregate as ref_top_k
from tools.queries.registry import Candidate, Template, register
from tools.queries.render import (
    humanize,
    key_words,
    plural,
    rounding_words,
    row_noun,
    unit_words,
    window_words,
)
from tools.queries.sql.common import ident
from tools.queries.sql.stateless_rank import top_k_by_aggregate as sql_top_k
from tools.queries.templates.common import base_spec, day_window
from tools.queries.templates.stateless import (
    answer_unit,
    conds,
    counter_keys,
    event_filters,
    live_filters,
    who,
)

MIN_ENTITIES = 6


def _n_entities(ctx: SynthContext, t) -> int:
    key = ", ".join(ident(c) for c in (t.entity, *t.entity_parts))  # a composite key: its links, not routers
    return ctx.scalar(f"SELECT count(*) FROM (SELECT DISTINCT {key} FROM {ident(t.name)} "
                      f"WHERE {ident(t.entity)} IS NOT NULL)") or 0


def _candidates(ctx: SynthContext):
    for t in ctx.catalog.tables.values():
        n = _n_entities(ctx, t)
        if not t.keys or not t.periodic or n < MIN_ENTITIES:
            continue
        days = int((t.end - t.start).total_seconds() // 86400)
        windows = [None, *[day_window(t, d) for d in ctx.pick(list(range(days)), 2)]]
        efs = [None, *ctx.pick(live_filters(ctx, t), 1)] if n >= 30 else [None]
        counters = {k.name for k in counter_keys(t)}
        for k in ctx.pick(list(t.keys), 3):
            for w in windows:
                for ef in efs:
                    kk = int(ctx.rng.integers(3, 6)) if n >= 12 else 3
                    agg, order = ("sum", "desc") if k.name in counters else \
                        ctx.pick([("mean", "desc"), ("mean", "asc"), ("mean", "desc"), ("max", "desc")], 1)[0]
                    if agg == "mean":  # many entities: means lie close together, one more decimal
                        dec = max(2, k.decimals or 0) + (1 if n >= 50 else 0)
                    else:  # sums of counters, or a reading as recorded
                        dec = 0 if agg == "sum" or k.integer else (k.decimals if k.decimals is not None else 2)
                    yield Candidate(base_spec("top_k_by_aggregate", t, window=w, entity_filter=ef,
                                              params={"key": k.name, "agg": agg, "order": order, "k": kk,
                                                      "decimals": dec}), unit=answer_unit(k), decimals=dec)
        for p in ctx.pick([p for p in event_filters(ctx, t) if p.op in (">", "==")], 2):
            for w in windows[:2]:
                kk = 3 if n < 12 else int(ctx.rng.integers(3, 6))
                yield Candidate(base_spec("top_k_by_aggregate", t, window=w, event_filter=[p],
                                          params={"agg": "count", "order": "desc", "k": kk, "decimals": 0}),
                                decimals=0)


def _render(c: Candidate, ctx: SynthContext) -> str:
    t = ctx.catalog[c.spec.table]
    q = c.spec
    k, agg = q.p("k"), q.p("agg")
    ents = plural(t.noun)
    when = window_words(q.window)
    if agg == "count":
        return (f"Which {k} {who(c, ctx)} had the most {row_noun(t)} with {conds(q.event_filter, t)}, {when}? "
                f"List them from most to fewest with each one's number of such {row_noun(t)}.")
    key = t.key(q.p("key"))
    best = "highest" if q.p("order") == "desc" else "lowest"
    u = unit_words(key.unit)
    what = {"mean": f"{best} mean {key_words(key)}",
            "sum": f"{best} total {key_words(key)} (summed over their {row_noun(t)})",
            "max": f"{best} peak {humanize(key.name)} (their largest single reading{', in ' + u if u else ''})"}[agg]
    order = "highest to lowest" if best == "highest" else "lowest to highest"
    scope = f" Consider only {ents} with at least one {humanize(key.name)} value in that period." \
        if best == "lowest" else ""
    return (f"Which {k} {who(c, ctx)} had the {what}, {when}? List them from {order} with each "
            f"one's value.{scope} {rounding_words(c.decimals)}")


register(Template("top_k_by_aggregate", "stateless", "ranking", ref_top_k, sql_top_k, _render, _candidates))
